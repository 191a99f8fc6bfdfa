/**
 * The GPU memory sampler: polls amd-smi or nvidia-smi while a trial runs and reports the peak VRAM
 * attributable to the trial.
 *
 * Design points (docs/gpu.md, "GPU memory sampler"):
 * - `create()` finds the tool and takes the device baseline just before the trial is spawned;
 *   `start(pid)` polls from then on, one call at a time, a tick every `intervalMs` (a tick that takes
 *   longer is followed at once by the next); `stop()` kills an in-flight call and returns the summary.
 * - Every failure (tool missing, exit status, garbage, JSON error, timeout) makes that sample unknown,
 *   never 0, and adds one warning per distinct problem. A query that fails 3 times in a row is not
 *   called again for the rest of the run. Nothing here throws into, waits on or signals the trial.
 * - Attribution: the per-process sum over the trial's process tree when the tool listed at least one
 *   of its processes; otherwise the device increase over the baseline, summed over GPUs, each GPU
 *   clamped at 0 (so memory freed by someone else on one GPU does not hide the trial's use of another).
 */
import {
  driverFor,
  type DeviceReading,
  type PerGpuReading,
  type ProcessEntry,
  type Query,
  type ToolDriver,
} from './drivers.js';
import { findTool, type GpuToolName } from './find-tool.js';
import { excerpt } from './parse-result.js';
import { readProcessTree } from './proc-tree.js';
import { MAX_STDOUT_BYTES, runTool, type ToolRunResult } from './run-tool.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

export type GpuToolChoice = 'auto' | 'amd-smi' | 'nvidia-smi' | 'none';

export interface GpuSamplerOptions {
  /** Default `'auto'`: amd-smi if found, else nvidia-smi, else none. */
  tool?: GpuToolChoice;
  /** Time between the starts of two ticks, default 1000. Calls never overlap. */
  intervalMs?: number;
  /** Hard timeout per tool call (its process group is killed), default 5000. */
  callTimeoutMs?: number;
  /**
   * Environment (PATH, ROCM_PATH) used to find and run the tools; default `process.env`. The runner's own, never a
   * trial's: whoever sets it chooses the program the sampler runs.
   */
  env?: NodeJS.ProcessEnv;
  /**
   * Sample only these devices, by the tool's index or GPU key (nvidia UUID): the ones a trial was given (a
   * sweep's `--gpus`). Default: every device. Device memory and per-process memory on other GPUs are ignored.
   */
  devices?: readonly string[];
  /**
   * Also read the health signals (default false): GPU utilization every tick, and the thermal-throttle
   * counter and device VRAM before the trial and after its exit. The trial runner turns it on for Tier 2's
   * GPU-idle signal and Tier 3's `vram_growth` / `thermal_throttle`. A failed health call is not a memory
   * warning: that signal is unavailable, and `health()` says why.
   */
  health?: boolean;
}

/** `GpuSampler.create`'s option keys (text/options.ts). */
export const GPU_SAMPLER_OPTION_KEYS = {
  tool: OPTION,
  intervalMs: OPTION,
  callTimeoutMs: OPTION,
  env: OPTION,
  devices: OPTION,
  health: OPTION,
} satisfies OptionTable<GpuSamplerOptions>;

/** The readings around a trial (see `GpuSamplerOptions.health`); a `null` reading was unavailable. */
export interface GpuHealthReadings {
  /** Device used VRAM summed over the sampled GPUs that were read both times, before the spawn and after the exit. */
  readonly vramBeforeMib: number | null;
  readonly vramAfterMib: number | null;
  /** The tool's cumulative thermal-throttle counter summed over the sampled GPUs, before and after. */
  readonly throttleBefore: number | null;
  readonly throttleAfter: number | null;
  /** Why a signal is unavailable, one line each (e.g. the tool rejected the throttle query). */
  readonly unavailable: readonly string[];
}

export interface GpuSummary {
  tool: GpuToolName | null;
  toolVersion: string | null;
  attribution: 'process' | 'device-minus-baseline' | null;
  /** Device used VRAM summed over GPUs, sampled by `create()`; `null` if that call failed. */
  baselineMib: number | null;
  /** Largest attributable VRAM seen, whole MiB (rounded); `null` when nothing usable was sampled. */
  peakVramMib: number | null;
  /** Ticks during the run in which at least one query succeeded. */
  samples: number;
  /** Failed memory queries, the baseline included (cancelled calls are not failures). */
  failedCalls: number;
  intervalMs: number;
  warnings: string[];
}

const DEFAULT_INTERVAL_MS = 1000;
const DEFAULT_CALL_TIMEOUT_MS = 5000;
/** A query failing this many times in a row is given up for the run (it will not recover in seconds). */
const MAX_CONSECUTIVE_FAILURES = 3;

/** Largest believable single reading (64 TiB): today's largest GPU has 288 GB, so anything past this is a tool bug. */
export const MAX_PLAUSIBLE_MIB = 2 ** 26;

/** One query's state during a run. */
interface QueryState {
  consecutiveFailures: number;
  disabled: boolean;
}

export class GpuSampler {
  private readonly driver: ToolDriver | null;
  private readonly toolPath: string | null;
  private readonly intervalMs: number;
  private readonly callTimeoutMs: number;
  private readonly env: NodeJS.ProcessEnv;
  private readonly devices: readonly string[] | null;

  /** Distinct problems, keyed so that the same failure repeated yields one warning. */
  private readonly warnings = new Map<string, string>();
  private failedCalls = 0;
  private samples = 0;
  private toolVersion: string | null = null;
  private baseline: Map<string, number> | null = null;
  private devicePeakMib: number | null = null;
  private processPeakMib: number | null = null;
  private processMatched = false;
  private readonly device: QueryState = { consecutiveFailures: 0, disabled: false };
  private readonly processes: QueryState = { consecutiveFailures: 0, disabled: false };
  private versionAsked = false;

  private readonly readHealth: boolean;
  private readonly utilization: QueryState = { consecutiveFailures: 0, disabled: false };
  /** The latest utilization (busiest sampled GPU) and when its call ended. */
  private latestUtil: { pct: number; atMs: number } | null = null;
  /** The throttle counter summed over the sampled GPUs before the spawn (`null`: unavailable). */
  private throttleBefore: number | null = null;
  /** What `health()` returns, set once by `readAfter()`. */
  private readings: GpuHealthReadings | null = null;
  /** Why health signals are unavailable, keyed like `warnings`: one line per distinct problem. */
  private readonly healthProblems = new Map<string, string>();

  private rootPid: number | null = null;
  private stopping = false;
  private readonly abort = new AbortController();
  private loopDone: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private summary: Promise<GpuSummary> | null = null;

  private constructor(
    driver: ToolDriver | null,
    toolPath: string | null,
    intervalMs: number,
    callTimeoutMs: number,
    env: NodeJS.ProcessEnv,
    devices: readonly string[] | null = null,
    readHealth = false,
  ) {
    this.devices = devices;
    this.readHealth = readHealth;
    this.driver = driver;
    this.toolPath = toolPath;
    this.intervalMs = intervalMs;
    this.callTimeoutMs = callTimeoutMs;
    this.env = env;
  }

  /**
   * Finds the tool and samples the baseline: call it right before spawning the trial. Takes at most
   * about `callTimeoutMs`. Rejects only for invalid options (a `RangeError`); a missing or broken tool
   * gives a sampler whose summary says so.
   */
  static async create(options: GpuSamplerOptions = {}): Promise<GpuSampler> {
    checkOptions('GpuSampler.create', options, GPU_SAMPLER_OPTION_KEYS);
    const intervalMs = positive(options.intervalMs, DEFAULT_INTERVAL_MS, 'intervalMs');
    const callTimeoutMs = positive(options.callTimeoutMs, DEFAULT_CALL_TIMEOUT_MS, 'callTimeoutMs');
    const env = options.env ?? process.env;
    const choice = options.tool ?? 'auto';
    if (choice !== 'auto' && choice !== 'amd-smi' && choice !== 'nvidia-smi' && choice !== 'none') {
      throw new RangeError(
        `GpuSampler: tool must be 'auto', 'amd-smi', 'nvidia-smi' or 'none', not ${JSON.stringify(choice)}`,
      );
    }
    if (choice === 'none') return new GpuSampler(null, null, intervalMs, callTimeoutMs, env);

    const candidates: GpuToolName[] = choice === 'auto' ? ['amd-smi', 'nvidia-smi'] : [choice];
    for (const tool of candidates) {
      const path = await findTool(tool, env);
      if (path === null) continue;
      const sampler = new GpuSampler(
        driverFor(tool),
        path,
        intervalMs,
        callTimeoutMs,
        env,
        options.devices ?? null,
        options.health === true,
      );
      await sampler.takeBaseline();
      return sampler;
    }
    const sampler = new GpuSampler(null, null, intervalMs, callTimeoutMs, env);
    const what = choice === 'auto' ? 'neither amd-smi nor nvidia-smi was found' : `${choice} was not found`;
    sampler.warn('not-found', `GPU memory not sampled: ${what} on PATH`);
    return sampler;
  }

  /** Begins polling; the trial is `rootPid` and its descendants. Returns at once. */
  start(rootPid: number): void {
    if (this.rootPid !== null || this.stopping)
      throw new Error('GpuSampler: start() may be called once, before stop()');
    this.rootPid = rootPid;
    // The loop handles every tool failure itself; this catch only keeps a bug here from becoming an
    // unhandled rejection in the trial runner.
    if (this.driver !== null) {
      this.loopDone = this.loop().catch((e: unknown) => {
        this.warn(
          'internal',
          `GPU memory sampling stopped by an internal error: ${e instanceof Error ? e.message : String(e)}`,
        );
      });
    }
  }

  /**
   * Stops polling, kills an in-flight call, and returns the summary. Resolves promptly (never later
   * than `callTimeoutMs`); calling it again returns the same summary.
   */
  stop(): Promise<GpuSummary> {
    this.summary ??= this.finish();
    return this.summary;
  }

  private async finish(): Promise<GpuSummary> {
    this.stopping = true;
    this.abort.abort();
    this.wake?.();
    if (this.loopDone !== null) {
      // The loop ends as soon as its call is killed; the race is a guard against a stuck /proc read.
      let guard: NodeJS.Timeout | undefined;
      await Promise.race([this.loopDone, new Promise<void>((r) => (guard = setTimeout(r, this.callTimeoutMs)))]);
      clearTimeout(guard);
    }
    if (this.readHealth && this.driver !== null && this.rootPid !== null) await this.readAfter();
    return this.summarize();
  }

  /**
   * The readings after the exit, for Tier 3: device VRAM (what the trial left allocated) and the throttle
   * counter. Each is one call bounded by `callTimeoutMs`, made after the polling loop ended.
   */
  private async readAfter(): Promise<void> {
    const driver = this.driver!;
    const after = new AbortController();
    let vramBeforeMib: number | null = null;
    let vramAfterMib: number | null = null;
    const dev = await this.run(driver.device, after.signal);
    if (!dev.ok) this.healthProblem(dev.key, `VRAM after the exit: ${dev.message}`);
    else if (this.baseline === null) this.healthProblem('vram-before', 'VRAM before the spawn could not be read');
    else {
      // Compared over the GPUs read both times.
      for (const [gpu, mib] of dev.value.usedMib) {
        const before = this.baseline.get(gpu);
        if (mib === null || before === undefined || !this.selects(gpu, dev.value) || !this.plausible(mib, gpu))
          continue;
        vramBeforeMib = (vramBeforeMib ?? 0) + before;
        vramAfterMib = (vramAfterMib ?? 0) + mib;
      }
      if (vramBeforeMib === null) this.healthProblem('vram-gpus', 'VRAM: no GPU was read both before and after');
    }
    const throttleAfter =
      this.throttleBefore === null ? null : this.selectedSum(await this.readPerGpu(driver.throttle, after.signal));
    this.readings = {
      vramBeforeMib: vramBeforeMib === null ? null : Math.round(vramBeforeMib),
      vramAfterMib: vramAfterMib === null ? null : Math.round(vramAfterMib),
      throttleBefore: this.throttleBefore,
      throttleAfter,
      unavailable: [...this.healthProblems.values()],
    };
  }

  /** A per-GPU reading summed over the sampled GPUs; `null` when none of them has a value. */
  private selectedSum(r: PerGpuReading | null): number | null {
    if (r === null) return null;
    let sum: number | null = null;
    for (const [gpu, v] of r) if (v !== null && this.selects(gpu)) sum = (sum ?? 0) + v;
    return sum;
  }

  /** A health query: its per-GPU values, or `null` with the problem recorded. */
  private async readPerGpu(q: Query<PerGpuReading>, signal: AbortSignal): Promise<PerGpuReading | null> {
    const r = await this.run(q, signal);
    if (r.ok) return r.value;
    if (r.key !== 'aborted') this.healthProblem(r.key, r.message);
    return null;
  }

  private healthProblem(key: string, message: string): void {
    if (!this.healthProblems.has(key)) this.healthProblems.set(key, message);
  }

  /**
   * The latest utilization of the busiest sampled GPU in percent, or `null`: not asked for (`health`), not
   * read yet, N/A, or older than two ticks plus a call timeout (a stale reading must not look idle).
   */
  utilizationPct(): number | null {
    if (this.latestUtil === null) return null;
    const maxAge = 2 * this.intervalMs + this.callTimeoutMs;
    return performance.now() - this.latestUtil.atMs <= maxAge ? this.latestUtil.pct : null;
  }

  /**
   * After `stop()`: the readings around the trial, or why there are none (no tool, `health` not asked for).
   * VRAM is compared over the GPUs read both before and after.
   */
  health(): GpuHealthReadings | string {
    if (this.driver === null) return [...this.warnings.values()][0] ?? 'no GPU tool';
    if (!this.readHealth) return 'health readings were not asked for';
    return this.readings ?? 'the trial was not sampled (stop() not called after start())';
  }

  private summarize(): GpuSummary {
    let attribution: GpuSummary['attribution'] = null;
    let peak: number | null = null;
    if (this.processMatched) {
      attribution = 'process';
      peak = this.processPeakMib;
    } else if (this.devicePeakMib !== null) {
      attribution = 'device-minus-baseline';
      peak = this.devicePeakMib;
    }
    if (this.driver !== null && this.rootPid !== null && this.samples === 0 && this.warnings.size === 0) {
      this.warn(
        'no-sample',
        `no GPU memory sample completed during the run (it was shorter than one ${this.driver.tool} call)`,
      );
    }
    let baselineMib: number | null = null;
    if (this.baseline !== null) {
      baselineMib = 0;
      for (const v of this.baseline.values()) baselineMib += v;
      baselineMib = Math.round(baselineMib);
    }
    return {
      tool: this.driver?.tool ?? null,
      toolVersion: this.toolVersion,
      attribution,
      baselineMib,
      peakVramMib: peak === null ? null : Math.round(peak),
      samples: this.samples,
      failedCalls: this.failedCalls,
      intervalMs: this.intervalMs,
      warnings: [...this.warnings.values()],
    };
  }

  /** Device-index aliases of GPU keys, learnt from device readings (process rows carry only the key). */
  private readonly indexOf = new Map<string, string>();

  /** Whether GPU `key` is one of `devices` (by key or by the tool's index). */
  private selects(key: string, reading?: DeviceReading): boolean {
    const index = reading?.index?.get(key);
    if (index !== undefined) this.indexOf.set(key, index);
    if (this.devices === null) return true;
    const i = index ?? this.indexOf.get(key);
    return this.devices.includes(key) || (i !== undefined && this.devices.includes(i));
  }

  private warn(key: string, message: string): void {
    if (!this.warnings.has(key)) this.warnings.set(key, message);
  }

  private async takeBaseline(): Promise<void> {
    const driver = this.driver!;
    const reading = await this.query(driver.device, this.device);
    if (reading === null) return;
    if (reading.toolVersion !== undefined) this.toolVersion = reading.toolVersion;
    const baseline = new Map<string, number>();
    for (const [gpu, used] of reading.usedMib)
      if (used !== null && this.selects(gpu, reading) && this.plausible(used, gpu)) baseline.set(gpu, used);
    if (baseline.size > 0) this.baseline = baseline;
    if (this.readHealth) {
      const r = await this.readPerGpu(driver.throttle, this.abort.signal);
      this.throttleBefore = this.selectedSum(r);
      if (r !== null && this.throttleBefore === null)
        this.healthProblem('throttle-na', `${driver.throttle.label} reported N/A for every sampled GPU`);
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopping && !(this.device.disabled && this.processes.disabled)) {
      const tickStart = performance.now();
      const ok = await this.tick();
      if (ok && !this.versionAsked && this.driver!.version !== null && !this.stopping) {
        // Once per run, after a sample rather than before the trial, so it never delays the trial.
        this.versionAsked = true;
        const v = await this.run(this.driver!.version, this.abort.signal);
        if (v.ok && v.value !== null) this.toolVersion = v.value;
      }
      if (this.stopping) break;
      const wait = this.intervalMs - (performance.now() - tickStart);
      if (wait > 0) {
        // stop() calls wake() to end the wait at once.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, wait);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /** One sample: device memory, then per-process memory. True when either query succeeded. */
  private async tick(): Promise<boolean> {
    const driver = this.driver!;
    const root = this.rootPid!;
    let ok = false;
    // The tree is read before and after the process query: a child may start or exit in between.
    const treeBefore = this.processes.disabled ? null : readProcessTree(root);
    if (!this.device.disabled) {
      const reading = await this.query(driver.device, this.device);
      if (reading !== null && !this.stopping) {
        ok = true;
        if (reading.toolVersion !== undefined && reading.toolVersion !== null) this.toolVersion = reading.toolVersion;
        this.recordDevice(reading);
      }
    }
    if (!this.processes.disabled && !this.stopping) {
      const entries = await this.query(driver.processes, this.processes);
      if (entries !== null && !this.stopping) {
        ok = true;
        const tree = new Set([...(await treeBefore!), ...(await readProcessTree(root))]);
        this.recordProcesses(entries, tree);
      }
    }
    if (ok && !this.stopping) this.samples++;
    if (this.readHealth && !this.utilization.disabled && !this.stopping) await this.readUtilization();
    return ok;
  }

  /** One utilization call; three failures in a row give the signal up for the run, as for memory. */
  private async readUtilization(): Promise<void> {
    const r = await this.run(this.driver!.utilization, this.abort.signal);
    if (this.stopping) return;
    if (!r.ok) {
      if (r.key === 'aborted') return;
      this.healthProblem(`util|${r.key}`, `GPU utilization: ${r.message}`);
      if (++this.utilization.consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) this.utilization.disabled = true;
      return;
    }
    this.utilization.consecutiveFailures = 0;
    let busiest: number | null = null;
    for (const [gpu, pct] of r.value) if (pct !== null && this.selects(gpu)) busiest = Math.max(busiest ?? 0, pct);
    this.latestUtil = busiest === null ? null : { pct: busiest, atMs: performance.now() };
  }

  /** A reading past MAX_PLAUSIBLE_MIB is a tool bug (2^64 from an unsigned underflow), not memory: dropped. */
  private plausible(mib: number, what: string): boolean {
    if (mib <= MAX_PLAUSIBLE_MIB) return true;
    this.warn(
      'implausible',
      `GPU memory sample ignored: ${what} reported ${mib} MiB, over the plausible ${MAX_PLAUSIBLE_MIB} MiB (a tool bug)`,
    );
    return false;
  }

  private recordDevice(reading: DeviceReading): void {
    if (this.baseline === null) return;
    let delta = 0;
    let known = false;
    for (const [gpu, used] of reading.usedMib) {
      if (!this.selects(gpu, reading)) continue;
      const base = this.baseline.get(gpu);
      if (used === null || base === undefined || !this.plausible(used, gpu)) continue;
      known = true;
      delta += Math.max(0, used - base);
    }
    if (known) this.devicePeakMib = Math.max(this.devicePeakMib ?? 0, delta);
  }

  private recordProcesses(entries: ProcessEntry[], tree: Set<number>): void {
    // Same (GPU, pid) listed twice (duplicated documents, old amd-smi bugs): count it once.
    const perGpuPid = new Map<string, number>();
    for (const e of entries) {
      if (!tree.has(e.pid) || e.mib === null || !this.selects(e.gpu) || !this.plausible(e.mib, `process ${e.pid}`))
        continue;
      const key = `${e.gpu}\u0000${e.pid}`;
      perGpuPid.set(key, Math.max(perGpuPid.get(key) ?? 0, e.mib));
    }
    if (perGpuPid.size > 0) this.processMatched = true;
    let sum = 0;
    for (const v of perGpuPid.values()) sum += v;
    this.processPeakMib = Math.max(this.processPeakMib ?? 0, sum);
  }

  /** Runs a memory query, counting and warning on failure; `null` when it gave nothing usable. */
  private async query<T>(q: Query<T>, state: QueryState): Promise<T | null> {
    const r = await this.run(q, this.abort.signal);
    if (r.ok) {
      state.consecutiveFailures = 0;
      return r.value;
    }
    if (r.key === 'aborted') return null;
    this.failedCalls++;
    this.warn(r.key, r.message);
    if (++state.consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) state.disabled = true;
    return null;
  }

  /**
   * One call and its parse, failures described (not yet counted). The warning key names the tool and
   * the kind of failure, not the query: a hung or crashing tool fails both queries, and that is one
   * problem, reported once (with the first query that hit it).
   */
  private async run<T>(
    q: Query<T>,
    signal: AbortSignal,
  ): Promise<{ ok: true; value: T } | { ok: false; key: string; message: string }> {
    const tool = this.driver!.tool;
    let res: ToolRunResult;
    try {
      res = await runTool(this.toolPath!, q.args, {
        env: this.env,
        timeoutMs: this.callTimeoutMs,
        signal,
      });
    } catch (e) {
      // spawn() can throw synchronously (e.g. E2BIG, EAGAIN); that is a failed call like any other.
      const code = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
      return { ok: false, key: `${tool}|spawn|${code}`, message: `${tool} could not be started (${code})` };
    }
    switch (res.kind) {
      case 'aborted':
        return { ok: false, key: 'aborted', message: '' };
      case 'spawn-error':
        return { ok: false, key: `${tool}|spawn|${res.code}`, message: `${tool} could not be started (${res.code})` };
      case 'timeout':
        return {
          ok: false,
          key: `${tool}|timeout`,
          message: `${q.label} timed out after ${this.callTimeoutMs} ms and was killed`,
        };
      case 'output-too-large':
        return {
          ok: false,
          key: `${tool}|too-large`,
          message: `${q.label} printed more than ${MAX_STDOUT_BYTES / 1048576} MiB and was killed`,
        };
      case 'signaled':
        return { ok: false, key: `${tool}|signal|${res.signal}`, message: `${q.label} was killed by ${res.signal}` };
      case 'exited': {
        if (res.exitCode !== 0) {
          const line = firstLine(res.stderr) ?? firstLine(res.stdout);
          return {
            ok: false,
            key: `${tool}|exit|${res.exitCode}`,
            message: `${q.label} exited with status ${res.exitCode}${line === null ? '' : `: ${excerpt(line)}`}`,
          };
        }
        const parsed = q.parse(res.stdout);
        if (parsed.ok) return parsed;
        return {
          ok: false,
          key: `${tool}|${parsed.error.kind}|${parsed.error.code ?? ''}`,
          message: `${q.label} ${parsed.error.message}`,
        };
      }
    }
  }
}

function firstLine(text: string): string | null {
  for (const line of text.split('\n')) if (line.trim() !== '') return line.trim();
  return null;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`GpuSampler: ${name} must be a positive number of milliseconds, not ${value}`);
  return value;
}
