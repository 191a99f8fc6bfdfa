#!/usr/bin/env node
/**
 * Entry point of the `aorta-probe` bin (bundled as dist/src/cli/main.cjs, scripts/bundle-cli.mjs): the process's
 * own side effects, and nothing else; the commands are dispatched by main.ts.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useCodeCache } from './code-cache.js';
import { runCli } from './main.js';
import { processIo } from './process-io.js';

// Before any command's chunk is required (they are, on demand, by runCli).
useCodeCache(dirname(fileURLToPath(import.meta.url)));

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
