/**
 * The JSON contract every command's `--json` follows (schemas/ holds the JSON Schemas, docs/cli.md the prose):
 * - stdout holds exactly one JSON document (one line) per invocation, or one line per input line for
 *   `eval --jsonl`; everything else goes to stderr;
 * - a command that cannot do its job prints `{"error": ERROR}` (with the command's context keys, e.g. `file`);
 * - ERROR is always the same object: `{type, message, detail, file, line, col, node}`;
 * - durations are milliseconds rounded to 3 decimals.
 */
import { RecipeSchemaError, SandboxError } from '../condition/errors.js';
// The error classes alone: recipe/index.js would load the loader (yaml, the regex engine) into every command.
import { RecipeError, RecipeSandboxError } from '../recipe/errors.js';
import { UsageError } from './args.js';
import { TrialOutputError } from '../trial/output-error.js';

export interface ErrorRecord {
  /** The error's class: UsageError, ReadError, WriteError, RecipeSchemaError, SandboxError, …, InternalError. */
  type: string;
  /** The full message as the text output shows it (may span lines: position and caret excerpt). */
  message: string;
  /** The one-line reason alone. */
  detail: string;
  /** The file the error is about, or null. */
  file: string | null;
  /** 1-based position in `file` (or in the condition, for `eval`), or null. */
  line: number | null;
  col: number | null;
  /** CPython AST class of the offending node (a condition's SandboxError), else null. */
  node: string | null;
}

/** A file the command could not read or write, with the system's reason. */
abstract class FileError extends Error {
  constructor(
    verb: 'read' | 'write',
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot ${verb} ${file}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** An input that could not be read (missing, a directory, no permission): exit 2. */
export class ReadError extends FileError {
  override name = 'ReadError';
  constructor(file: string, cause: unknown) {
    super('read', file, cause);
  }
}

/** An output that could not be written (`--emit-to`, `report --out`): an I/O failure, exit 3. */
export class WriteError extends FileError {
  override name = 'WriteError';
  constructor(file: string, cause: unknown) {
    super('write', file, cause);
  }
}

/** The one error object, from whatever was thrown. */
export function errorRecord(err: unknown, file: string | null = null): ErrorRecord {
  if (err instanceof RecipeSandboxError) {
    return {
      type: err.name,
      message: err.message,
      detail: err.reason,
      file: err.file,
      line: err.line,
      col: err.col,
      node: err.node,
    };
  }
  if (err instanceof SandboxError) {
    return {
      type: err.name,
      message: err.message,
      detail: err.detail,
      file,
      line: err.line,
      col: err.col,
      node: err.node,
    };
  }
  if (err instanceof RecipeError) {
    return {
      type: err.name,
      message: err.message,
      detail: err.reason,
      file: err.file,
      line: err.line,
      col: err.col,
      node: null,
    };
  }
  if (err instanceof RecipeSchemaError) {
    const p = err as RecipeSchemaError & { reason?: string; file?: string; line?: number; col?: number };
    return {
      type: err.name,
      message: err.message,
      detail: p.reason ?? err.message,
      file: p.file ?? file,
      line: p.line ?? null,
      col: p.col ?? null,
      node: null,
    };
  }
  if (err instanceof FileError) return positionlessError(err.name, err.message, err.file);
  if (err instanceof TrialOutputError) return positionlessError(err.name, err.message, err.path);
  if (err instanceof UsageError) return positionlessError(err.name, err.message);
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { type: 'InternalError', message, detail: message, file, line: null, col: null, node: null };
}

/** An error about no position in a file (a usage error, a directory that cannot be made, a port in use). */
export function positionlessError(type: string, message: string, file: string | null = null): ErrorRecord {
  return { type, message, detail: message, file, line: null, col: null, node: null };
}

/** Milliseconds to 3 decimals (µs): what every JSON duration shows. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** One JSON document on one line. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
