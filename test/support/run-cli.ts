import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/run.js';

export interface CliOutcome {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs the CLI in-process with `input` on stdin; returns the exit status and everything written to stdout and stderr.
 * `tty`: stdout claims to be a terminal (colour, progress).
 */
export async function cliInProcess(args: readonly string[], input = '', { tty = false } = {}): Promise<CliOutcome> {
  const stdin = new PassThrough();
  stdin.end(input);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (tty) Object.assign(stdout, { isTTY: true });
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runCli(args, { stdin, stdout, stderr });
  return { code, out, err };
}
