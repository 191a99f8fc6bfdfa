/**
 * Terminal niceties for the human output: colours only on a TTY (never with NO_COLOR set to a non-empty value, as
 * https://no-color.org asks; FORCE_COLOR forces them, e.g. under a pager), and a one-line progress display.
 */
import type { Writable } from 'node:stream';

export interface Palette {
  readonly green: (s: string) => string;
  readonly red: (s: string) => string;
  readonly yellow: (s: string) => string;
  readonly bold: (s: string) => string;
  readonly dim: (s: string) => string;
}

const plain = (s: string): string => s;
const sgr =
  (open: number, close: number) =>
  (s: string): string =>
    `\x1b[${open}m${s}\x1b[${close}m`;

export const NO_PALETTE: Palette = { green: plain, red: plain, yellow: plain, bold: plain, dim: plain };
export const ANSI_PALETTE: Palette = {
  green: sgr(32, 39),
  red: sgr(31, 39),
  yellow: sgr(33, 39),
  bold: sgr(1, 22),
  dim: sgr(2, 22),
};

export function isTty(stream: Writable): boolean {
  return (stream as Writable & { isTTY?: boolean }).isTTY === true;
}

/** The palette for text written to `stream` (null: text that is not for a terminal, e.g. inside XML). */
export function paletteFor(stream: Writable | null, env: NodeJS.ProcessEnv = process.env): Palette {
  return stream === null ? NO_PALETTE : paletteOnTty(isTty(stream), env);
}

/** The same, for output whose terminal-ness is known without a stream object (process-io.ts). */
export function paletteOnTty(tty: boolean, env: NodeJS.ProcessEnv = process.env): Palette {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return NO_PALETTE;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return ANSI_PALETTE;
  return tty && env.TERM !== 'dumb' ? ANSI_PALETTE : NO_PALETTE;
}

/** `1.5 KiB`, `12.3 MiB`: binary units, as the log sizes are. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/**
 * A progress line redrawn in place (`\r` + erase line), at most every `intervalMs`, and only after `delayMs` so
 * short runs print nothing. `clear()` removes it before the final output.
 */
export class ProgressLine {
  #shown = false;
  #last = 0;

  constructor(
    private readonly stream: Writable,
    private readonly delayMs = 1000,
    private readonly intervalMs = 250,
  ) {}

  update(elapsedMs: number, text: () => string): void {
    if (elapsedMs < this.delayMs || elapsedMs - this.#last < this.intervalMs) return;
    this.#last = elapsedMs;
    this.stream.write(`\r\x1b[K${text()}`);
    this.#shown = true;
  }

  clear(): void {
    if (this.#shown) this.stream.write('\r\x1b[K');
    this.#shown = false;
  }
}
