import { PassThrough, type Readable } from 'node:stream';
import { runCli } from '../../src/cli/main.js';

export interface CliOutcome {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs the CLI in-process with `input` on stdin (a string, or a stream that produces it over time); returns the exit
 * status and everything written to stdout and stderr. `tty`: stdout claims to be a terminal (colour);
 * `stderrTty`: stderr does (the progress line).
 */
export async function cliInProcess(
  args: readonly string[],
  input: string | Readable = '',
  { tty = false, stderrTty = false } = {},
): Promise<CliOutcome> {
  let stdin: Readable;
  if (typeof input === 'string') {
    const p = new PassThrough();
    p.end(input);
    stdin = p;
  } else stdin = input;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (tty) Object.assign(stdout, { isTTY: true });
  if (stderrTty) Object.assign(stderr, { isTTY: true });
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runCli(args, { stdin, stdout, stderr });
  return { code, out, err };
}
