/**
 * `runTrial`: runs one trial command and classifies it (the original's `SubprocessWorkload.run` in
 * `workloads/_subprocess.py`, ROCm/aorta, plus its classifier): spawn → stream the combined output to the log file (and the terminal when asked) while scanning
 * it → exit code and monotonic walltime → Tier 1, Tier 4, Tier 5 → three-way verdict → `result.json`.
 *
 * Timeouts and interrupts signal the child's whole process group: first the gentle signal (SIGTERM for a timeout,
 * the forwarded signal for an interrupt), then SIGKILL after `killGraceMs` if the command is still running; once
 * the command has exited, stragglers of a stopped trial get SIGKILL at once.
 */
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { Recipe } from '../recipe/index.js';
import { BUILTIN_PATTERN_VERSION } from '../scan/index.js';
import { GuardedGpu, type GpuSamplerFactory, type GpuToolChoice } from './gpu.js';
import {
  LOG_SCANNER_OPTION_KEYS,
  TrialLogScanner,
  type DeferredReport,
  type LogScannerOptions,
} from './log-scanner.js';
import { tailFile } from './log-tail.js';
import { packageInfo } from './package-info.js';
import { createFresh, prepareOutDir } from './out-files.js';
import { TrialOutputError } from './output-error.js';
import { LOG_FILE, RESULT_VERSION, resultGpu, writeResultJson, type TrialResult } from './result-json.js';
import { popenExitCode, spawnChild, type ChildExit } from './spawn.js';
import { categoriesById, isDisabled, tierDisabled, type DisableSet } from '../classifier/classify.js';
import { classifyScanned, planLogScan } from '../classifier/classify-log.js';
import { hasCoreFile } from './core-file.js';
import { resolveExitStatus } from '../classifier/exit-codes.js';
import { detectTier1 } from '../classifier/tier1.js';
import {
  DEFAULT_TIER2_KEYS,
  TIER2_OPTION_KEYS,
  Tier2Session,
  type HangNotice,
  type Tier2Keys,
} from './tier2-session.js';
import { checkOptions, nested, OPTION, type OptionTable } from '../text/options.js';
import { gpuHealthIds, scanKernelLines } from '../classifier/tier3.js';
import { readKernelLog } from './tier3-kernel.js';
import type { Tier3Record } from './result-json.js';
import { now } from '../scan/clock.js';

/** The original's grace between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 10_000;

export interface TrialProgress {
  /** Log bytes read (and scanned) so far. */
  readonly bytes: number;
  /** Milliseconds since the spawn. */
  readonly elapsedMs: number;
  /** False once the command has exited (the rest of the log is being read). */
  readonly running: boolean;
}

export interface TrialOptions {
  /** Directory for `output.log` and `result.json` (created when missing; existing files are replaced). */
  readonly outDir: string;
  /** Seconds before the trial is stopped; overrides the recipe's `timeout_per_trial`. Null/undefined: the recipe's. */
  readonly timeoutSec?: number | null;
  /** Grace between the gentle signal and SIGKILL (default 10 s, as the original). */
  readonly killGraceMs?: number;
  /** Receives a copy of the command's combined output as it arrives. */
  readonly echo?: Writable | null;
  /** GPU sampler tool (default 'auto') and poll interval (default the sampler's, 1 s). */
  readonly gpuTool?: GpuToolChoice;
  readonly gpuIntervalMs?: number;
  /** Sample only these devices (amd-smi index, nvidia-smi index or UUID): the ones the trial was given. Default: all. */
  readonly gpuDevices?: readonly string[];
  /** Replaces the real sampler (tests). */
  readonly gpuSamplerFactory?: GpuSamplerFactory;
  /** The command's environment (default: ours); AORTA_PROBE_TRIAL_DIR is added. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The runner's own environment (default: ours, `process.env`), which finds and runs our helpers: dmesg, journalctl,
   * amd-smi, nvidia-smi. Never `env`: a recipe's mitigations may set the trial's PATH or LD_PRELOAD, and the trial
   * must not choose the programs that report on it.
   */
  readonly runnerEnv?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /**
   * Aborting it stops the trial as an interrupt: the signal named by `signal.reason` (a signal name such as
   * 'SIGTERM'; otherwise SIGINT) goes to the command's process group, and a result is still written.
   */
  readonly signal?: AbortSignal;
  /** Aborting it sends SIGKILL to the process group at once (a second Ctrl-C); counts as an interrupt. */
  readonly forceKill?: AbortSignal;
  readonly onProgress?: (progress: TrialProgress) => void;
  /** Window size and deferred-candidate budget (tests). */
  readonly scan?: LogScannerOptions;
  /**
   * Called with the command's pid, which is also its process group's id (it leads a new session), as soon as it
   * runs: a supervisor that must end the group should this process die (the sweep's reaper) registers it.
   */
  readonly onSpawn?: (pgid: number) => void;
  /**
   * The trial directory as the command is told it (AORTA_PROBE_TRIAL_DIR), when `outDir` reaches the directory
   * through a descriptor the caller holds (`/proc/self/fd/N`, the sweep: src/sweep/dir-ref.ts). Default: `outDir`.
   */
  readonly outDirShown?: string;
  /** `--disable-detector` tokens (a tier name or a detector id, already checked), united with the recipe's. */
  readonly disableDetectors?: readonly string[];
  /**
   * Tier 2's keys over the recipe's (`run --hang-window / --hang-grace / --hang-action`): each one given replaces
   * the recipe's `hang_window_sec`, `hang_grace_period_at_start`, `progress_regex` or `hang_action`.
   */
  readonly hang?: Partial<Tier2Keys>;
  /** Called once when Tier 2 detects a hang, while the trial still runs (before `hang_action: kill` stops it). */
  readonly onHang?: (hang: HangNotice) => void;
}

/** `runTrial`'s option keys (text/options.ts). */
export const TRIAL_OPTION_KEYS = {
  outDir: OPTION,
  timeoutSec: OPTION,
  killGraceMs: OPTION,
  echo: OPTION,
  gpuTool: OPTION,
  gpuIntervalMs: OPTION,
  gpuDevices: OPTION,
  gpuSamplerFactory: OPTION,
  env: OPTION,
  runnerEnv: OPTION,
  cwd: OPTION,
  signal: OPTION,
  forceKill: OPTION,
  onProgress: OPTION,
  scan: nested(LOG_SCANNER_OPTION_KEYS, { nullable: true }), // null: spread as nothing
  onSpawn: OPTION,
  outDirShown: OPTION,
  disableDetectors: OPTION,
  hang: nested(TIER2_OPTION_KEYS),
  onHang: OPTION,
} satisfies OptionTable<TrialOptions>;

export interface TrialOutcome {
  readonly result: TrialResult;
  readonly resultPath: string;
  readonly logPath: string;
  /** How each custom pattern whose condition reads trial variables was decided. */
  readonly deferred: readonly DeferredReport[];
}

interface RunFacts {
  exitCode: number;
  walltimeSec: number;
  timedOut: boolean;
  interrupted: boolean;
  killedForHang: boolean;
  execError: string | null;
  /** Epoch milliseconds of the spawn and of the exit (Tier 3's kernel window). */
  startedMs: number;
  endedMs: number;
}

/** Runs `argv` (no shell) as one trial of `recipe` (null: Tier 1 and Tier 4 only). */
export async function runTrial(
  recipe: Recipe | null,
  argv: readonly string[],
  options: TrialOptions,
): Promise<TrialOutcome> {
  checkOptions('runTrial', options, TRIAL_OPTION_KEYS);
  if (argv.length === 0) throw new TrialOptionsError('runTrial: argv is empty');
  if (typeof options.outDir !== 'string' || options.outDir === '')
    throw new TrialOptionsError('runTrial: outDir must be a non-empty path');
  checkHangOptions(options.hang);
  const t = options.timeoutSec;
  if (t !== undefined && t !== null && !(typeof t === 'number' && Number.isFinite(t) && t > 0)) {
    throw new TrialOptionsError(
      `runTrial: timeoutSec must be a positive finite number of seconds or null, not ${String(t)}`,
    );
  }
  const outDir = resolve(options.outDir);
  prepareOutDir(outDir);
  const logPath = join(outDir, LOG_FILE);
  const timeoutSec = options.timeoutSec ?? recipe?.timeoutPerTrial ?? null;
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const env = { ...(options.env ?? process.env), AORTA_PROBE_TRIAL_DIR: options.outDirShown ?? outDir };
  const runnerEnv = options.runnerEnv ?? process.env;

  // The log is scanned live (log-scanner.ts); what is scanned and how it is classified is classify-log.ts's.
  const plan = planLogScan(recipe, options.disableDetectors);
  const disabled = plan.disabled;
  const scanner = new TrialLogScanner(plan.scanRecipe, { spillDir: privateSpillDir(), ...options.scan }); // compiles the patterns before anything runs
  let tier2: Tier2Session | null = null;
  let logFd = -1;
  let logReader: FileHandle | null = null;
  try {
    // Both ends of the log are opened before the trial runs: what it later does to the name cannot redirect them.
    logFd = createFresh(logPath, true);
    try {
      logReader = await open(logPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      throw new TrialOutputError(`cannot read back ${logPath}: ${(err as Error).message}`, logPath, true);
    }
    const gpu = await GuardedGpu.create(
      {
        tool: options.gpuTool ?? 'auto',
        intervalMs: options.gpuIntervalMs,
        env: runnerEnv,
        devices: options.gpuDevices,
      },
      options.gpuSamplerFactory,
    );
    tier2 = isDisabled(disabled, 'tier2:hang')
      ? null
      : new Tier2Session(tier2Keys(recipe, options.hang), logPath, () => gpu.utilizationPct(), options.onHang);
    const startedAt = new Date().toISOString();
    const fd = logFd;
    logFd = -1; // execute owns it now
    const facts = await execute(
      argv,
      { ...options, outDir, logPath, logFd: fd, logReader, env, timeoutSec, killGraceMs, tier2 },
      scanner,
      gpu,
    );
    const gpuSummary = await gpu.stop();
    const vars = { exit_code: facts.exitCode, walltime_sec: facts.walltimeSec, peak_vram_mib: gpuSummary.peakVramMib };
    const launched = facts.execError === null;

    const t1 = now();
    const tier1 = detectTier1({
      exitCode: facts.exitCode,
      timedOut: facts.timedOut,
      execFailed: !launched,
      interrupted: facts.interrupted,
      killedForHang: facts.killedForHang,
      coreFile: hasCoreFile(outDir),
    });
    const tier1Ms = now() - t1;
    const t2 = now();
    const hang = tier2?.finish(facts.exitCode, facts.timedOut) ?? { ids: [], record: null };
    const tier2Ms = now() - t2;
    const t3 = now();
    const tier3 =
      launched && !tierDisabled(disabled, 'tier3')
        ? await runTier3(facts, gpu, recipe?.tier3VramGrowth ?? true, runnerEnv)
        : { ids: [], record: null };
    const tier3Ms = now() - t3;
    const scan = await scanner.finish(vars);
    const classified = classifyScanned(plan, scan, { tier1, tier2: hang.ids, tier3: tier3.ids, launched });
    const c = classified.classification;
    const info = packageInfo();
    const result: TrialResult = {
      verdict: c.verdict,
      exit_code: facts.exitCode,
      walltime_sec: facts.walltimeSec,
      peak_vram_mib: gpuSummary.peakVramMib,
      argv: [...argv],
      failure_detectors_fired: c.failures,
      error_detectors_fired: c.errors,
      warn_detectors_fired: c.warnings,
      capture: classified.capture,
      tier_durations_ms: {
        tier1: micro(tier1Ms),
        tier2: micro(tier2Ms),
        tier3: micro(tier3Ms),
        tier4: micro(scan.tier_durations_ms.tier4),
        tier5: micro(scan.tier_durations_ms.tier5),
      },
      timed_out: facts.timedOut,
      interrupted: facts.interrupted,
      exec_error: facts.execError,
      detectors: classified.detectors,
      engine_failures: classified.engine_failures,
      condition_errors: classified.condition_errors,
      log: { file: LOG_FILE, bytes: scanner.bytes },
      timeout_sec: timeoutSec,
      // Absolute, so `report` finds it from any directory (a name like '<stdin>' is not a path and stays).
      recipe:
        recipe === null
          ? null
          : {
              file: recipe.fileName.startsWith('<') ? recipe.fileName : resolve(recipe.fileName),
              sha256: recipe.sourceSha256,
            },
      gpu: resultGpu(gpuSummary),
      started_at: startedAt,
      versions: {
        aorta_probe: info.version,
        builtin_patterns: BUILTIN_PATTERN_VERSION,
        node: process.version,
        gpu_tool: gpuSummary.tool === null ? null : `${gpuSummary.tool} ${gpuSummary.toolVersion ?? 'unknown'}`,
      },
      result_version: RESULT_VERSION,
      detector_categories: categoriesById(c.detectors),
      hang: hang.record,
      tier3: tier3.record,
      ...disabledFields(disabled),
      exit_status: resolveExitStatus(c.verdict, c.detectors, recipe?.exitCodes ?? null),
    };
    return { result, resultPath: writeResultJson(outDir, result), logPath, deferred: scan.deferred };
  } finally {
    if (logFd !== -1) closeSync(logFd);
    await logReader?.close();
    scanner.dispose();
    tier2?.dispose();
  }
}

/** The recipe's Tier 2 keys (the defaults without one), with `hang`'s over them. */
export function tier2Keys(recipe: Recipe | null, hang: Partial<Tier2Keys> | undefined): Tier2Keys {
  const base = recipe ?? DEFAULT_TIER2_KEYS;
  return {
    hangWindowSec: hang?.hangWindowSec ?? base.hangWindowSec,
    hangGracePeriodAtStart: hang?.hangGracePeriodAtStart ?? base.hangGracePeriodAtStart,
    progressRegex: hang?.progressRegex !== undefined ? hang.progressRegex : base.progressRegex,
    hangAction: hang?.hangAction ?? base.hangAction,
  };
}

/** The recipe's own ranges: a window > 0, a grace >= 0 (finite), an action 'record' or 'kill'. */
function checkHangOptions(hang: Partial<Tier2Keys> | undefined): void {
  if (hang === undefined) return;
  const w = hang.hangWindowSec;
  if (w !== undefined && !(typeof w === 'number' && Number.isFinite(w) && w > 0))
    throw new TrialOptionsError(`runTrial: hang.hangWindowSec must be a finite number > 0, not ${String(w)}`);
  const g = hang.hangGracePeriodAtStart;
  if (g !== undefined && !(typeof g === 'number' && Number.isFinite(g) && g >= 0))
    throw new TrialOptionsError(`runTrial: hang.hangGracePeriodAtStart must be a finite number >= 0, not ${String(g)}`);
  const a = hang.hangAction;
  if (a !== undefined && a !== 'record' && a !== 'kill')
    throw new TrialOptionsError(`runTrial: hang.hangAction must be 'record' or 'kill', not ${String(a)}`);
}

function disabledFields(d: DisableSet): { disabled_detectors: string[]; disabled_detector_tiers: string[] } {
  return { disabled_detectors: [...d.ids].sort(), disabled_detector_tiers: [...d.tiers].sort() };
}

/** Tier 3 after the exit: the kernel log of the trial's window, and the sampler's readings around it. */
async function runTier3(
  facts: RunFacts,
  gpu: GuardedGpu,
  vramGrowth: boolean,
  runnerEnv: NodeJS.ProcessEnv,
): Promise<{ ids: string[]; record: Tier3Record }> {
  const record: Tier3Record = { kernel_source: null, kernel_lines_in_window: 0, events: [], disabled_reasons: [] };
  const ids = new Set<string>();
  const kernel = await readKernelLog(facts.startedMs, Math.max(facts.endedMs, Date.now()), runnerEnv);
  if (kernel.ok) {
    // The kernel's text is not ours: whatever scanning it throws costs Tier 3 a reason, never the trial its record.
    let k: ReturnType<typeof scanKernelLines> | null = null;
    try {
      k = scanKernelLines(kernel.lines);
    } catch (err) {
      record.disabled_reasons.push(`kernel log: not scanned: ${(err as Error).message}`);
    }
    if (k !== null) {
      record.kernel_source = kernel.source;
      record.kernel_lines_in_window = kernel.lines.length;
      record.events = k.events;
      for (const id of k.ids) ids.add(id);
    }
  } else {
    record.disabled_reasons.push(`kernel log: ${kernel.reason}`);
  }
  const health = gpu.health();
  if (typeof health === 'string') record.disabled_reasons.push(`GPU: ${health}`);
  else {
    for (const why of health.unavailable ?? []) record.disabled_reasons.push(`GPU: ${why}`);
    for (const id of gpuHealthIds(health, vramGrowth)) ids.add(id);
  }
  return { ids: [...ids], record };
}

/** A runTrial option is out of range (argv empty, outDir empty, timeoutSec NaN / ≤ 0 / ∞). */
export class TrialOptionsError extends RangeError {
  override name = 'TrialOptionsError';
}

/**
 * The deferred-candidate spill files go to a private directory (0700, outside `--out`, removed when the process
 * exits): the trial's own files are in `--out`, so nothing it writes there can plant or edit candidates.
 */
let spillDir: string | null = null;
/**
 * The process's private directory for spill files (made on first use, removed at exit). Exported so that a
 * supervisor can remove it when the process dies without running its exit hooks (the sweep's reaper).
 */
export function privateSpillDir(): string {
  if (spillDir === null) {
    const dir = mkdtempSync(join(tmpdir(), 'aorta-probe-spill-'));
    spillDir = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return spillDir;
}

interface ExecuteOptions extends TrialOptions {
  readonly tier2: Tier2Session | null;
  readonly outDir: string;
  readonly logPath: string;
  /** The freshly created log, for the child; closed here once it is spawned. */
  readonly logFd: number;
  readonly logReader: FileHandle;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutSec: number | null;
  readonly killGraceMs: number;
}

/** Spawns, streams and waits; everything the classification needs about the run itself. */
async function execute(
  argv: readonly string[],
  o: ExecuteOptions,
  scanner: TrialLogScanner,
  gpu: GuardedGpu,
): Promise<RunFacts> {
  const abortSignalName = (): NodeJS.Signals => {
    const r: unknown = o.signal?.reason;
    return typeof r === 'string' && /^SIG[A-Z0-9]+$/.test(r) ? (r as NodeJS.Signals) : 'SIGINT';
  };
  const logFd = o.logFd;
  if (o.signal?.aborted) {
    // Stopped before it started: nothing ran, as if the command had died of the forwarded signal at once.
    closeSync(logFd);
    const now = Date.now();
    return {
      exitCode: popenExitCode(null, abortSignalName()),
      walltimeSec: 0,
      timedOut: false,
      interrupted: true,
      killedForHang: false,
      execError: null,
      startedMs: now,
      endedMs: now,
    };
  }
  const startedMs = Date.now();
  // The worker behind spawnChild owns the timeout and the kill grace: they fire on time however busy this thread is.
  const timeoutMs = o.timeoutSec === null ? null : o.timeoutSec * 1000;
  const child = await spawnChild(argv, { logFd, env: o.env, cwd: o.cwd, timeoutMs, killGraceMs: o.killGraceMs });
  if (child.kind === 'started') o.onSpawn?.(child.pid);
  if (child.kind === 'exec_failed') {
    // As the original, the reason goes into the log (it wrote str(exc) to stderr.log), which is then scanned.
    const text = `${child.message}\n`;
    const fd = openSync(
      o.logPath,
      constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    scanner.push(Buffer.from(text));
    if (o.echo && !o.echo.destroyed) {
      const ignore = (): void => {};
      o.echo.on('error', ignore);
      await writeWithBackpressure(o.echo, Buffer.from(text));
      o.echo.off('error', ignore);
    }
    return {
      exitCode: child.exitCode,
      walltimeSec: micro(child.walltimeSec),
      timedOut: false,
      interrupted: false,
      killedForHang: false,
      execError: child.message,
      startedMs,
      endedMs: Date.now(),
    };
  }

  gpu.start(child.pid);
  let interrupted = false;
  const onAbort = (): void => {
    if (child.timedOut() || child.exited()) return;
    interrupted = true;
    child.cancelTimeout();
    child.stop(abortSignalName());
  };
  const onForceKill = (): void => {
    if (child.exited()) return;
    if (!child.timedOut()) interrupted = true;
    child.cancelTimeout();
    child.signalGroup('SIGKILL');
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  o.forceKill?.addEventListener('abort', onForceKill, { once: true });
  if (o.signal?.aborted) onAbort();
  if (o.forceKill?.aborted) onForceKill();
  // hang_action: kill stops the trial as a timeout does (SIGTERM to the group, SIGKILL after the grace).
  let killedForHang = false;
  o.tier2?.start(child.pid, () => {
    if (child.timedOut() || interrupted || child.exited()) return;
    killedForHang = true;
    child.cancelTimeout();
    child.stop('SIGTERM');
  });

  const pump = streamLog(o.logReader, child.exit, child.startedAt, scanner, o);
  pump.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled
  let exit: ChildExit;
  try {
    exit = await child.exit;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    o.forceKill?.removeEventListener('abort', onForceKill);
  }
  // An interrupt that raced the timeout: the worker's timeout fired first, so it counts as the timeout.
  const timedOut = exit.timedOut;
  if (timedOut) interrupted = false;
  await o.tier2?.stop();
  // A stopped trial's stragglers (children that ignored the gentle signal) do not outlive it.
  if (timedOut || interrupted || killedForHang) child.signalGroup('SIGKILL');
  await pump;
  return {
    exitCode: timedOut || killedForHang ? -1 : exit.exitCode,
    walltimeSec: micro(exit.walltimeSec),
    timedOut,
    interrupted,
    killedForHang,
    execError: null,
    startedMs,
    endedMs: exit.exitEpochMs,
  };
}

/** Tails the log into the scanner and the echo stream until the command has exited and the file is drained. */
async function streamLog(
  handle: FileHandle,
  exited: Promise<unknown>,
  startedAt: number,
  scanner: TrialLogScanner,
  o: ExecuteOptions,
): Promise<void> {
  let running = true;
  void exited.then(() => (running = false));
  // A terminal that goes away (EPIPE from `| head`) ends the echo, not the trial or its log.
  let echo = o.echo ?? null;
  const onEchoError = (): void => {
    echo = null;
  };
  o.echo?.on('error', onEchoError);
  try {
    for await (const chunk of tailFile(handle, { ended: exited })) {
      scanner.push(chunk);
      o.tier2?.push(chunk);
      if (echo !== null && !echo.destroyed) await writeWithBackpressure(echo, chunk);
      o.onProgress?.({ bytes: scanner.bytes, elapsedMs: now() - startedAt, running });
    }
  } finally {
    o.echo?.off('error', onEchoError);
  }
}

/** Rounded to 6 decimals (microseconds for seconds): the clock's noise digits say nothing. */
/** Durations are reported in ms to 3 decimals (µs): finer digits are noise. */
function micro(x: number): number {
  return Math.round(x * 1e3) / 1e3;
}

function writeWithBackpressure(stream: Writable, chunk: Buffer): Promise<void> {
  if (stream.write(chunk)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('error', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('error', done); // a broken terminal must not stop the trial's log
    stream.on('close', done);
  });
}
