/**
 * `scanStream`: `scanLog` over a byte stream with bounded memory (one window + its overlap + one chunk).
 *
 * Bytes are decoded as UTF-8 the way the original reads a log (`decode("utf-8", errors="replace")`): each invalid
 * sequence becomes U+FFFD, a BOM is kept as U+FEFF (not stripped), "\r\n" and NUL are left as they are. The windows
 * are exactly those `iterWindows` makes over the whole decoded text, so the result equals
 * `scanLog(recipe, decodedText, vars, options)`.
 *
 * Reading stops early once every pattern has fired (the iterator's `return()` is called, which destroys a Node
 * `Readable`).
 */
import type { ScanOptions, ScanRecipe, ScanResult, ScanVars } from './scan.js';
import { ByteWindower } from './byte-windows.js';
import { ScanSession } from './scan.js';
import { utf8ByteLength } from '../regex/index.js';
import { advanceBytes, overlapFor, resolveWindowBytes, retreatBytes, type ScanWindow } from './windows.js';

export type ByteSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

function cpUnitsBefore(s: string, i: number): number {
  const lo = s.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = s.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return 2;
  }
  return 1;
}

/** Cuts windows out of text that arrives piecewise; identical to `iterWindows` over the concatenation. */
export class StreamWindower {
  readonly windowBytes: number;
  readonly overlap: number;
  /** Buffered text; buf[0] is at absolute UTF-16 offset `base`. */
  #buf = '';
  #base = 0;
  /** Absolute offset where the next window's owned region starts. */
  #start = 0;
  /** UTF-8 bytes of buf from #start on. */
  #pending = 0;
  #ended = false;

  /**
   * `resume` continues a stream whose windows so far were cut elsewhere (ByteWindower): `text` starts at absolute
   * UTF-16 offset `base` with the context code point, and the next window owns text from index `from` on.
   */
  constructor(options: ScanOptions = {}, resume?: { text: string; base: number; from: number }) {
    this.windowBytes = resolveWindowBytes(options);
    this.overlap = overlapFor(this.windowBytes);
    if (resume !== undefined) {
      this.#buf = resume.text;
      this.#base = resume.base;
      this.#start = resume.base + resume.from;
      this.#pending = utf8ByteLength(resume.text.slice(resume.from));
    }
  }

  /** Appends text and returns every window that is now complete. */
  push(text: string): ScanWindow[] {
    if (this.#ended) throw new Error('StreamWindower: push() after end()');
    if (text.length > 0) {
      this.#buf += text;
      this.#pending += utf8ByteLength(text);
    }
    const out: ScanWindow[] = [];
    // A window is complete once more than windowBytes follow its start (then its end is not the text's end).
    while (this.#pending > this.windowBytes) {
      const s = this.#start - this.#base;
      const end = advanceBytes(this.#buf, s, this.windowBytes);
      if (end >= this.#buf.length) break; // cannot happen while #pending > windowBytes; kept as a guard
      const ctx = s > 0 ? s - cpUnitsBefore(this.#buf, s) : 0;
      let next = retreatBytes(this.#buf, end, this.overlap, s);
      if (next <= s) next = end;
      out.push({ text: this.#buf.slice(ctx, end), base: this.#base + ctx, from: s - ctx, ownEnd: next - ctx, last: false });
      // Keep one code point of context before the next window.
      const cut = next - cpUnitsBefore(this.#buf, next);
      this.#pending -= utf8ByteLength(this.#buf.slice(s, next));
      this.#buf = this.#buf.slice(cut);
      this.#base += cut;
      this.#start = this.#base + (next - cut);
    }
    return out;
  }

  /** The last window (the whole remaining text; "" for an empty stream). */
  end(): ScanWindow {
    if (this.#ended) throw new Error('StreamWindower: end() twice');
    this.#ended = true;
    const s = this.#start - this.#base;
    const ctx = s > 0 ? s - cpUnitsBefore(this.#buf, s) : 0;
    const text = this.#buf.slice(ctx);
    this.#buf = '';
    return { text, base: this.#base + ctx, from: s - ctx, ownEnd: text.length, last: true };
  }
}

/** Scans a log read from `source` (byte chunks, or already-decoded string chunks). */
export async function scanStream(recipe: ScanRecipe | null, source: ByteSource, vars: ScanVars, options: ScanOptions = {}): Promise<ScanResult> {
  const session = new ScanSession(recipe, vars);
  try {
    const windower = new ByteWindower(options);
    const feed = (windows: readonly ScanWindow[]): boolean => {
      for (const w of windows) {
        session.feed(w);
        if (session.done) return true;
      }
      return false;
    };
    let stopped = false;
    for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
      if (feed(windower.push(chunk))) {
        stopped = true;
        break;
      }
    }
    if (!stopped) feed(windower.end());
    return session.result();
  } finally {
    session.dispose();
  }
}
