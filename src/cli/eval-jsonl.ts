/**
 * `aorta-probe eval --jsonl`: JSON Lines in, one JSON result line out per input line, in order.
 * Each accepted condition is evaluated with the record's variables; compiled conditions are kept in
 * a bounded LRU cache keyed by condition text (see condition-cache.ts).
 *
 * Streaming rules:
 * - Lines end at LF; one CR before the LF is dropped (CRLF input). A last line without a newline
 *   is still a line; input that ends with a newline has no extra empty line after it.
 * - Every input line, blank ones included, yields exactly one output line (a blank line is an
 *   InputError), so output line N always answers input line N.
 * - Lines are split on bytes and decoded one at a time as strict UTF-8 (invalid UTF-8 is an
 *   InputError); a UTF-8 BOM at the very start of the input is ignored.
 * - A line longer than `maxLineBytes` is not buffered: it is discarded as it streams past and
 *   answered with an InputError, so memory stays bounded by one line.
 * - Results of one input chunk are written together, as soon as that chunk is processed; the
 *   stream pipeline applies backpressure (no more input is read while the output is full) and,
 *   when the output fails (EPIPE), destroys the input and rejects.
 */
import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SandboxError } from '../condition/errors.js';
import { compileCondition } from '../condition/evaluate.js';
import { ConditionCache, DEFAULT_CACHE_ENTRIES, type CompileFn } from './condition-cache.js';
import { InputError, parseInputLine, type InputRecord } from './input-record.js';
import {
  evaluatedResult,
  inputErrorResult,
  internalErrorResult,
  sandboxErrorResult,
  type ResultRecord,
} from './result-record.js';

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Output is handed downstream in pieces of about this size even within one input chunk. */
const OUTPUT_BATCH_CHARS = 64 * 1024;

export interface EvalJsonlOptions {
  /** Longest accepted input line in bytes, excluding the line terminator. */
  maxLineBytes?: number;
  /**
   * Compiles a condition, or throws a SandboxError for a rejected one. Defaults to
   * `compileCondition`; tests substitute it.
   */
  compile?: CompileFn;
  /** Most compiled conditions kept at once (LRU); 0 disables the cache. Default 512. */
  cacheEntries?: number;
  /** Called for each InternalError (compiling or evaluating threw something other than a SandboxError). */
  onInternalError?: (err: unknown, inputLine: number) => void;
}

/** Counts of output lines by kind. `valid` = `fired` + `notFired` + `evalErrors`. */
export interface EvalJsonlSummary {
  lines: number;
  /** Accepted conditions, all evaluated. */
  valid: number;
  /** Evaluated to a truthy value. */
  fired: number;
  /** Evaluated to a falsy value. */
  notFired: number;
  /** Raised an exception while being evaluated (reported as not fired). */
  evalErrors: number;
  sandboxErrors: number;
  inputErrors: number;
  internalErrors: number;
  /** Conditions compiled (or rejected) afresh, i.e. not answered from the cache. */
  compiles: number;
}

/**
 * Runs the command over `input`, writing to `output`, and ends `output` when the input ends.
 * Rejects when either stream fails (e.g. EPIPE on the output); both are destroyed then.
 */
export async function evalJsonl(
  input: Readable | AsyncIterable<Buffer | string>,
  output: Writable,
  options: EvalJsonlOptions = {},
): Promise<EvalJsonlSummary> {
  const transform = new EvalJsonlTransform(options);
  await pipeline(input, transform, output);
  return transform.summary;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class EvalJsonlTransform extends Transform {
  private readonly counts = {
    lines: 0,
    valid: 0,
    fired: 0,
    notFired: 0,
    evalErrors: 0,
    sandboxErrors: 0,
    inputErrors: 0,
    internalErrors: 0,
  };
  private readonly maxLineBytes: number;
  private readonly cache: ConditionCache;
  private readonly onInternalError: ((err: unknown, inputLine: number) => void) | undefined;

  /** Bytes of the current, unfinished line. */
  private pieces: Buffer[] = [];
  private pendingBytes = 0;
  /** The current line exceeded maxLineBytes; its bytes are being dropped. */
  private overflow = false;

  private out: string[] = [];
  private outChars = 0;

  constructor(options: EvalJsonlOptions = {}) {
    super({ decodeStrings: true });
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.cache = new ConditionCache(options.compile ?? compileCondition, options.cacheEntries ?? DEFAULT_CACHE_ENTRIES);
    this.onInternalError = options.onInternalError;
  }

  get summary(): EvalJsonlSummary {
    return { ...this.counts, compiles: this.cache.compiles };
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, start);
        if (nl === -1) {
          this.append(chunk.subarray(start));
          break;
        }
        this.append(chunk.subarray(start, nl));
        this.endLine();
        start = nl + 1;
      }
      this.flushOut();
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      if (this.pieces.length > 0 || this.overflow) this.endLine();
      this.flushOut();
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  private append(bytes: Buffer): void {
    if (bytes.length === 0 || this.overflow) return;
    if (this.pendingBytes + bytes.length > this.maxLineBytes) {
      this.overflow = true;
      this.pieces = [];
      this.pendingBytes = 0;
      return;
    }
    this.pieces.push(bytes);
    this.pendingBytes += bytes.length;
  }

  private endLine(): void {
    const lineNo = ++this.counts.lines;
    let result: ResultRecord;
    if (this.overflow) {
      result = inputErrorResult(`line is longer than ${this.maxLineBytes} bytes`, lineNo);
    } else {
      const bytes = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.pendingBytes);
      result = this.answer(bytes, lineNo);
    }
    this.pieces = [];
    this.pendingBytes = 0;
    this.overflow = false;
    this.count(result);
    this.emit1(result);
  }

  private answer(bytes: Buffer, lineNo: number): ResultRecord {
    let record: InputRecord;
    try {
      const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
      let text: string;
      try {
        text = utf8.decode(bytes.subarray(0, end));
      } catch {
        throw new InputError('not valid UTF-8');
      }
      if (lineNo === 1 && text.startsWith('\ufeff')) text = text.slice(1);
      record = parseInputLine(text);
    } catch (err) {
      if (err instanceof InputError) return inputErrorResult(err.message, lineNo);
      throw err;
    }
    try {
      return evaluatedResult(this.cache.evaluate(record.condition, record));
    } catch (err) {
      if (err instanceof SandboxError) return sandboxErrorResult(err);
      this.onInternalError?.(err, lineNo);
      return internalErrorResult(err, lineNo);
    }
  }

  private count(result: ResultRecord): void {
    const c = this.counts;
    if (result.valid) {
      c.valid++;
      if ('exception' in result) c.evalErrors++;
      else if (result.fired) c.fired++;
      else c.notFired++;
    } else if (result.error.type === 'SandboxError') c.sandboxErrors++;
    else if (result.error.type === 'InputError') c.inputErrors++;
    else c.internalErrors++;
  }

  private emit1(result: ResultRecord): void {
    // JSON.stringify escapes lone surrogates, so the output is always well-formed UTF-8.
    const line = `${JSON.stringify(result)}\n`;
    this.out.push(line);
    this.outChars += line.length;
    if (this.outChars >= OUTPUT_BATCH_CHARS) this.flushOut();
  }

  private flushOut(): void {
    if (this.out.length === 0) return;
    const text = this.out.join('');
    this.out = [];
    this.outChars = 0;
    this.push(text, 'utf8');
  }
}
