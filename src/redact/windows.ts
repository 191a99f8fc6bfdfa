/**
 * The original's windows (upstream-probe-runs.md §1.4, its newest generation): text is scrubbed in windows of at
 * most `MAX_WINDOW_UTF8_BYTES` (10 MiB, the sandbox's `MAX_LOG_BYTES`), split at line ends (`\n`, so `\r\n` and a
 * lone `\r` stay inside their window, byte for byte); a single line longer than the budget is hard-split into
 * chunks of `MAX_WINDOW_UTF8_BYTES / 4` characters, each boundary moved back by up to 4096 characters (PATH_MAX) to
 * just after the last character outside the scrubbed tokens' alphabet, so a path, an address or a key on the seam is
 * not cut in two. Invariants: the windows concatenate to the input exactly; each is at most the budget in UTF-8
 * bytes, or one hard-split chunk.
 */

export const MAX_WINDOW_UTF8_BYTES = 10 * 1024 * 1024;
const HARD_SPLIT_CHARS = MAX_WINDOW_UTF8_BYTES / 4;
const LOOKBACK_CHARS = 4096;
/** The original's `_SCRUB_TOKEN_CHARS`: what a path, an IP or a placeholder is made of. */
const TOKEN_CHAR = /[A-Za-z0-9_./:[\]-]/;

/** UTF-8 bytes of `s` (a lone surrogate as U+FFFD's 3), without Node's Buffer: this module is browser-safe. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** A line longer than the budget, in chunks whose ends avoid cutting a token (within the look-back). */
function hardSplit(line: string, chunk: number): string[] {
  const out: string[] = [];
  let from = 0;
  while (line.length - from > chunk) {
    let cut = from + chunk;
    for (let i = cut - 1; i >= Math.max(from + 1, cut - LOOKBACK_CHARS); i--) {
      if (!TOKEN_CHAR.test(line[i]!)) {
        cut = i + 1;
        break;
      }
    }
    // Never inside a surrogate pair.
    if (cut < line.length && /[\udc00-\udfff]/.test(line[cut]!) && cut - 1 > from) cut--;
    out.push(line.slice(from, cut));
    from = cut;
  }
  out.push(line.slice(from));
  return out;
}

/** The windows of `text`; `budget` and `chunk` are for tests (the original's values by default). */
export function lineWindows(text: string, budget = MAX_WINDOW_UTF8_BYTES, chunk = budget / 4): string[] {
  if (text.length <= budget / 4) return [text];
  const windows: string[] = [];
  let current = '';
  let currentBytes = 0;
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl + 1;
    const line = text.slice(start, end);
    start = end;
    const bytes = utf8Length(line);
    if (bytes > budget) {
      if (current !== '') windows.push(current);
      current = '';
      currentBytes = 0;
      windows.push(...hardSplit(line, chunk));
      continue;
    }
    if (currentBytes + bytes > budget) {
      windows.push(current);
      current = '';
      currentBytes = 0;
    }
    current += line;
    currentBytes += bytes;
  }
  if (current !== '') windows.push(current);
  return windows;
}

export { HARD_SPLIT_CHARS };
