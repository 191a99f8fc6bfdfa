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

/** About this many characters a piece (under V8's large-object size: a piece is allocated, not mapped); a longer
 * line is one piece. */
export const PIECE_CHARS = 1 << 15;

/** `text` cut after line ends into pieces of about `PIECE_CHARS`; they concatenate to it. */
export function linePieces(text: string): string[] {
  if (text.length <= PIECE_CHARS) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > PIECE_CHARS) {
    let nl = text.lastIndexOf('\n', start + PIECE_CHARS - 1);
    if (nl < start) nl = text.indexOf('\n', start + PIECE_CHARS);
    if (nl === -1) break;
    pieces.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/** UTF-8 bytes of `s`, with a fast path for ASCII. */
const bytesOf = (s: string): number => (NON_ASCII.test(s) ? utf8Length(s) : s.length);

/** A piece of a window: its text, or a function that makes it (the same text each call). */
export type WindowPiece = string | (() => string);

/** The text of a window piece. */
export const pieceText = (p: WindowPiece): string => (typeof p === 'string' ? p : p());

/**
 * How a piece is kept while its window fills (`ascii`: it is known to be all ASCII): as itself, or as something the
 * scrubber makes it from again when a pass needs it (`TextScrubber.scrubbedPieces`).
 */
export type HoldPiece<P extends WindowPiece> = (piece: string, ascii: boolean) => P;

/**
 * `lineWindows` over text that arrives in pieces (a file read in chunks), each window handed back as the pieces it
 * is made of — never joined into one string: on a machine where a fresh 10 MiB string costs tens of milliseconds in
 * page faults, the scrubber works piece by piece (`TextScrubber.scrubWindow`). `push` returns the windows that are
 * final, `end` the rest; joined, they are `lineWindows` of the whole text (test/redact-differential.test.ts).
 *
 * How: whole lines are packed greedily into the open window up to the budget in UTF-8 bytes, as `lineWindows`
 * packs them; the unfinished last line is carried (as parts, joined only to cut it) until its line end comes or it
 * is over the budget — then it is a long line, hard-split from its start into chunks exactly as `lineWindows`
 * splits it, each its own window, the chunks returned as soon as what follows them cannot move their cut.
 */
export class WindowSplitter<P extends WindowPiece = string> {
  private window: P[] = [];
  private windowBytes = 0;
  private carry: string[] = [];
  private carryLength = 0;
  private carryBytes = 0;
  /** The carried line is over the budget: its chunks are being returned. */
  private longLine = false;
  /** Every part of the carried line was pushed as ASCII. */
  private carryAscii = true;
  /** The text being pushed is known to be ASCII (the caller decoded it so): its bytes are its characters. */
  private ascii = false;
  private out: P[][] = [];
  constructor(
    private readonly budget = MAX_WINDOW_UTF8_BYTES,
    private readonly chunk = budget / 4,
    private readonly hold: HoldPiece<P> = ((piece: string) => piece) as unknown as HoldPiece<P>,
  ) {}

  /** `ascii` says `text` is all ASCII (a hint the caller has for free; `false` always works). */
  push(text: string, ascii = false): P[][] {
    this.ascii = ascii;
    const firstNl = text.indexOf('\n');
    if (firstNl === -1) this.addCarry(text);
    else {
      const lastNl = text.lastIndexOf('\n');
      // The line the carry belongs to ends here.
      this.addCarry(text.slice(0, firstNl + 1));
      this.endLine();
      if (lastNl > firstNl) this.addLines(text.slice(firstNl + 1, lastNl + 1));
      if (lastNl + 1 < text.length) this.addCarry(text.slice(lastNl + 1));
    }
    return this.take();
  }

  end(): P[][] {
    if (this.carryLength > 0) this.endLine();
    this.close();
    return this.take();
  }

  private bytesOf(s: string): number {
    return this.ascii ? s.length : bytesOf(s);
  }

  private take(): P[][] {
    const out = this.out;
    this.out = [];
    return out;
  }

  private close(): void {
    if (this.window.length > 0) this.out.push(this.window);
    this.window = [];
    this.windowBytes = 0;
  }

  /** Whole lines, packed into windows; a line over the budget on its own goes the long line's way. */
  private addLines(block: string): void {
    while (block !== '') {
      const bytes = this.bytesOf(block);
      if (this.windowBytes + bytes <= this.budget) {
        for (const piece of linePieces(block)) this.window.push(this.hold(piece, this.ascii));
        this.windowBytes += bytes;
        return;
      }
      // The window closes at the last line end that fits; the rest opens the next one.
      let at = 0;
      let used = this.windowBytes;
      for (;;) {
        const nl = block.indexOf('\n', at);
        const lineBytes = this.bytesOf(block.slice(at, nl + 1));
        if (used + lineBytes > this.budget) break;
        used += lineBytes;
        at = nl + 1;
      }
      if (at === 0 && this.windowBytes === 0) {
        const nl = block.indexOf('\n');
        this.addCarry(block.slice(0, nl + 1));
        this.endLine();
        block = block.slice(nl + 1);
        continue;
      }
      if (at > 0) for (const piece of linePieces(block.slice(0, at))) this.window.push(this.hold(piece, this.ascii));
      this.close();
      block = block.slice(at);
    }
  }

  private addCarry(text: string): void {
    if (text === '') return;
    const prev = this.carry.length > 0 ? this.carry[this.carry.length - 1]! : '';
    this.carry.push(text);
    this.carryLength += text.length;
    this.carryAscii &&= this.ascii;
    if (!this.longLine) {
      this.carryBytes += this.bytesOf(text);
      // A surrogate pair cut between two pieces is 4 bytes, not the 3 + 3 of its halves.
      if (/[\ud800-\udbff]$/.test(prev) && /^[\udc00-\udfff]/.test(text)) this.carryBytes -= 2;
      if (this.carryBytes <= this.budget) return;
      // Over the budget before its end: a long line. What was packed before it is a window.
      this.longLine = true;
      this.close();
    }
    this.cutLongLine(false);
  }

  /** The long line's chunks whose cut is settled (more than a chunk follows their start). */
  private cutLongLine(atEnd: boolean): void {
    if (this.carryLength <= this.chunk && !atEnd) return;
    const line = this.carry.length === 1 ? this.carry[0]! : this.carry.join('');
    let from = 0;
    while (line.length - from > this.chunk) {
      const cut = cutAfter(line, from, this.chunk);
      this.out.push([this.hold(line.slice(from, cut), this.carryAscii)]);
      from = cut;
    }
    const rest = line.slice(from);
    if (atEnd) {
      if (rest !== '') this.out.push([this.hold(rest, this.carryAscii)]);
      this.carry = [];
      this.carryLength = 0;
      this.carryAscii = true;
    } else {
      this.carry = [rest];
      this.carryLength = rest.length;
    }
  }

  /** The carried line has ended (with its line end, or the text). */
  private endLine(): void {
    if (this.longLine) {
      this.cutLongLine(true);
      this.longLine = false;
    } else if (this.carryLength > 0) {
      const line = this.carry.length === 1 ? this.carry[0]! : this.carry.join('');
      if (this.windowBytes + this.carryBytes > this.budget) this.close();
      this.window.push(this.hold(line, this.carryAscii));
      this.windowBytes += this.carryBytes;
    }
    this.carry = [];
    this.carryLength = 0;
    this.carryBytes = 0;
    this.carryAscii = true;
  }
}
