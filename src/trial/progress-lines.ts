/**
 * Tier 2's progress signal: counts the log lines that match the recipe's `progress_regex` as they arrive. A line
 * is matched when its "\n" arrives (a line still being written is not progress yet); a line longer than
 * MAX_LINE_UNITS is matched on its first MAX_LINE_UNITS units, so memory stays bounded.
 */
import { compileRegex, testRegex, type RegexHandle } from '../regex/index.js';

export const MAX_LINE_UNITS = 64 * 1024;

export class ProgressLines {
  readonly #regex: RegexHandle;
  readonly #decoder = new TextDecoder('utf-8');
  #pending = '';
  #overlong = false;

  constructor(source: string) {
    this.#regex = compileRegex(source, '');
  }

  /** Feeds log bytes; returns how many completed lines matched. */
  push(chunk: Uint8Array): number {
    const text = this.#pending + this.#decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
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
