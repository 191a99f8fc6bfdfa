/**
 * Tier 2's progress signal: counts the log lines that match the recipe's `progress_regex` as they arrive. A line
 * ends at "\n", "\r\n" or a lone "\r": a progress bar (tqdm and the like) redraws its line with "\r" and never
 * writes "\n", and each redraw is progress. A line is matched when its end arrives (a line still being written is
 * not progress yet); a line longer than MAX_LINE_UNITS is matched on its first MAX_LINE_UNITS units, so memory
 * stays bounded. (The log scanner's line numbers, `output.log:N`, count "\n" only; this split is Tier 2's alone.)
 */
import { compileRegex, testRegex, type RegexHandle } from '../regex/index.js';

export const MAX_LINE_UNITS = 64 * 1024;

/** A line end: "\r\n" (one end), a lone "\r" or "\n". */
const LINE_END = /\r\n|\r|\n/;

export class ProgressLines {
  readonly #regex: RegexHandle;
  readonly #decoder = new TextDecoder('utf-8');
  #pending = '';
  #overlong = false;
  /** The last chunk ended with "\r": a "\n" starting the next one belongs to that line end ("\r\n"). */
  #afterCr = false;

  constructor(source: string) {
    this.#regex = compileRegex(source, '');
  }

  /** Feeds log bytes; returns how many completed lines matched. */
  push(chunk: Uint8Array): number {
    let decoded = this.#decoder.decode(chunk, { stream: true });
    if (decoded === '') return 0;
    if (this.#afterCr && decoded.startsWith('\n')) decoded = decoded.slice(1);
    this.#afterCr = decoded.endsWith('\r');
    const lines = (this.#pending + decoded).split(LINE_END);
    this.#pending = lines.pop()!;
    let n = 0;
    for (const line of lines) {
      if (!this.#overlong && testRegex(this.#regex, line)) n++;
      this.#overlong = false;
    }
    if (this.#pending.length > MAX_LINE_UNITS) {
      if (!this.#overlong && testRegex(this.#regex, this.#pending.slice(0, MAX_LINE_UNITS))) n++;
      this.#overlong = true; // the rest of this line counts no more
      this.#pending = '';
    }
    return n;
  }

  dispose(): void {
    this.#regex.dispose();
  }
}
