/**
 * Where a match is in the log as a person (or CI) reads it: the 1-based line and the UTF-8 byte offset, counted
 * while the windows go by, so no scan keeps the whole log to answer "where did it fire".
 *
 * Lines end at "\n" only ("\r\n" is one line end, a lone "\r" is none), as grep and compilers count them. Byte
 * offsets are those of the log's UTF-8 text as decoded (an invalid byte sequence read as U+FFFD counts 3 bytes), which
 * equal the file's own byte offsets whenever the log is valid UTF-8.
 */
import { utf8ByteLength } from '../regex/index.js';
import type { ScanWindow } from './windows.js';

export interface LogLocation {
  /** 1-based line of the offset. */
  readonly line: number;
  /** UTF-8 bytes before the offset. */
  readonly byteOffset: number;
}

function newlinesIn(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

const bytesIn = (text: string, from: number, to: number): number =>
  to <= from ? 0 : utf8ByteLength(text.slice(from, to));

/**
 * Tracks the line and byte offset at the start of the window being fed. Windows own consecutive regions
 * `[base + from, base + ownEnd)` that tile the log, so summing over owned regions counts each character once.
 */
export class LogPosition {
  #window: ScanWindow | null = null;
  /** Line and bytes at the current window's owned start. */
  #line = 1;
  #bytes = 0;
  /** The last answer inside the current window: matches mostly come in order, so counting resumes there. */
  #lastLocal = -1;
  #lastLine = 1;
  #lastBytes = 0;

  /** "\n"s and UTF-8 bytes in the current window's owned region, added when the next window is entered. */
  #ownLines = 0;
  #ownBytes = 0;

  /**
   * Moves on to the next window (windows in order, each fed once); `ownNewlines`, when given, is the number of
   * "\n"s in its owned region. The window's own counts are taken now, while its text (which a byte window
   * decodes on demand from a buffer the windower reuses) is still readable, and only when not given.
   */
  enter(w: ScanWindow, ownNewlines?: number): void {
    if (this.#window !== null) {
      this.#line += this.#ownLines;
      this.#bytes += this.#ownBytes;
    }
    this.#window = w;
    this.#ownLines = ownNewlines ?? newlinesIn(w.text, w.from, w.ownEnd);
    this.#ownBytes = w.ownBytes ?? bytesIn(w.text, w.from, w.ownEnd);
    this.#lastLocal = -1;
  }

  /** Location of absolute UTF-16 `offset`, which must lie in the current window's owned region (or at its end). */
  locate(offset: number): LogLocation {
    const w = this.#window;
    if (w === null) return { line: 1, byteOffset: 0 };
    const local = offset - w.base;
    let start = w.from;
    let line = this.#line;
    let bytes = this.#bytes;
    if (this.#lastLocal >= w.from && this.#lastLocal <= local) {
      start = this.#lastLocal;
      line = this.#lastLine;
      bytes = this.#lastBytes;
    }
    line += newlinesIn(w.text, start, local);
    bytes += bytesIn(w.text, start, local);
    this.#lastLocal = local;
    this.#lastLine = line;
    this.#lastBytes = bytes;
    return { line, byteOffset: bytes };
  }
}
