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

/**
 * Where the hard-split chunk of `line` that begins at `from` ends: `from + chunk`, moved back to just after the
 * last character outside the tokens' alphabet within the look-back, never inside a surrogate pair. It reads
 * nothing past `from + chunk`, so a line still arriving can be cut as the whole line would be.
 */
function cutAfter(line: string, from: number, chunk: number): number {
  let cut = from + chunk;
  for (let i = cut - 1; i >= Math.max(from + 1, cut - LOOKBACK_CHARS); i--) {
    if (!TOKEN_CHAR.test(line[i]!)) {
      cut = i + 1;
      break;
    }
  }
  if (cut < line.length && /[\udc00-\udfff]/.test(line[cut]!) && cut - 1 > from) cut--;
  return cut;
}

/** A line longer than the budget, in chunks whose ends avoid cutting a token (within the look-back). */
function hardSplit(line: string, chunk: number): string[] {
  const out: string[] = [];
  let from = 0;
  while (line.length - from > chunk) {
    const cut = cutAfter(line, from, chunk);
    out.push(line.slice(from, cut));
    from = cut;
  }
  out.push(line.slice(from));
  return out;
}

/** The windows of `text`; `budget` and `chunk` are for tests (the original's values by default). */
export function lineWindows(text: string, budget = MAX_WINDOW_UTF8_BYTES, chunk = budget / 4): string[] {
  if (text.length <= budget / 4) return [text];
  return NON_ASCII.test(text) ? packLines(text, budget, chunk) : packAsciiLines(text, budget, chunk);
}

const NON_ASCII = /[^\x00-\x7f]/;

/** The greedy packing, line by line, counting UTF-8 bytes. */
function packLines(text: string, budget: number, chunk: number): string[] {
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

/**
 * The same packing when every character is one byte: a window ends after the last line end within the budget
 * (the lines the greedy packing takes), and when there is none the line at hand is longer than the budget.
 */
function packAsciiLines(text: string, budget: number, chunk: number): string[] {
  const windows: string[] = [];
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= budget) {
      windows.push(text.slice(start));
      break;
    }
    const nl = text.lastIndexOf('\n', start + budget - 1);
    if (nl >= start) {
      windows.push(text.slice(start, nl + 1));
      start = nl + 1;
      continue;
    }
    const lineEnd = text.indexOf('\n', start);
    const end = lineEnd === -1 ? text.length : lineEnd + 1;
    windows.push(...hardSplit(text.slice(start, end), chunk));
    start = end;
  }
  return windows;
}

export { HARD_SPLIT_CHARS };

/**
 * `lineWindows` over text that arrives in pieces (a file read in chunks), with at most about one window and one
 * chunk held: `push` returns the windows that are final, `end` the rest; together they are `lineWindows` of the
 * whole text. Why the windows are final: a window ends where the next line did not fit (or was hard-split); a
 * line that is still arriving is only longer in full, so every window but the last of what is held stands.
 */
export class WindowSplitter {
  private pending = '';
  /** `pending` begins inside a line whose earlier chunks were already returned. */
  private inLongLine = false;
  constructor(
    private readonly budget = MAX_WINDOW_UTF8_BYTES,
    private readonly chunk = budget / 4,
  ) {}

  push(text: string): string[] {
    this.pending += text;
    const out = this.inLongLine ? this.longLine(false) : [];
    if (this.inLongLine || this.pending.length <= this.budget / 4) return out;
    const windows = lineWindows(this.pending, this.budget, this.chunk);
    this.pending = windows.pop()!;
    // A last window that begins inside a line (the one before ends without a line end: only a hard split cuts a
    // line) is a chunk of a hard-split line: final once the line has ended — the next line opens a new window —,
    // else the line is still arriving.
    if (windows.length > 0 && !windows[windows.length - 1]!.endsWith('\n')) {
      if (this.pending.endsWith('\n')) {
        windows.push(this.pending);
        this.pending = '';
      } else this.inLongLine = true;
    }
    return out.concat(windows);
  }

  end(): string[] {
    const out = this.inLongLine ? this.longLine(true) : [];
    if (this.pending !== '') out.push(this.pending);
    this.pending = '';
    this.inLongLine = false;
    return out;
  }

  /** The chunks of the long line at the start of `pending` that are final; its end, when it has come. */
  private longLine(atEnd: boolean): string[] {
    const nl = this.pending.indexOf('\n');
    const avail = nl === -1 ? this.pending.length : nl + 1;
    const out: string[] = [];
    let from = 0;
    while (avail - from > this.chunk) {
      const cut = cutAfter(this.pending, from, this.chunk);
      out.push(this.pending.slice(from, cut));
      from = cut;
    }
    if (nl === -1 && !atEnd) {
      this.pending = this.pending.slice(from);
      return out;
    }
    out.push(this.pending.slice(from, avail));
    this.pending = this.pending.slice(avail);
    this.inLongLine = false;
    return out;
  }
}
