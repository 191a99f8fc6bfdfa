/**
 * Tier 2 during one trial: a HangMonitor fed by the log as the runner reads it (or only by `progress_regex`
 * lines), by the tree's I/O counters and the GPU sampler's utilization; `hang_action: kill` asks the runner to
 * stop the trial. After the exit, `finish` applies the original's reconciliation (a latched hang of a trial that
 * exited 0 without a timeout is dropped).
 */
import type { ClassifierKeys, Recipe } from '../recipe/types.js';
import { treeIoTotal } from './proc-io.js';
import { ProgressLines } from './progress-lines.js';
import { TIER2_HANG } from '../detectors/ids.js';
import { DEFAULT_HANG_GRACE_SEC, DEFAULT_HANG_WINDOW_SEC } from '../recipe/types.js';
import { HangMonitor, type HangReport } from './tier2-hang.js';
import { OPTION, type OptionTable } from '../text/options.js';

export type Tier2Keys = Pick<Recipe, 'hangWindowSec' | 'hangGracePeriodAtStart'> &
  Pick<ClassifierKeys, 'progressRegex' | 'hangAction'>;

/** The keys of `runTrial`'s `hang` (text/options.ts). */
export const TIER2_OPTION_KEYS = {
  hangWindowSec: OPTION,
  hangGracePeriodAtStart: OPTION,
  progressRegex: OPTION,
  hangAction: OPTION,
} satisfies OptionTable<Tier2Keys>;

export const DEFAULT_TIER2_KEYS: Tier2Keys = {
  hangWindowSec: DEFAULT_HANG_WINDOW_SEC,
  hangGracePeriodAtStart: DEFAULT_HANG_GRACE_SEC,
  progressRegex: null,
  hangAction: 'record',
};

/** result.json's `hang` record. */
export interface HangRecord extends HangReport {
  readonly action: 'record' | 'kill';
  /** True when Tier 2 stopped the trial. */
  readonly killed: boolean;
  /** A hang latched, but the trial then exited 0 (not timed out): dropped, as the original. */
  readonly reconciled: boolean;
}

/** What a listener hears at the detection: the monitor's report and what Tier 2 is about to do. */
export interface HangNotice extends HangReport {
  readonly action: 'record' | 'kill';
}

export class Tier2Session {
  readonly #keys: Tier2Keys;
  readonly #progress: ProgressLines | null;
  readonly #gpuUtil: () => number | null;
  readonly #logPath: string;
  readonly #onHang: ((hang: HangNotice) => void) | undefined;
  #monitor: HangMonitor | null = null;
  #killed = false;

  /** `onHang` is told once, at the detection (before a `hang_action: kill` stops the trial). */
  constructor(
    keys: Tier2Keys,
    logPath: string,
    gpuUtilizationPct: () => number | null,
    onHang?: (hang: HangNotice) => void,
  ) {
    this.#keys = keys;
    this.#onHang = onHang;
    this.#logPath = logPath;
    this.#gpuUtil = gpuUtilizationPct;
    this.#progress = keys.progressRegex === null ? null : new ProgressLines(keys.progressRegex);
  }

  /** Starts monitoring `pid`'s tree; `kill` stops the trial (called at most once, for `hang_action: kill`). */
  start(pid: number, kill: () => void): void {
    this.#monitor = new HangMonitor({
      windowSec: this.#keys.hangWindowSec,
      graceSec: this.#keys.hangGracePeriodAtStart,
      progress: this.#progress !== null,
      probes: {
        ioTotal: () => treeIoTotal(pid, this.#logPath),
        gpuUtilizationPct: this.#gpuUtil,
        now: () => performance.now(),
      },
      onHang: (report) => {
        // A listener that throws must not cost the trial its hang record or its kill.
        try {
          this.#onHang?.({ ...report, action: this.#keys.hangAction });
        } catch {
          // ignored
        }
        if (this.#keys.hangAction !== 'kill') return;
        this.#killed = true;
        kill();
      },
    });
    this.#monitor.start();
  }

  /** The next chunk of the log. */
  push(chunk: Uint8Array): void {
    const m = this.#monitor;
    if (m === null || !m.running) return;
    m.noteOutput();
    if (this.#progress !== null && this.#progress.push(chunk) > 0) m.noteProgress();
  }

  get killed(): boolean {
    return this.#killed;
  }

  async stop(): Promise<void> {
    await this.#monitor?.stop();
  }

  /** Releases the progress regex (idempotent). */
  dispose(): void {
    void this.#monitor?.stop();
    this.#progress?.dispose();
  }

  /** Tier 2's ids and record, once the exit is known. */
  finish(exitCode: number, timedOut: boolean): { ids: string[]; record: HangRecord | null } {
    const m = this.#monitor;
    if (m === null) return { ids: [], record: null };
    const report = m.report();
    const reconciled = report.detected && exitCode === 0 && !timedOut && !this.#killed;
    const record: HangRecord = { ...report, action: this.#keys.hangAction, killed: this.#killed, reconciled };
    return { ids: report.detected && !reconciled ? [TIER2_HANG] : [], record };
  }
}
