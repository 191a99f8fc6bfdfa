#!/usr/bin/env node
/** Entry point of the `aorta-probe` bin; everything else lives in run.ts. */
import { runCli } from './run.js';

void runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  ownProcess: true,
}).then((code) => {
  process.exitCode = code;
});
