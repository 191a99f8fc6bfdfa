/**
 * What every command module (commands/<name>.ts) exports as `command`: its name, its `--help` text, a parser of its
 * arguments and the command itself. The dispatcher (main.ts) does the rest the same way for all of them: a usage
 * error (exit 2, with --json also the error object), `--help`, then `run`.
 */
import type { CommandIo } from './io.js';

export interface Command<A extends { readonly help: boolean }> {
  readonly name: string;
  /** The whole `--help` text; its first paragraph is the synopsis a usage error shows (args.ts `usageShort`). */
  readonly usage: string;
  /** Throws `UsageError` (args.ts) for arguments the command does not take. */
  parse(args: readonly string[]): A;
  /** Resolves with the exit status (exit-status.ts). */
  run(parsed: A, io: CommandIo): Promise<number>;
}
