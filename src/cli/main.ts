#!/usr/bin/env -S node --max-semi-space-size=1
/** Entry point of the `aorta-probe` bin; everything else lives in run.ts. */
import { runCli } from './run.js';

void runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
}).then((code) => {
  process.exitCode = code;
});
