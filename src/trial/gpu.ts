/**
 * The trial's view of the GPU memory sampler (`src/gpu/`): created (tool detection + baseline) before the spawn,
 * started on the child's pid, stopped after the exit. Whatever the sampler does — throw, hang in a call — must not
 * delay or change the trial, so every call here is guarded and a failure becomes a warning in the summary.
 */
import type { GpuHealthReadings, GpuSummary, GpuToolChoice } from '../gpu/index.js';

export type { GpuSummary, GpuToolChoice };

export interface GpuOptions {
  readonly tool: GpuToolChoice;
  /** Poll interval; the sampler's default (1 s) when undefined. */
  readonly intervalMs?: number;
  /** The runner's own environment, which finds and runs the tool: never the trial's (TrialOptions.runnerEnv). */
  readonly env: NodeJS.ProcessEnv;
  /** Only these devices are sampled (see `GpuSamplerOptions.devices`). */
  readonly devices?: readonly string[];
}

/**
 * Device readings Tier 3 compares: before the spawn and after the exit (null: not read). The sampler's own type;
 * an injected sampler may leave out `unavailable`.
 */
export type GpuHealth = Omit<GpuHealthReadings, 'unavailable'> & { readonly unavailable?: readonly string[] };

/**
 * What the runner needs of a sampler (the `GpuSampler` class satisfies it; tests may inject their own). The two
 * optional readings feed Tier 2's GPU-idle signal and Tier 3's `vram_growth` / `thermal_throttle`; a sampler
 * without them leaves those signals unavailable (GPU never idle; Tier 3's GPU part disabled, with the reason).
 */
export interface GpuSamplerLike {
  start(rootPid: number): void;
  stop(): Promise<GpuSummary>;
  /** Latest GPU utilization in percent (the busiest GPU), or null when unknown. */
  utilizationPct?(): number | null;
  /** After stop(): the readings around the trial, or why there are none. */
  health?(): GpuHealth | string | null;
}

export type GpuSamplerFactory = (options: GpuOptions) => Promise<GpuSamplerLike>;

/** The summary when no sampling was asked for (`--gpu-tool none`). */
export function disabledGpuSummary(intervalMs = 0): GpuSummary {
  return {
    tool: null,
    toolVersion: null,
    attribution: null,
    baselineMib: null,
    peakVramMib: null,
    samples: 0,
    failedCalls: 0,
    intervalMs,
    warnings: [],
  };
}

/** The real sampler, loaded only when sampling is asked for. */
export const defaultGpuSamplerFactory: GpuSamplerFactory = async (options) => {
  const { GpuSampler } = await import('../gpu/index.js');
  return GpuSampler.create({
    tool: options.tool,
    intervalMs: options.intervalMs,
    env: options.env,
    devices: options.devices,
    health: true,
  });
};

/** A running (or failed-to-start) sampling session that never throws. */
export class GuardedGpu {
  readonly #sampler: GpuSamplerLike | null;
  readonly #warnings: string[];
  readonly #intervalMs: number;

  private constructor(sampler: GpuSamplerLike | null, warnings: string[], intervalMs: number) {
    this.#sampler = sampler;
    this.#warnings = warnings;
    this.#intervalMs = intervalMs;
  }

  static async create(options: GpuOptions, factory: GpuSamplerFactory = defaultGpuSamplerFactory): Promise<GuardedGpu> {
    if (options.tool === 'none') return new GuardedGpu(null, [], options.intervalMs ?? 0);
    try {
      return new GuardedGpu(await factory(options), [], options.intervalMs ?? 0);
    } catch (err) {
      return new GuardedGpu(null, [`GPU sampler could not start: ${describe(err)}`], options.intervalMs ?? 0);
    }
  }

  start(pid: number): void {
    try {
      this.#sampler?.start(pid);
    } catch (err) {
      this.#warnings.push(`GPU sampler could not start sampling: ${describe(err)}`);
    }
  }

  /** Latest utilization, or null (no sampler, no reading, or the sampler does not read it). */
  utilizationPct(): number | null {
    try {
      return this.#sampler?.utilizationPct?.() ?? null;
    } catch {
      return null;
    }
  }

  /** The readings around the trial, or why there are none. */
  health(): GpuHealth | string {
    if (this.#sampler === null) return 'no GPU sampler';
    if (this.#sampler.health === undefined) return 'the GPU sampler reads no post-exit VRAM or throttle counters';
    try {
      return this.#sampler.health() ?? 'the GPU sampler took no readings';
    } catch (err) {
      return `the GPU sampler failed: ${describe(err)}`;
    }
  }

  async stop(): Promise<GpuSummary> {
    if (this.#sampler === null) return { ...disabledGpuSummary(this.#intervalMs), warnings: [...this.#warnings] };
    try {
      const s = await this.#sampler.stop();
      return { ...s, warnings: [...this.#warnings, ...s.warnings] };
    } catch (err) {
      return {
        ...disabledGpuSummary(this.#intervalMs),
        warnings: [...this.#warnings, `GPU sampler failed: ${describe(err)}`],
      };
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
