/**
 * Argument dispatch for the `aorta-probe` command. Returns the exit status instead of exiting, so
 * the entry point (`main.ts`) stays a one-liner.
 *
 * Exit status: 0 success (also when the reader of stdout goes away early, e.g. `| head -1`),
 * 1 an I/O failure or an internal error, 2 a usage error.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { evalJsonl } from './eval-jsonl.js';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

const PROGRAM = 'aorta-probe';

export const USAGE = `Usage: ${PROGRAM} <command> [options]

Commands:
  eval --jsonl   Read JSON Lines on stdin and write one JSON result line per input line
                 to stdout. Conditions are checked against the sandbox rules; this version
                 does not evaluate them. See '${PROGRAM} eval --help'.

Options:
  -h, --help     Show this help and exit.
  --version      Print the version and exit.
`;

export const EVAL_USAGE = `Usage: ${PROGRAM} eval --jsonl

Reads JSON Lines on stdin, one object per line:
  {"condition": str, "capture": {str: str}, "exit_code": int,
   "walltime_sec": number, "peak_vram_mib": int|null}
and writes exactly one JSON line per input line (blank lines included) to stdout, in order:
  {"valid": true}
  {"valid": false, "error": {"type": "SandboxError", "node": str|null, "message": str,
                             "detail": str, "line": int, "col": int}}
  {"valid": false, "error": {"type": "InputError", "message": str, "line": <input line>, "col": 1}}
A SandboxError's line/col point into the condition; an InputError's line is the input line.

Options:
  --jsonl        Required: JSON Lines in and out.
  -h, --help     Show this help and exit.

Exit status: 0 when the input was read to the end (rejected conditions and malformed lines
are answered on stdout, not by the exit status), 1 on an I/O or internal error, 2 on a usage error.
`;

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) return await usageError(io, 'missing command', USAGE);
    if (command === '-h' || command === '--help') {
      await writeAll(io.stdout, USAGE);
      return 0;
    }
    if (command === '--version') {
      if (rest.length > 0) return await usageError(io, `unexpected argument '${rest[0]}'`, USAGE);
      await writeAll(io.stdout, `${PROGRAM} ${packageVersion()}\n`);
      return 0;
    }
    if (command === 'eval') return await evalCommand(rest, io);
    if (command.startsWith('-')) return await usageError(io, `unknown option '${command}'`, USAGE);
    return await usageError(io, `unknown command '${command}'`, USAGE);
  } catch (err) {
    if (isEpipe(err)) return 0;
    await writeAll(io.stderr, `${PROGRAM}: ${describeIoError(err)}\n`).catch(() => {});
    return 1;
  }
}

async function evalCommand(args: readonly string[], io: CliIo): Promise<number> {
  let jsonl = false;
  for (const arg of args) {
    if (arg === '-h' || arg === '--help') {
      await writeAll(io.stdout, EVAL_USAGE);
      return 0;
    }
    if (arg === '--jsonl') jsonl = true;
    else if (arg.startsWith('-')) return usageError(io, `eval: unknown option '${arg}'`, EVAL_USAGE);
    else return usageError(io, `eval: unexpected argument '${arg}'`, EVAL_USAGE);
  }
  if (!jsonl) return usageError(io, 'eval: --jsonl is required', EVAL_USAGE);

  const summary = await evalJsonl(io.stdin, io.stdout, {
    onInternalError: (err, line) => {
      const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
      io.stderr.write(`${PROGRAM}: internal error on input line ${line}: ${text}\n`);
    },
  });
  return summary.internalErrors > 0 ? 1 : 0;
}

async function usageError(io: CliIo, message: string, usage: string): Promise<number> {
  await writeAll(io.stderr, `${PROGRAM}: ${message}\n\n${usage}`).catch(() => {});
  return 2;
}

/** Writes and waits for the write to complete; rejects on a stream error instead of crashing. */
function writeAll(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Left attached on failure: the 'error' event follows the write callback.
    stream.once('error', reject);
    stream.write(text, (err) => {
      if (err) reject(err);
      else {
        stream.off('error', reject);
        resolve();
      }
    });
  });
}

function isEpipe(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'EPIPE';
}

function describeIoError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Version from the package's own package.json, found by walking up from this module (src/ or dist/src/). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'aorta-probe' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no (readable) package.json here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
