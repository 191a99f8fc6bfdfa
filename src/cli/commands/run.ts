/**
 * `aorta-probe run [--recipe R.yaml] [options] -- CMD [ARGS...]`: runs one trial (src/trial/) and prints its
 * verdict. The command's output is shown as it arrives (stdout in the human form; stderr with --format json|junit so
 * stdout holds exactly one document; stdout with --format github, framed so that the runner takes none of it for a
 * workflow command (stop-commands.ts); --quiet hides it), and kept in DIR/output.log next to DIR/result.json. Every
 * text we print that comes from the trial, its kernel log, its GPU tool or the recipe is made inert (text/inert.ts).
 *
 * Exit status: 0 pass, 1 fail, 2 usage error or unusable recipe, 3 verdict error (timeout, command could not
 * start), 128+N when stopped by signal N (130 for Ctrl-C; interrupt.ts), after the result has been written.
 */
import { parseNumber, parseWithCommand, pickFormat, pickOne, UsageError, type OptionSpecs } from '../args.js';
import { githubAnnotations } from '../../report/github.js';
import { junitXml } from '../../report/junit.js';
import { classifiedOf, detectorAnnotations, detectorLine, junitCase } from '../detector-report.js';
import { EXIT } from '../exit-status.js';
import { errorRecord, jsonLine } from '../json-output.js';
import { constants } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { strRepr } from '../../condition/repr.js';
import type { Recipe } from '../../recipe/index.js';
import { loadRecipeFile } from '../recipe-file.js';
import type { GpuToolChoice } from '../../gpu/index.js';
import {
  prepareOutDir,
  runTrial,
  TrialOptionsError,
  TrialOutputError,
  type TrialOutcome,
  type TrialResult,
} from '../../trial/index.js';
import { TIER_NAMES, unknownDetectorReason } from '../../detectors/catalogue.js';
import type { Command } from '../command.js';
import { listenForInterrupt, signalExitStatus } from '../interrupt.js';
import type { CommandIo } from '../io.js';
import { formatBytes, type Palette, paletteFor, ProgressLine } from '../tty.js';
import { writeQuietly } from '../writer.js';
import { holdYoungGeneration } from '../young-generation.js';
import { StopCommandsFrame } from '../stop-commands.js';
import { inertLine, inertLines } from '../../text/inert.js';
import { disableSet, isDisabled } from '../../classifier/classify.js';
import { tier2Keys, type HangNotice, type Tier2Keys } from '../../trial/index.js';
import type { HangReport } from '../../trial/tier2-hang.js';
import type { HangAction } from '../../recipe/types.js';
import { kernelEventLines } from '../../report/kernel-events.js';
import { conditionErrorsLine } from '../../scan/index.js';

export const RUN_USAGE = `Usage: aorta-probe run [--recipe RECIPE] [--out DIR] [--timeout SECONDS] [--format F] [--quiet]
                       [--gpu-tool auto|amd-smi|nvidia-smi|none] [--gpu-interval SECONDS] [--hang-window SECONDS]
                       [--hang-grace SECONDS] [--hang-action record|kill] [--disable-detector TIER[:ID]]... -- CMD [ARGS...]

Runs CMD with ARGS (no shell) as one trial and classifies it: Tier 1 (exit code, signals,
timeout, a command that cannot start), Tier 2 (a hang: two of no output, no I/O and an idle
GPU for the hang window), Tier 3 (the kernel log), the 7 built-in Tier 4 log patterns and the
recipe's custom_patterns (Tier 5), whose conditions see the trial's final exit_code, walltime_sec
and peak_vram_mib. The command's stdout and stderr are shown as they arrive and saved, interleaved
as written, to DIR/output.log; the record goes to DIR/result.json.

  --recipe RECIPE      A probe recipe or a bare custom_patterns: file (either may set the hang
                       keys). Without it: the built-in tiers only.
  --out DIR            Output directory (created if missing; output.log and result.json are
                       replaced). Default: probe_results/<UTC time>-<pid>.
  --timeout SECONDS    Stop the trial after SECONDS (SIGTERM to its process group, SIGKILL 10 s
                       later): exit_code -1, tier1:timeout, verdict error. Default: the recipe's
                       timeout_per_trial, else none: a detected hang is then recorded but
                       does not stop the trial (unless --hang-action kill); run says so on stderr.
  --hang-window SECONDS
                       Tier 2: how long two hang signals must hold (> 0). Default: the recipe's
                       hang_window_sec, else 30.
  --hang-grace SECONDS Tier 2: no hang before SECONDS after the start (>= 0). Default: the
                       recipe's hang_grace_period_at_start, else 60.
  --hang-action ACTION record: note the hang (a stderr line, tier2:hang) and let the trial run on;
                       kill: stop it as a timeout does. Default: the recipe's hang_action, else
                       record.
  --gpu-tool TOOL      Peak-VRAM sampler: auto (amd-smi, else nvidia-smi, else none), amd-smi,
                       nvidia-smi or none. Default: auto.
  --gpu-interval SECONDS
                       Sampling interval. Default: 1.
  --format FORMAT      text (default); json: result.json's object on one line
                       (schemas/result.schema.json); junit: JUnit XML, one testcase for the trial;
                       github: GitHub Actions annotations. With json or junit the command's
                       output goes to stderr, so stdout holds only the document; with github it
                       stays on stdout between '::stop-commands::TOKEN' and '::TOKEN::' (TOKEN
                       random), so the runner reads no workflow command from it.
  --json               The same as --format json.
  --disable-detector TIER[:ID]
                       Turn off a tier (tier1..tier5) or one detector (tier2:hang, custom:ID);
                       repeatable, united with the recipe's disable_detectors and
                       disable_detector_tiers.
  --quiet              Do not show the command's output (it is still saved).
  -h, --help           Show this help and exit.

Everything after '--' is the command, passed as it is.

Examples:
  aorta-probe run --recipe recipe.yaml -- python train.py --steps 100
  aorta-probe run --timeout 600 --out runs/a1 -- ./bench.sh
  aorta-probe run --recipe recipe.yaml --json --quiet -- ./job | jq .verdict

Ctrl-C stops the trial (SIGINT to its process group; a second Ctrl-C sends SIGKILL) and still
writes result.json (tier1:interrupted, verdict error unless something failed).

Exit status: 0 pass, 1 fail, 2 usage error or invalid recipe, 3 verdict error,
130 interrupted by Ctrl-C (128+N for signal N); a recipe's exit_codes: map may choose
other statuses for a fail or an error (docs/classifier.md).
`;

export interface RunArgs {
  readonly help: boolean;
  readonly recipe: string | null;
  readonly out: string | null;
  readonly timeoutSec: number | null;
  /** json and junit also move the command's echo to stderr (stdout holds only the document); github frames it. */
  readonly format: RunFormat;
  readonly quiet: boolean;
  readonly gpuTool: GpuToolChoice;
  readonly gpuIntervalMs: number | undefined;
  readonly argv: readonly string[];
  /** --disable-detector TIER[:ID], in the order given. */
  readonly disableDetectors: readonly string[];
  /** --hang-window, --hang-grace, --hang-action: over the recipe's hang keys. */
  readonly hang: Partial<Pick<Tier2Keys, 'hangWindowSec' | 'hangGracePeriodAtStart' | 'hangAction'>>;
}

const GPU_TOOLS: readonly GpuToolChoice[] = ['auto', 'amd-smi', 'nvidia-smi', 'none'];
export const RUN_FORMATS = ['text', 'json', 'junit', 'github'] as const;
export type RunFormat = (typeof RUN_FORMATS)[number];
export const RUN_OPTIONS = {
  recipe: { type: 'string', metavar: 'RECIPE' },
  out: { type: 'string', metavar: 'DIR' },
  timeout: { type: 'string', metavar: 'SECONDS' },
  'gpu-tool': { type: 'string', metavar: 'TOOL' },
  'gpu-interval': { type: 'string', metavar: 'SECONDS' },
  format: { type: 'string', metavar: 'FORMAT' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  'disable-detector': { type: 'string', multiple: true, metavar: 'TIER[:ID]' },
  'hang-window': { type: 'string', metavar: 'SECONDS' },
  'hang-grace': { type: 'string', metavar: 'SECONDS' },
  'hang-action': { type: 'string', metavar: 'ACTION' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

function positiveSeconds(name: string, value: string): number {
  return parseNumber(name, value, { positive: true, unit: 'seconds' });
}

export function parseRunArgs(args: readonly string[]): RunArgs {
  const parsed = parseWithCommand(args, RUN_OPTIONS);
  if (parsed === null) {
    return {
      help: true,
      recipe: null,
      out: null,
      timeoutSec: null,
      format: 'text',
      quiet: false,
      gpuTool: 'auto',
      gpuIntervalMs: undefined,
      argv: [],
      disableDetectors: [],
      hang: {},
    };
  }
  const v = parsed.values;
  return {
    help: false,
    recipe: v.recipe ?? null,
    out: v.out ?? null,
    disableDetectors: v['disable-detector'] ?? [],
    timeoutSec: v.timeout === undefined ? null : positiveSeconds('--timeout', v.timeout),
    format: pickFormat(RUN_FORMATS, v.format, v.json),
    quiet: v.quiet === true,
    gpuTool: pickOne('--gpu-tool', GPU_TOOLS, v['gpu-tool'] ?? 'auto'),
    gpuIntervalMs:
      v['gpu-interval'] === undefined
        ? undefined
        : Math.round(positiveSeconds('--gpu-interval', v['gpu-interval']) * 1000),
    argv: parsed.command,
    hang: parseHangOptions(v['hang-window'], v['hang-grace'], v['hang-action']),
  };
}

/** The recipe's rules for its hang keys: a window > 0, a grace >= 0, an action of HANG_ACTIONS. */
function parseHangOptions(window: string | undefined, grace: string | undefined, action: string | undefined) {
  const hang: { hangWindowSec?: number; hangGracePeriodAtStart?: number; hangAction?: HangAction } = {};
  if (window !== undefined) hang.hangWindowSec = positiveSeconds('--hang-window', window);
  if (grace !== undefined)
    hang.hangGracePeriodAtStart = parseNumber('--hang-grace', grace, { min: 0, unit: 'seconds' });
  if (action !== undefined) hang.hangAction = pickOne('--hang-action', ['record', 'kill'] as const, action);
  return hang;
}

/** The signals that held at a hang, as a user reads them: "no output 30 s, GPU idle, no I/O". */
export function hangSignalsText(h: Pick<HangReport, 'signals' | 'output_signal' | 'window_sec'>): string {
  const s = h.signals;
  const parts: string[] = [];
  if (s?.output_silent)
    parts.push(`${h.output_signal === 'progress' ? 'no progress line' : 'no output'} ${h.window_sec} s`);
  if (s?.gpu_idle) parts.push('GPU idle');
  if (s?.io_idle) parts.push('no I/O');
  return parts.join(', ');
}

/** `aorta-probe: hang detected at 61.8 s (no output 30 s, GPU idle, no I/O)`, printed when Tier 2 latches. */
export function hangDetectedLine(h: HangNotice): string {
  const at = (h.detected_after_sec ?? 0).toFixed(1);
  const then = h.action === 'kill' ? ': stopping the trial (hang_action: kill)' : '';
  return `aorta-probe: hang detected at ${at} s (${hangSignalsText(h)})${then}\n`;
}

/** Said once at the start when nothing would end a hung trial: no timeout, Tier 2 on, hang_action record. */
export const NO_TIMEOUT_NOTICE =
  'aorta-probe: no --timeout: a detected hang is recorded (hang_action: record) but will not stop the trial\n';

function defaultOutDir(): string {
  const t = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return join('probe_results', `${t}-${process.pid}`);
}

export async function runRunCommand(args: RunArgs, io: CommandIo): Promise<number> {
  let recipe: Recipe | null = null;
  if (args.recipe !== null) {
    const loaded = await loadRecipeFile(args.recipe, 'run', (t) => io.stderr.write(inertLines(t)), io.stdin);
    if ('failure' in loaded) {
      if (args.format === 'json') await writeQuietly(io.stdout, jsonLine({ error: errorRecord(loaded.error) }));
      return EXIT.usage;
    }
    recipe = loaded.recipe;
  }
  // A command that cannot start its trial: the one message on stderr, and with --json the error object too.
  const refuse = async (err: UsageError | TrialOutputError | TrialOptionsError): Promise<number> => {
    await writeQuietly(io.stderr, `aorta-probe run: ${inertLine(err.message)}\n`);
    if (args.format === 'json') await writeQuietly(io.stdout, jsonLine({ error: errorRecord(err) }));
    return EXIT.usage;
  };
  const disableProblem = disableDetectorProblem(args.disableDetectors, recipe);
  if (disableProblem !== null) return refuse(new UsageError(disableProblem));
  // A job that hangs with no timeout and hang_action record runs until someone stops it: say so once, up front.
  const hangKeys = tier2Keys(recipe, args.hang);
  const tier2On = !isDisabled(disableSet(recipe, args.disableDetectors), 'tier2:hang');
  const timeoutSec = args.timeoutSec ?? recipe?.timeoutPerTrial ?? null;
  const outDir = args.out ?? defaultOutDir();
  // Before the trial's clock starts, so that an unusable --out is found before anything runs.
  try {
    prepareOutDir(outDir);
  } catch (err) {
    if (err instanceof TrialOutputError) return refuse(err);
    throw err;
  }
  const env = io.env;
  // The runner reads workflow commands from every line; the trial's must not count as ours.
  const frame = args.format === 'github' && !args.quiet ? new StopCommandsFrame(io.stdout) : null;
  const echo = args.quiet
    ? null
    : (frame?.echo ?? (args.format === 'json' || args.format === 'junit' ? io.stderr : io.stdout));
  const progressTo = args.quiet ? io.progressStream() : null;
  const progress = progressTo === null ? null : new ProgressLine(progressTo);
  if (tier2On && timeoutSec === null && hangKeys.hangAction === 'record') io.stderr.write(NO_TIMEOUT_NOTICE);

  // Ctrl-C (or a TERM) reaches only us — the trial runs in its own session — so forward it; a second one kills.
  const interruption = listenForInterrupt((signal) => {
    progress?.clear();
    io.stderr.write(
      `aorta-probe run: ${signal}: stopping the trial${signal === 'SIGINT' ? ' (Ctrl-C again to kill it)' : ''}\n`,
    );
  });
  let outcome: TrialOutcome;
  try {
    if (io.ownProcess) holdYoungGeneration();
    outcome = await runTrial(recipe, args.argv, {
      outDir,
      timeoutSec: args.timeoutSec,
      echo,
      gpuTool: args.gpuTool,
      gpuIntervalMs: args.gpuIntervalMs,
      env,
      runnerEnv: env,
      signal: interruption.signal,
      forceKill: interruption.forceKill,
      disableDetectors: args.disableDetectors,
      hang: args.hang,
      onHang: (h) => {
        progress?.clear();
        io.stderr.write(hangDetectedLine(h));
      },
      onProgress:
        progress === null
          ? undefined
          : (p) =>
              progress.update(
                p.elapsedMs,
                () =>
                  `${p.running ? 'running' : 'reading the rest of the log'} ${(p.elapsedMs / 1000).toFixed(1)} s · log ${formatBytes(p.bytes)} · ${formatBytes(Math.round(p.bytes / Math.max(p.elapsedMs / 1000, 0.001)))}/s`,
              ),
    });
  } catch (err) {
    // An unusable --out is a usage error found before the trial started; failing to write afterwards is an I/O
    // error (exit 3), never the "fail" status.
    if (err instanceof TrialOutputError && !err.beforeStart) {
      await writeQuietly(io.stderr, `aorta-probe run: ${inertLine(err.message)}\n`);
      if (args.format === 'json') await writeQuietly(io.stdout, jsonLine({ error: errorRecord(err) }));
      return EXIT.error;
    }
    if (err instanceof TrialOutputError || err instanceof TrialOptionsError) return refuse(err);
    throw err;
  } finally {
    interruption.dispose();
    progress?.clear();
    await frame?.close(); // before anything of ours is printed: our annotations come after the resume line
  }
  const { result } = outcome;
  // With --gpu-tool auto on a host without a GPU tool, the summary's "unavailable (no GPU tool)" says it all.
  if (result.gpu.tool !== null || args.gpuTool !== 'auto') {
    for (const w of result.gpu.warnings) await writeQuietly(io.stderr, `aorta-probe run: warning: ${inertLine(w)}\n`);
  }
  // The result is on disk already; a reader that went away (EPIPE) does not change the exit status.
  await writeQuietly(
    io.stdout,
    formatOutcome(args.format, outcome, io.stdoutPalette(), echo === io.stdout && result.log.bytes > 0),
  );
  const stoppedBy = interruption.stoppedBy();
  if (result.interrupted && stoppedBy !== null) return signalExitStatus(stoppedBy);
  return result.exit_status.status;
}

/** The trial in `format` (result.json's object for json). */
export function formatOutcome(format: RunFormat, outcome: TrialOutcome, c: Palette, separate: boolean): string {
  const r = outcome.result;
  const log = shownPath(outcome.logPath);
  const classified = classifiedOf(log, r, r.walltime_sec);
  switch (format) {
    case 'json':
      return `${JSON.stringify(r)}\n`;
    case 'junit':
      return junitXml({
        name: 'aorta-probe run',
        timestamp: r.started_at,
        cases: [
          junitCase(classified, r.argv.join(' '), 'aorta-probe.run', formatTrial(outcome, paletteFor(null), false)),
        ],
      });
    case 'github':
      return githubAnnotations(detectorAnnotations(classified, log));
    case 'text':
      return formatTrial(outcome, c, separate);
  }
}

/** `exit_code` with the signal's name when it is one (-11 → "-11 (SIGSEGV)"). */
export function describeExitCode(
  r: Pick<TrialResult, 'exit_code' | 'timed_out' | 'exec_error'> & { hang?: TrialResult['hang'] },
): string {
  if (r.timed_out) return `${r.exit_code} (timed out)`;
  if (r.hang?.killed === true) return `${r.exit_code} (killed: hang)`;
  if (r.exec_error !== null) return `${r.exit_code} (${r.exec_error})`;
  if (r.exit_code < 0) {
    const name = Object.entries(constants.signals).find(([, n]) => n === -r.exit_code)?.[0];
    if (name !== undefined) return `${r.exit_code} (${name})`;
  }
  return String(r.exit_code);
}

function describeVram(r: TrialResult): string {
  if (r.peak_vram_mib === null)
    return r.gpu.tool === null ? 'unavailable (no GPU tool)' : `unavailable (${r.gpu.tool}: no sample)`;
  const how =
    r.gpu.attribution === 'process' ? "the trial's processes" : 'device use minus the baseline before the start';
  return `${r.peak_vram_mib} MiB (${r.gpu.tool}, ${how}, ${r.gpu.samples} samples)`;
}

/** A path as the user would type it: relative to the current directory when inside it. */
export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** Tier 2 and 3 lines, only when they have something to say. */
function describeTiers23(r: TrialResult): string {
  let out = '';
  const h = r.hang;
  if (h?.detected) {
    const what = h.killed
      ? 'the trial was stopped (hang_action: kill)'
      : h.reconciled
        ? 'recorded, then dropped: the trial exited 0 (reconciled)'
        : 'recorded (tier2:hang); the trial was not stopped';
    out += `hang: detected at ${(h.detected_after_sec ?? 0).toFixed(1)} s (${hangSignalsText(h)}): ${what}\n`;
  }

  // A reason quotes the tool's own error line, which is the kernel tool's (or a replaced one's) text.
  for (const reason of (r.tier3?.disabled_reasons ?? []).filter((x) => x.startsWith('kernel log')))
    out += `tier3: not checked: ${inertLine(reason)}\n`;
  if (r.exit_status.reason !== 'default')
    out += `exit status: ${r.exit_status.status} (exit_codes: ${inertLine(r.exit_status.reason)})\n`;
  return out;
}

/**
 * The human summary of a trial. `separate`: a blank line first, after the command's own output. Text from the
 * trial or the recipe (matches, ids, the exec error) is made inert; captures are reprs already.
 */
export function formatTrial(outcome: TrialOutcome, c: Palette, separate = false): string {
  const r = outcome.result;
  const verdictColour = r.verdict === 'pass' ? c.green : r.verdict === 'fail' ? c.red : c.yellow;
  const list = (ids: readonly string[], colour: (s: string) => string): string =>
    ids.length === 0 ? '(none)' : ids.map((id) => colour(inertLine(id))).join(', ');
  const capture = Object.entries(r.capture).map(([k, v]) => `${strRepr(k)}: ${strRepr(v)}`);
  const log = shownPath(outcome.logPath);
  return (
    (separate ? '\n' : '') +
    r.detectors.map((d) => detectorLine(log, d, c)).join('') +
    r.condition_errors.map((e) => `${c.yellow(inertLine(conditionErrorsLine(e, log)))}\n`).join('') +
    kernelEventLines(r.tier3?.events ?? []) +
    `verdict: ${c.bold(verdictColour(r.verdict))}\n` +
    `exit code: ${inertLine(describeExitCode(r))}\n` +
    `walltime: ${r.walltime_sec.toFixed(3)} s\n` +
    `peak VRAM: ${describeVram(r)}\n` +
    `failure detectors: ${list(r.failure_detectors_fired, c.red)}\n` +
    `error detectors: ${list(r.error_detectors_fired, c.yellow)}\n` +
    `warn detectors: ${list(r.warn_detectors_fired, c.yellow)}\n` +
    `capture: {${capture.join(', ')}}\n` +
    describeTiers23(r) +
    `log: ${inertLine(log)} (${formatBytes(r.log.bytes)})\n` +
    `result: ${inertLine(shownPath(outcome.resultPath))}\n`
  );
}

export const command: Command<RunArgs> = { name: 'run', usage: RUN_USAGE, parse: parseRunArgs, run: runRunCommand };

/**
 * The first `--disable-detector` token that names neither a tier nor a detector, as the usage error's message, or
 * null. Checked against the recipe: a custom:ID must name one of its patterns (`sweep --disable-detector` too).
 */
export function disableDetectorProblem(tokens: readonly string[], recipe: Recipe | null): string | null {
  for (const token of tokens) {
    if ((TIER_NAMES as readonly string[]).includes(token)) continue;
    const reason = unknownDetectorReason(token, recipe?.customPatterns.map((p) => p.id) ?? []);
    if (reason !== null) return `--disable-detector: ${reason}`;
  }
  return null;
}
