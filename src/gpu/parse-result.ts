/** What a parser of tool output returns: the typed value, or why the output is unusable. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: ToolOutputError };

/**
 * Why a tool's stdout could not be used.
 * - `tool-error`: the tool reported an error itself (amd-smi's `{"error", "code"}` JSON, which 6.x
 *   prints with exit status 0);
 * - `no-json`: no JSON document at all (a traceback, a banner only, garbage);
 * - `no-records`: JSON, but no GPU record in it (e.g. only CPU documents);
 * - `bad-line`: a CSV line that does not have the queried fields.
 */
export interface ToolOutputError {
  kind: 'tool-error' | 'no-json' | 'no-records' | 'bad-line';
  /** One line, for a warning. */
  message: string;
  /** amd-smi's `code` for `tool-error`, when it gave one. */
  code?: number;
}

export function fail<T>(kind: ToolOutputError['kind'], message: string, code?: number): ParseResult<T> {
  return { ok: false, error: code === undefined ? { kind, message } : { kind, message, code } };
}

/** Shortens text quoted in a warning, and keeps it on one line. */
export function excerpt(text: string, max = 120): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
