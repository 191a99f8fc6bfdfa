/**
 * The JSON objects `eval --jsonl` writes, one per input line. An accepted condition is answered with
 * its evaluation (`fired` plus `value` or the exception class in `error`); a rejected condition or an
 * unusable line with `valid: false` and an error object, whose `type` tells the shapes apart.
 *
 * `line`/`col` mean different things per type: for a SandboxError they locate the offending node or
 * syntax error inside the (stripped) condition text; for an InputError or InternalError, `line` is
 * the 1-based input line number and `col` is always 1. `file` is always null here.
 */
import type { SandboxError } from '../condition/errors.js';
import type { DetailedResult } from '../condition/evaluate.js';
import type { ErrorRecord as JsonErrorRecord } from './json-output.js';

/**
 * The error object of every command (cli/json-output.ts): `type` tells SandboxError (line/col inside the
 * condition), InputError and InternalError (line = the input line, col 1) apart.
 */
export type ErrorRecord = JsonErrorRecord & { type: 'SandboxError' | 'InputError' | 'InternalError' };

/**
 * An accepted, evaluated condition: the value's CPython type name and repr, or the exception class it raised (which
 * means it did not fire); `exception`, not `error`, so that `error` is always the error object.
 */
export type EvaluatedRecord =
  | { valid: true; fired: boolean; value: { type: string; repr: string | null } } // repr null: an int past 4300 digits
  | { valid: true; fired: false; exception: string };

export type ResultRecord = EvaluatedRecord | { valid: false; error: ErrorRecord };

/** Builds the record field by field, so the key order is fixed whatever the library object looks like. */
export function evaluatedResult(result: DetailedResult): EvaluatedRecord {
  if ('error' in result) return { valid: true, fired: false, exception: result.error };
  return { valid: true, fired: result.fired, value: { type: result.value.type, repr: result.value.repr } };
}

export function sandboxErrorResult(err: SandboxError): ResultRecord {
  return {
    valid: false,
    error: {
      type: 'SandboxError',
      message: err.message,
      detail: err.detail,
      file: null,
      line: err.line,
      col: err.col,
      node: err.node,
    },
  };
}

export function inputErrorResult(message: string, inputLine: number): ResultRecord {
  const m = `input line ${inputLine}: ${message}`;
  return {
    valid: false,
    error: { type: 'InputError', message: m, detail: message, file: null, line: inputLine, col: 1, node: null },
  };
}

export function internalErrorResult(err: unknown, inputLine: number): ResultRecord {
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const m = `input line ${inputLine}: internal error: ${reason}`;
  return {
    valid: false,
    error: { type: 'InternalError', message: m, detail: reason, file: null, line: inputLine, col: 1, node: null },
  };
}
