/**
 * The JSON objects `eval --jsonl` writes, one per input line. An accepted condition is answered with
 * its evaluation (`fired` plus `value` or the exception class in `error`); a rejected condition or an
 * unusable line with `valid: false` and an error object, whose `type` tells the shapes apart.
 *
 * `line`/`col` mean different things per type: for a SandboxError they locate the offending node or
 * syntax error inside the (stripped) condition text; for an InputError or InternalError, `line` is
 * the 1-based input line number and `col` is always 1.
 */
import type { SandboxError } from '../condition/errors.js';
import type { DetailedResult } from '../condition/evaluate.js';

export interface SandboxErrorRecord {
  type: 'SandboxError';
  /** CPython AST class name of the offending node, or null (syntax, length, empty, non-string). */
  node: string | null;
  /** Full message: the one-line reason, the position, and (when there is source) a caret excerpt. */
  message: string;
  /** The one-line reason alone. */
  detail: string;
  line: number;
  col: number;
}

export interface InputErrorRecord {
  type: 'InputError';
  message: string;
  line: number;
  col: 1;
}

/** A bug in this package (the validator threw something other than a SandboxError). */
export interface InternalErrorRecord {
  type: 'InternalError';
  message: string;
  line: number;
  col: 1;
}

export type ErrorRecord = SandboxErrorRecord | InputErrorRecord | InternalErrorRecord;

/** An accepted, evaluated condition: the value's CPython type name and repr, or the exception class. */
export type EvaluatedRecord =
  | { valid: true; fired: boolean; value: { type: string; repr: string | null } } // repr null: an int past 4300 digits
  | { valid: true; fired: false; error: string };

export type ResultRecord = EvaluatedRecord | { valid: false; error: ErrorRecord };

/** Builds the record field by field, so the key order is fixed whatever the library object looks like. */
export function evaluatedResult(result: DetailedResult): EvaluatedRecord {
  if ('error' in result) return { valid: true, fired: false, error: result.error };
  return { valid: true, fired: result.fired, value: { type: result.value.type, repr: result.value.repr } };
}

export function sandboxErrorResult(err: SandboxError): ResultRecord {
  return {
    valid: false,
    error: { type: 'SandboxError', node: err.node, message: err.message, detail: err.detail, line: err.line, col: err.col },
  };
}

export function inputErrorResult(message: string, inputLine: number): ResultRecord {
  return { valid: false, error: { type: 'InputError', message: `input line ${inputLine}: ${message}`, line: inputLine, col: 1 } };
}

export function internalErrorResult(err: unknown, inputLine: number): ResultRecord {
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return {
    valid: false,
    error: { type: 'InternalError', message: `input line ${inputLine}: internal error: ${reason}`, line: inputLine, col: 1 },
  };
}
