/**
 * Tier 2, `tier2:hang` (the original's `tier2_hang.py`, ROCm/aorta): after the grace period, a hang is at least two
 * of three signals holding for the window — the output is silent, the process tree does no I/O, the GPU is idle.
 * The first poll runs at once; once the predicate holds the monitor latches and stops polling (the runner then
 * records it, kills the trial for `hang_action: kill`, or drops it when the trial exits 0: "reconciled").
 *
 * Differences from the original, on purpose:
 * - the output signal is fed by the runner as the log arrives (`noteOutput`), or, with a recipe `progress_regex`,
 *   only by lines matching it (`noteProgress`), so a heartbeat thread cannot mask a stall;
 * - I/O is summed over the whole process tree, less the bytes written to the trial's log (that is the output
 *   signal, not I/O), see proc-io.ts, and less than IO_NOISE_BYTES since the last activity is no activity;
 *   unreadable → not idle, as the original;
 * - GPU idle is the sampler's latest utilization < 5 %; no sampler or no reading → not idle, as the original.
 */

import { DEFAULT_HANG_GRACE_SEC } from '../recipe/types.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

/** The original's `GPU_IDLE_UTILIZATION_THRESHOLD_PCT` (strictly below). */
export const GPU_IDLE_UTILIZATION_PCT = 5;
/**
 * I/O below this many bytes since the last activity is not activity: an idle Node or Python process still reads a
 * few bytes now and then (a cgroup or /proc file), which must not hold a hang off for another window. (The
 * original counted any change.)
 */
export const IO_NOISE_BYTES = 4096;
/** The original polls every 5 s; a short window is polled 5 times per window so detection stays within ~1.2 windows. */
export const MAX_POLL_SEC = 5;

export interface HangSignals {
  readonly outputSilent: boolean;
  readonly ioIdle: boolean;
  readonly gpuIdle: boolean;
  readonly elapsedSec: number;
}

/** The original's `evaluate_predicate`: nothing before the grace period ends (it may fire at exactly grace). */
export function evaluateHangPredicate(s: HangSignals, graceSec = DEFAULT_HANG_GRACE_SEC): boolean {
  if (s.elapsedSec < graceSec) return false;
  return Number(s.outputSilent) + Number(s.ioIdle) + Number(s.gpuIdle) >= 2;
}

export function pollIntervalSec(windowSec: number): number {
  return Math.min(MAX_POLL_SEC, windowSec / 5);
}

/** Where the monitor's readings come from (tests replace them). */
export interface HangProbes {
  /**
   * I/O counter of the trial's tree, or null when unreadable. A change larger than the two readings' slack is
   * activity (the slack covers log writes that raced the reading).
   */
  ioTotal(): Promise<{ readonly value: number; readonly slack: number } | null>;
  /** Latest GPU utilization in percent, or null when unknown. */
  gpuUtilizationPct(): number | null;
  /** Monotonic milliseconds. */
  now(): number;
}

export interface HangMonitorOptions {
  readonly windowSec: number;
  readonly graceSec: number;
  /** Default `pollIntervalSec(windowSec)`. */
  readonly pollSec?: number;
  /** True when the output signal is progress lines (`progress_regex`), not any output. */
  readonly progress: boolean;
  readonly probes: HangProbes;
  /** Called once, when the hang latches. */
  readonly onHang?: (report: HangReport) => void;
}

/** `new HangMonitor`'s option keys (text/options.ts); `probes` is an object of methods, not options. */
export const HANG_MONITOR_OPTION_KEYS = {
  windowSec: OPTION,
  graceSec: OPTION,
  pollSec: OPTION,
  progress: OPTION,
  probes: OPTION,
  onHang: OPTION,
} satisfies OptionTable<HangMonitorOptions>;

/** Tier 2's record in result.json. */
export interface HangReport {
  readonly detected: boolean;
  /** Seconds from the start of monitoring (the spawn) to the detection, else null. */
  readonly detected_after_sec: number | null;
  /** The signals at the detection (each held for the window), else null. */
  readonly signals: { readonly output_silent: boolean; readonly io_idle: boolean; readonly gpu_idle: boolean } | null;
  /** What the output signal watched. */
  readonly output_signal: 'output' | 'progress';
  readonly window_sec: number;
  readonly grace_sec: number;
  readonly poll_sec: number;
  readonly polls: number;
  /** False when /proc/<pid>/io could not be read at any poll (then I/O never counts as idle). */
  readonly io_readable: boolean;
  /** False when no GPU utilization reading was available at any poll. */
  readonly gpu_readable: boolean;
}

export class HangMonitor {
  readonly #o: HangMonitorOptions;
  readonly #pollMs: number;
  #startedAt = 0;
  #lastOutputAt = 0;
  #lastIoAt = 0;
  #lastIo: { readonly value: number; readonly slack: number } | null = null;
  #ioSeen = false;
  #gpuSeen = false;
  #polls = 0;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #inFlight: Promise<void> | null = null;
  #detectedAfter: number | null = null;
  #signals: HangReport['signals'] = null;

  constructor(options: HangMonitorOptions) {
    checkOptions('new HangMonitor', options, HANG_MONITOR_OPTION_KEYS);
    if (!(options.windowSec > 0)) throw new RangeError('HangMonitor: windowSec must be > 0');
    if (!(options.graceSec >= 0)) throw new RangeError('HangMonitor: graceSec must be >= 0');
    this.#o = options;
    this.#pollMs = (options.pollSec ?? pollIntervalSec(options.windowSec)) * 1000;
  }

  get detected(): boolean {
    return this.#detectedAfter !== null;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Starts polling (a second call while running is a no-op, as the original); the first poll runs at once. */
  start(): void {
    if (this.#running || this.detected) return;
    this.#running = true;
    this.#startedAt = this.#o.probes.now();
    this.#lastOutputAt = this.#startedAt;
    this.#lastIoAt = this.#startedAt;
    this.#schedule(0);
  }

  /** Stops polling and waits for an in-flight poll. Idempotent. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#inFlight;
  }

  /** New output arrived (ignored when the output signal is progress lines). */
  noteOutput(): void {
    if (!this.#o.progress) this.#lastOutputAt = this.#o.probes.now();
  }

  /** A line matched `progress_regex`. */
  noteProgress(): void {
    if (this.#o.progress) this.#lastOutputAt = this.#o.probes.now();
  }

  report(): HangReport {
    return {
      detected: this.detected,
      detected_after_sec: this.#detectedAfter,
      signals: this.#signals,
      output_signal: this.#o.progress ? 'progress' : 'output',
      window_sec: this.#o.windowSec,
      grace_sec: this.#o.graceSec,
      poll_sec: this.#pollMs / 1000,
      polls: this.#polls,
      io_readable: this.#ioSeen,
      gpu_readable: this.#gpuSeen,
    };
  }

  #schedule(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#inFlight = this.#poll().finally(() => (this.#inFlight = null));
    }, ms);
  }

  async #poll(): Promise<void> {
    if (!this.#running) return;
    const p = this.#o.probes;
    const io = await p.ioTotal().catch(() => null);
    if (!this.#running) return;
    const now = p.now();
    this.#polls++;
    if (io !== null) {
      this.#ioSeen = true;
      // Compared with the reading at the last activity, so a trickle adds up.
      if (this.#lastIo === null) this.#lastIo = io;
      else if (Math.abs(io.value - this.#lastIo.value) > io.slack + this.#lastIo.slack + IO_NOISE_BYTES) {
        this.#lastIoAt = now;
        this.#lastIo = io;
      }
    }
    const util = p.gpuUtilizationPct();
    if (util !== null) this.#gpuSeen = true;
    const windowMs = this.#o.windowSec * 1000;
    const signals: HangSignals = {
      outputSilent: now - this.#lastOutputAt >= windowMs,
      // An unreadable counter leaves the timer alone and never counts as idle.
      ioIdle: io !== null && now - this.#lastIoAt >= windowMs,
      gpuIdle: util !== null && util < GPU_IDLE_UTILIZATION_PCT,
      elapsedSec: (now - this.#startedAt) / 1000,
    };
    if (evaluateHangPredicate(signals, this.#o.graceSec)) {
      this.#detectedAfter = Math.round(signals.elapsedSec * 1000) / 1000;
      this.#signals = { output_silent: signals.outputSilent, io_idle: signals.ioIdle, gpu_idle: signals.gpuIdle };
      this.#running = false;
      this.#o.onHang?.(this.report());
      return;
    }
    this.#schedule(this.#pollMs);
  }
}
