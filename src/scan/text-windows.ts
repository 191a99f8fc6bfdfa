/**
 * `StreamWindower`: the windows of `iterWindows` cut out of text that arrives piecewise (decoded chunks); the
 * fallback of `ByteWindower` once a stream is not valid UTF-8, and the browser's path (no node:buffer).
 */
import { utf8ByteLength } from '../regex/index.js';
import {
  advanceBytes,
  overlapFor,
  resolveWindowBytes,
  retreatBytes,
  type ScanWindow,
  type WindowOptions,
} from './windows.js';

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
  constructor(options: WindowOptions = {}, resume?: { text: string; base: number; from: number }) {
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
      out.push({
        text: this.#buf.slice(ctx, end),
        base: this.#base + ctx,
        from: s - ctx,
        ownEnd: next - ctx,
        last: false,
      });
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
