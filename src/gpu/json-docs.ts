/**
 * Finds the JSON documents in a tool's stdout.
 *
 * amd-smi's stdout is not always one JSON document: 6.4+ prints a groups WARNING line before it,
 * watch mode prints a banner and one document per iteration, EPYC hosts get CPU, core and GPU
 * documents back to back, some 7.2.x builds print the same document twice, and 7.x prefixes an
 * error payload with the exception class name on the same line. So the output is scanned instead of
 * handed to one `JSON.parse`.
 */

/** One JSON document found in a tool's stdout. */
export interface JsonDocument {
  /** The parsed value. */
  value: unknown;
  /** 1-based line on which the document starts. */
  line: number;
}

/**
 * A failed candidate may scan to the end of the text, so garbage full of `{` costs quadratic time;
 * real outputs have at most a few failed candidates (a `{` in a warning). Past this many, the rest of
 * the text is not looked at, which bounds the time the sampler can take from the runner's event loop.
 */
const MAX_FAILED_CANDIDATES = 16;

/**
 * A one-shot call prints one document per GPU section at most (a few on EPYC hosts, two on the builds that
 * repeat it); past this many the rest of the text is not looked at. Without it `{}` printed a million times
 * (2 MB, under the 4 MiB output cap) cost ~3 µs per document on the runner's event loop.
 */
export const MAX_JSON_DOCUMENTS = 256;

/**
 * Returns every top-level JSON object or array in `text`, in order (up to the 16th candidate that
 * turns out not to be JSON, and at most MAX_JSON_DOCUMENTS of them).
 *
 * A document starts at the first non-blank character of a line when that is `{` or `[`, or, on a
 * line that starts with other text, at its first `{` (7.x: `AmdSmiException {"error": ...}`). From
 * there the brackets are matched, honouring strings and escapes, and the slice is `JSON.parse`d.
 * When that fails the candidate is dropped and scanning resumes on the next line, so a stray `{` in a
 * warning cannot swallow the document after it. Lines that hold no document are ignored.
 */
export function extractJsonDocuments(text: string): JsonDocument[] {
  const docs: JsonDocument[] = [];
  let lineStart = 0;
  let line = 1;
  let failed = 0;
  // The end of the current line is looked up once per line, not once per document: many documents on one
  // long line (`{}` a million times) would otherwise rescan the rest of the line after each one (quadratic).
  let lineEnd = -1;
  while (lineStart < text.length && failed < MAX_FAILED_CANDIDATES && docs.length < MAX_JSON_DOCUMENTS) {
    if (lineEnd < lineStart) {
      lineEnd = text.indexOf('\n', lineStart);
      if (lineEnd < 0) lineEnd = text.length;
    }
    const start = candidateStart(text, lineStart, lineEnd);
    if (start >= 0) {
      const end = matchBrackets(text, start);
      if (end > 0) {
        const value = tryParse(text.slice(start, end));
        if (value !== undefined) {
          docs.push({ value, line });
          // Continue on the line where the document ended; it may hold another one after it.
          line += countNewlines(text, lineStart, end);
          lineStart = end;
          continue;
        }
      }
      failed++;
    }
    lineStart = lineEnd + 1;
    line++;
  }
  return docs;
}

function candidateStart(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++;
  if (i >= to) return -1;
  if (text[i] === '{' || text[i] === '[') return i;
  const brace = text.indexOf('{', i);
  return brace >= 0 && brace < to ? brace : -1;
}

/** Index just past the bracket that closes the one at `start`, or -1 when it is never closed. */
function matchBrackets(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function tryParse(slice: string): unknown {
  try {
    return JSON.parse(slice) as unknown;
  } catch {
    return undefined;
  }
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 0x0a) n++;
  return n;
}
