/**
 * `ByteWindower`: the windows of `iterWindows` cut straight out of UTF-8 bytes as they arrive, each decoded once.
 *
 * Why not decode chunks and join the text (StreamWindower): a window must be one flat string for RegExp and
 * indexOf, so joining chunks allocates a fresh string per window; V8 puts strings over 128 KiB in their own
 * mmap'ed pages, and fresh pages cost ~17 ms per MiB on this kind of VM (page faults). Here the bytes
 * accumulate in one reused buffer, and each window is decoded from it once: a window of DEFAULT_WINDOW_BYTES
 * stays under that size and is allocated in V8's young generation, whose pages are reused.
 *
 * Windows are measured in UTF-8 bytes, so over valid UTF-8 they can be cut on the bytes themselves, exactly as
 * `iterWindows` cuts the decoded text. Invalid UTF-8 changes byte lengths (each bad sequence becomes U+FFFD, 3
 * bytes), so on the first window that is not valid UTF-8 the rest of the stream is handed to StreamWindower,
 * which works on decoded text (from a code-point boundary, so the text is the same as decoding the whole stream).
 */
import { StreamWindower } from './text-windows.js';
import { overlapFor, resolveWindowBytes, type ScanWindow, type WindowOptions } from './windows.js';

interface NodeBufferModule {
  isAscii(b: Uint8Array): boolean;
  isUtf8(b: Uint8Array): boolean;
  Buffer: typeof Buffer;
}

/** node:buffer when this runs on Node ≥ 20.16 (process.getBuiltinModule); otherwise the text path is used. */
const nodeBuffer: NodeBufferModule | undefined = (() => {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.('node:buffer') as Partial<NodeBufferModule> | undefined;
  return mod?.isAscii !== undefined && mod.isUtf8 !== undefined && mod.Buffer !== undefined
    ? (mod as NodeBufferModule)
    : undefined;
})();

/** What `#room` aligns the end of the kept bytes to (a cache line). */
const READ_ALIGN = 64;

const isContinuation = (b: number) => (b & 0xc0) === 0x80;

/** Length of the UTF-8 sequence a lead byte announces; 0 for a byte that cannot start one. */
function sequenceLength(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/**
 * An ASCII window whose text is decoded from `bytes` on first read. Why: the byte pass (scan/byte-prefilter.ts)
 * clears most windows of a log without their text, and a 60 KiB string per window was ~8% of a warm clean scan
 * to copy plus most of its young-generation collections. The text must be read while `bytes` is valid (before
 * the windower's next push), as every other use of a window's bytes. A class, not an object literal with a
 * getter: building those (closure and accessor per window) measured ~5 µs a window cold.
 */
class AsciiByteWindow implements ScanWindow {
  #text: string | null = null;
  readonly ascii = true;
  constructor(
    readonly bytes: Buffer,
    readonly base: number,
    readonly from: number,
    readonly ownEnd: number,
    readonly last: boolean,
    readonly ownBytes: number,
    readonly bytesFrom: number,
  ) {}

  get text(): string {
    this.#text ??= this.bytes.toString('latin1');
    return this.#text;
  }
}

/**
 * Where the windower keeps its bytes: a buffer of `size` bytes whose first `keep` bytes are those of `previous`
 * (null the first time). The default allocates; scan.ts passes the byte scanner's arena (byte-prefilter.ts).
 */
export type ByteBufferSource = (size: number, previous: Uint8Array | null, keep: number) => Uint8Array;

function allocateBuffer(size: number, previous: Uint8Array | null, keep: number): Uint8Array {
  const b = nodeBuffer!.Buffer.allocUnsafe(size);
  if (previous !== null) b.set(previous.subarray(0, keep));
  return b;
}

/** A Buffer over the same memory as `b` (Buffer's decoding and copying methods, without a copy). */
function asBuffer(b: Uint8Array): Buffer {
  return nodeBuffer!.Buffer.isBuffer(b) ? (b as Buffer) : nodeBuffer!.Buffer.from(b.buffer, b.byteOffset, b.length);
}

export class ByteWindower {
  readonly windowBytes: number;
  readonly overlap: number;
  readonly #options: WindowOptions;
  /**
   * Bytes [#head, #len) are not yet dropped; acc[#head] is a code-point boundary at absolute UTF-16 offset #base16.
   * Dropped bytes are reclaimed only when a chunk does not fit after #len: moving what is kept to the front after
   * every window moved ~2.4 bytes per byte scanned (a 256 KiB chunk holds four 60 KiB windows), ~15% of a warm
   * clean scan.
   */
  #acc: Buffer | null;
  #head = 0;
  #len = 0;
  #base16 = 0;
  /** Index in #acc where the next window's owned region starts. */
  #start = 0;
  /** Set once the stream left the byte path (invalid UTF-8, a string chunk, or no node:buffer). */
  #text: StreamWindower | null = null;
  #textDecoder: TextDecoder | null = null;
  #ended = false;
  readonly #buffer: ByteBufferSource;
  /** `pushFrom`'s buffer once the stream has left the byte path. */
  #spare: Uint8Array | null = null;

  constructor(options: WindowOptions = {}, buffer: ByteBufferSource = allocateBuffer) {
    this.#options = options;
    this.#buffer = buffer;
    this.windowBytes = resolveWindowBytes(options);
    this.overlap = overlapFor(this.windowBytes);
    this.#acc = nodeBuffer === undefined ? null : asBuffer(buffer(Math.max(2 * this.windowBytes, 1 << 16), null, 0));
    if (this.#acc === null) this.#leaveBytePath();
  }

  /** Appends a chunk (bytes, or already-decoded text) and returns every window that is now complete. */
  push(chunk: Uint8Array | string): ScanWindow[] {
    if (this.#ended) throw new Error('ByteWindower: push() after end()');
    if (typeof chunk === 'string' && this.#text === null) {
      if (chunk.length === 0) return [];
      const out = this.#leaveBytePath();
      return [...out, ...this.#text!.push(chunk)];
    }
    if (this.#text !== null) {
      return this.#text.push(typeof chunk === 'string' ? chunk : this.#textDecoder!.decode(chunk, { stream: true }));
    }
    const c = chunk as Uint8Array;
    this.#room(c.length).set(c, this.#len);
    this.#len += c.length;
    return this.#cutAll();
  }

  /**
   * Like `push`, but the bytes are read straight into the windower's buffer, which saves copying each one from a
   * chunk: `read` fills (some of) the `want` bytes it is given and returns how many, 0 at the end. Returns what it
   * read (valid until the next call) and the windows now complete, or null at the end of the source.
   */
  pushFrom(
    read: (into: Uint8Array) => number,
    want: number,
  ): { readonly read: Uint8Array; readonly windows: ScanWindow[] } | null {
    if (this.#ended) throw new Error('ByteWindower: pushFrom() after end()');
    if (this.#text !== null) {
      // Off the byte path, chunks are decoded as they come, so one buffer serves every read.
      if (this.#spare === null || this.#spare.length < want) this.#spare = new Uint8Array(want);
      const into = this.#spare.subarray(0, want);
      const n = read(into);
      return n === 0 ? null : { read: into.subarray(0, n), windows: this.push(into.subarray(0, n)) };
    }
    const acc = this.#room(want);
    const at = this.#len;
    const n = read(acc.subarray(at, at + want));
    if (n === 0) return null;
    this.#len += n;
    // Cutting never moves bytes, so what was read is still there (until the next call).
    return { read: acc.subarray(at, at + n), windows: this.#cutAll() };
  }

  #cutAll(): ScanWindow[] {
    const out: ScanWindow[] = [];
    while (this.#len - this.#start > this.windowBytes) {
      const w = this.#cut(false);
      if (w === null) return [...out, ...this.#leaveBytePath()];
      out.push(w);
    }
    return out;
  }

  /** The remaining windows, the last one with `last: true`. */
  end(): ScanWindow[] {
    if (this.#ended) throw new Error('ByteWindower: end() twice');
    this.#ended = true;
    if (this.#text === null) {
      const w = this.#cut(true);
      if (w !== null) return [w];
      this.#leaveBytePath();
    }
    const text = this.#text!;
    const out = text.push(this.#textDecoder!.decode());
    return [...out, text.end()];
  }

  /** The buffer, with room for `bytes` more after #len (dropped bytes reclaimed first, then grown). */
  #room(bytes: number): Buffer {
    let acc = this.#acc!;
    if (this.#len + bytes > acc.length && this.#head > 0) {
      // The kept bytes move so that they end, and the next read starts, on a READ_ALIGN boundary: the kernel
      // copies a read into a misaligned destination at under half the speed (measured: ~140 vs ~50 µs per
      // 256 KiB), and these offsets were arbitrary.
      const keep = this.#len - this.#head;
      const to = (READ_ALIGN - (keep % READ_ALIGN)) % READ_ALIGN;
      acc.copyWithin(to, this.#head, this.#len);
      const shift = this.#head - to;
      this.#len -= shift;
      this.#start -= shift;
      this.#head = to;
    }
    if (this.#len + bytes > acc.length) {
      this.#acc = acc = asBuffer(this.#buffer(Math.max(2 * acc.length, this.#len + bytes), acc, this.#len));
    }
    return acc;
  }

  /** UTF-16 units of acc[from, to), valid UTF-8 (a 4-byte sequence is a surrogate pair). */
  #units(from: number, to: number): number {
    const acc = this.#acc!;
    if (nodeBuffer!.isAscii(acc.subarray(from, to))) return to - from;
    let n = 0;
    for (let i = from; i < to; i++) {
      const b = acc[i]!;
      if (!isContinuation(b)) n += b >= 0xf0 ? 2 : 1;
    }
    return n;
  }

  /** Cuts the next window (the rest, when `last`); null when its bytes are not valid UTF-8. */
  #cut(last: boolean): ScanWindow | null {
    const acc = this.#acc!;
    const start = this.#start;
    let end = this.#len;
    if (!last) {
      const budgetEnd = start + this.windowBytes; // < #len: more bytes follow
      end = budgetEnd;
      while (end > start && isContinuation(acc[end]!)) end--;
      // Walking back is only a cut at a code-point boundary if a valid sequence starts there and spans the budget.
      if (end < budgetEnd) {
        const n = sequenceLength(acc[end]!);
        if (n === 0 || end + n <= budgetEnd || end + n > this.#len || !nodeBuffer!.isUtf8(acc.subarray(end, end + n)))
          return null;
      }
    }
    const head = this.#head;
    let ctx = start;
    if (start > head)
      do ctx--;
      while (ctx > head && isContinuation(acc[ctx]!));
    const view = acc.subarray(ctx, end);
    const ascii = nodeBuffer!.isAscii(view);
    if (!ascii && !nodeBuffer!.isUtf8(view)) return null;
    // Validated above, so Node's own UTF-8 decoder (faster than TextDecoder here) gives the same text. An ASCII
    // window's text is decoded only when asked for (see `lazyText`); its length is its byte count.
    const decoded = ascii ? null : acc.toString('utf8', ctx, end);
    const length = decoded?.length ?? end - ctx;
    let next = end;
    if (!last) {
      next = Math.max(start, end - this.overlap);
      while (next < end && isContinuation(acc[next]!)) next++;
      if (next <= start) next = end;
    }
    // UTF-16 offsets without walking the whole window: [ctx, start) and [cut, next) are one code point each, and
    // [next, end) is the overlap, so only the overlap is counted (the text itself gives the window's length).
    const units = (a: number, b: number) => (ascii ? b - a : this.#units(a, b));
    const base = this.#base16 + units(head, ctx); // acc[head, ctx) is empty after the first window
    const ownEnd = last ? length : length - units(next, end);
    const from = units(ctx, start);
    const ownBytes = (last ? end : next) - start;
    const w: ScanWindow =
      decoded === null
        ? new AsciiByteWindow(view, base, from, ownEnd, last, ownBytes, start - ctx)
        : { text: decoded, base, from, ownEnd, last, ownBytes, bytes: view, bytesFrom: start - ctx, ascii };
    if (!last) {
      // Keep the code point before `next` as the next window's context.
      let cut = next - 1;
      while (cut > head && isContinuation(acc[cut]!)) cut--;
      this.#base16 = base + ownEnd - units(cut, next);
      this.#head = cut;
      this.#start = next;
    }
    return w;
  }

  /** Hands the undelivered bytes, decoded, to a StreamWindower; returns the windows it completes at once. */
  #leaveBytePath(): ScanWindow[] {
    this.#textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
    if (this.#acc === null || this.#len === 0) {
      this.#text = new StreamWindower(this.#options);
      return [];
    }
    const acc = this.#acc;
    const head = this.#head;
    let ctx = this.#start;
    if (ctx > head)
      do ctx--;
      while (ctx > head && isContinuation(acc[ctx]!));
    // Everything before #start was valid (it was in delivered windows), so these units are exact.
    const base = this.#base16 + this.#units(head, ctx);
    const from = this.#units(ctx, this.#start);
    const text = this.#textDecoder.decode(acc.subarray(ctx, this.#len), { stream: true });
    this.#text = new StreamWindower(this.#options, { text, base, from });
    this.#acc = null;
    return this.#text.push('');
  }
}
