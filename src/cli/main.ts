#!/usr/bin/env node
/** Entry point of the `aorta-probe` bin; everything else lives in run.ts. */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useCodeCache } from './code-cache.js';
import { processIo } from './process-io.js';
import { runCli } from './run.js';

// Before any command's chunk is required (they are, on demand, by runCli).
useCodeCache(dirname(fileURLToPath(import.meta.url)));

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
