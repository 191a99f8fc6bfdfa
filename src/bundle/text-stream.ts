/**
 * A text artifact's bytes → scrubbed UTF-8, window by window as it is read (upstream-probe-runs.md §1.4: peak memory
 * about one window): what `aorta-probe bundle` does to a log, and what the redaction bench times
 * (scripts/bench/redact-worker.mjs), so the two cannot drift apart.
 *
 * Decoding replaces invalid UTF-8 with U+FFFD, as the original's `errors="replace"`: scrubbing never switches off.
 * Most logs are ASCII, and an ASCII piece is copied into a one-byte string instead of decoded (`StreamDecoder`),
 * and the window splitter is told so (it then counts bytes as characters without looking).
 */
import { isAscii } from 'node:buffer';
import type { TextScrubber } from '../redact/text.js';
import { MAX_WINDOW_UTF8_BYTES, type WindowPiece, WindowSplitter } from '../redact/windows.js';

/** Decoded this many bytes at a time: strings under V8's large-object size are allocated, not mapped. */
export const DECODE_BYTES = 32 * 1024;

/**
 * `TextDecoder('utf-8', { ignoreBOM: true })` in stream mode, with the same output, taking a shortcut for ASCII.
 * Why the shortcut is exact: in stream mode the decoder holds back at most the bytes of one unfinished sequence at
 * the end of its last input. An ASCII byte neither continues nor leaves a sequence unfinished, so after an input
 * that was all ASCII it holds nothing (`clean`). When it holds nothing, decoding an all-ASCII input gives its bytes
 * as characters — what a latin1 copy gives — and it still holds nothing after: the shortcut may replace it.
 */
export class StreamDecoder {
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  #clean = true;

  /**
   * The text of `bytes` (the next piece of the stream), and whether that text is all ASCII — not the same as the
   * bytes being ASCII: what the decoder held back comes out first, as U+FFFD.
   */
  decode(bytes: Buffer): { text: string; ascii: boolean } {
    const asciiBytes = isAscii(bytes);
    const ascii = asciiBytes && this.#clean;
    const text = ascii ? bytes.toString('latin1') : this.#decoder.decode(bytes, { stream: true });
    this.#clean = asciiBytes;
    return { text, ascii };
  }

  /** What the decoder held back (an unfinished sequence at the end: U+FFFD), or ''. */
  end(): string {
    return this.#clean ? '' : this.#decoder.decode();
  }
}

/** The ring's size: a window and a half, so the open window fits beside most of the one just closed. */
const RING_BYTES = MAX_WINDOW_UTF8_BYTES + MAX_WINDOW_UTF8_BYTES / 2;
/** A longer piece (a long line, rare) waits as itself. */
const RING_PIECE_MAX = 64 * 1024;

/**
 * Where ASCII pieces wait for their window: as bytes in a ring, off the JavaScript heap, copied back into a string
 * each time a pass needs one. Held strings would outlive the collector's young generation and be copied out of it
 * (a third of the time of a bundle); fresh memory for each piece would cost a page fault per 4 KiB — the ring is
 * faulted in once. Any other piece waits as itself.
 *
 * Invariant: bytes of a piece are never overwritten while the piece can still be read. Pieces are held in window
 * order (the splitter holds each as it adds it to its window, and returns windows in order) and `release` is told
 * which windows have been scrubbed: everything held up to their last ring piece is dead. Offsets are virtual
 * (they only grow; the physical one is modulo the size) and a piece goes in only where the live span stays within
 * the ring; when it would not, the piece gets a buffer of its own.
 */
export class HeldPieces {
  #ring: Buffer | null = null;
  #head = 0;
  #tail = 0;
  readonly #ends = new WeakMap<() => string, number>();

  /** Fresh memory is only worth saving on a large file: a ring the file's size, at most `RING_BYTES`. */
  constructor(private readonly size: number) {}

  readonly hold = (piece: string, ascii: boolean): WindowPiece => {
    const n = piece.length;
    if (!ascii || n > RING_PIECE_MAX || this.size < RING_PIECE_MAX) return piece;
    this.#ring ??= Buffer.allocUnsafe(this.size);
    const size = this.#ring.length;
    let v = this.#head;
    let at = v % size;
    if (at + n > size) {
      v += size - at;
      at = 0;
    }
    if (v + n - this.#tail > size) {
      const own = Buffer.from(piece, 'latin1');
      return () => own.toString('latin1');
    }
    const ring = this.#ring;
    ring.write(piece, at, n, 'latin1');
    this.#head = v + n;
    const read = (): string => ring.toString('latin1', at, at + n);
    this.#ends.set(read, v + n);
    return read;
  };

  /** `windows` have been scrubbed: the ring space of their pieces, and of every piece held before, is free. */
  release(windows: readonly (readonly WindowPiece[])[]): void {
    for (const w of windows)
      for (const p of w) {
        const end = typeof p === 'function' ? this.#ends.get(p) : undefined;
        if (end !== undefined && end > this.#tail) this.#tail = end;
      }
  }
}

/**
 * The scrubbed text of `chunks` (the file's bytes in order; `bytes` of them, where that is known), in pieces to be
 * written as UTF-8 in order (strings: a file descriptor takes them without a Buffer each; the archive encodes its
 * own). `scrubber` is the file's own.
 */
export function* scrubbedText(chunks: Iterable<Buffer>, scrubber: TextScrubber, bytes = Infinity): Generator<string> {
  const decoder = new StreamDecoder();
  const held = new HeldPieces(Math.min(RING_BYTES, bytes));
  const split = new WindowSplitter(undefined, undefined, held.hold);
  const take = function* (windows: WindowPiece[][]): Generator<string, void, undefined> {
    for (const w of windows) yield* scrubber.scrubbedPieces(w);
    held.release(windows);
  };
  for (const chunk of chunks)
    for (let at = 0; at < chunk.length; at += DECODE_BYTES) {
      const { text, ascii } = decoder.decode(chunk.subarray(at, at + DECODE_BYTES));
      yield* take(split.push(text, ascii));
    }
  yield* take(split.push(decoder.end()));
  yield* take(split.end());
}
