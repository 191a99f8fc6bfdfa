/**
 * `aorta-probe scan [--recipe R.yaml] LOG [--exit-code N] [--walltime S] [--peak-vram M] [--format F]`
 * classifies a trial log (streamed from a file, or stdin for '-') with the Tier 4 catalogue and
 * the recipe's custom patterns.
 *
 * Exit status (exit-status.ts): 0 pass, 1 fail, 2 usage error, unreadable log or a recipe that does not load,
 * 3 verdict error (an engine failure) or an I/O failure.
 */
import { formatBytes, NO_PALETTE, ProgressLine } from '../tty.js';
import { strRepr } from '../../condition/repr.js';
import { inertLine, inertLines } from '../../text/inert.js';
import type { Recipe } from '../../recipe/index.js';
import { githubAnnotations } from '../../report/github.js';
import { junitXml } from '../../report/junit.js';
import { atMost, parseCommandArgs, parseNumber, pickFormat, UsageError, type OptionSpecs } from '../args.js';
import type { Command } from '../command.js';
import { classifiedOf, detectorAnnotations, detectorLine, junitCase } from '../detector-report.js';
import { EXIT, verdictExit } from '../exit-status.js';
import type { CommandIo } from '../io.js';
import { errorRecord, jsonLine, ReadError, roundMs } from '../json-output.js';
import { readRecipe } from '../recipe-file.js';
import { conditionErrorsLine, scanStream, type ByteSource, type ScanResult, type ScanVars } from '../../scan/index.js';
import { openFileChunks } from '../../scan/file.js';
import { now } from '../../scan/clock.js';
import { classifyLogScan, planLogScan, type ClassifiedLog } from '../../classifier/classify-log.js';

export const SCAN_USAGE = `Usage: aorta-probe scan [--recipe RECIPE] LOG [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]
                        [--format text|json|junit|github]

Scans LOG (a file, or '-' for stdin; read as a stream in bounded memory, invalid UTF-8 read as
U+FFFD) with the 7 built-in Tier 4 patterns and, with --recipe, the recipe's custom_patterns.
A custom pattern fires at the first match in log order whose condition holds; its condition
sees the variables below. Prints where each detector fired (LOG:LINE: ID — match), the
verdict, the detectors that fired and the merged captures.

  --recipe RECIPE      A probe recipe or a bare custom_patterns: file ('-': stdin), checked as
                       'check' does.
  --exit-code N        The trial's exit code, an integer (-N: killed by signal N), as 'run' reads
                       it: Tier 1 (non-zero: tier1:exit_nonzero; -6/-7/-11: tier1:sigabrt/
                       sigbus/sigsegv) and exit_code for conditions. Default: 0.
  --walltime SECONDS   walltime_sec for conditions. Default: 0.0.
  --peak-vram MIB      peak_vram_mib for conditions, an integer. Default: unavailable (0).
  --format FORMAT      text (default), json (one object, schemas/scan.schema.json), junit (JUnit
                       XML: one testcase for LOG) or github (GitHub Actions annotations).
  --threads N          1 (default) or 2: with 2, a LOG file of 16 MiB or more whose patterns are
                       all line-local is scanned on two threads (same result; for ~2x the peak
                       memory, ~20% less wall time on a 1 GiB log with a pattern matching every
                       line, none on one whose lines the literal prefilter skips).
  --json               The same as --format json.
  -h, --help           Show this help and exit.

Exit status: 0 pass, 1 fail, 2 usage error, unreadable LOG or a recipe that does not load,
3 verdict error (the regex engine could not match a pattern: meta:regex_engine_failure) or an
I/O failure.

Examples:
  aorta-probe scan fixtures/logs/hip_error.txt
  aorta-probe scan --recipe fixtures/demo/recipe.yaml --exit-code 0 fixtures/demo/train.log
  some-job 2>&1 | aorta-probe scan --recipe recipe.yaml --json -
`;

export const SCAN_FORMATS = ['text', 'json', 'junit', 'github'] as const;
export type ScanFormat = (typeof SCAN_FORMATS)[number];

export const SCAN_OPTIONS = {
  recipe: { type: 'string', metavar: 'RECIPE' },
  'exit-code': { type: 'string', metavar: 'N' },
  walltime: { type: 'string', metavar: 'SECONDS' },
  'peak-vram': { type: 'string', metavar: 'MIB' },
  format: { type: 'string', metavar: 'FORMAT' },
  threads: { type: 'string', metavar: 'N' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export interface ScanArgs {
  help: boolean;
  recipe: string | null;
  log: string;
  vars: ScanVars;
  format: ScanFormat;
  /** --threads, or null for the default (src/scan/split-threads.ts). */
  threads: number | null;
}

export function parseScanArgs(args: readonly string[]): ScanArgs {
  const { values: v, positionals } = parseCommandArgs(args, SCAN_OPTIONS);
  const format = pickFormat(SCAN_FORMATS, v.format, v.json);
  const vars: ScanVars = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };
  if (v.help === true) return { help: true, recipe: null, log: '', vars, format, threads: null };
  atMost(positionals, 1, 'scan takes one LOG');
  const log = positionals[0];
  if (log === undefined) throw new UsageError('missing LOG (a file, or - for stdin)');
  if (v['exit-code'] !== undefined) vars.exit_code = parseNumber('--exit-code', v['exit-code'], { integer: true });
  if (v.walltime !== undefined) vars.walltime_sec = parseNumber('--walltime', v.walltime, { unit: 'seconds' });
  if (v['peak-vram'] !== undefined) vars.peak_vram_mib = parseNumber('--peak-vram', v['peak-vram'], { integer: true });
  if (v.recipe === '-' && log === '-') throw new UsageError('--recipe - and LOG - cannot both read stdin');
  const threads =
    v.threads === undefined ? null : parseNumber('--threads', v.threads, { integer: true, min: 1, max: 2 });
  return { help: false, recipe: v.recipe ?? null, log, vars, format, threads };
}

/** `ETA 1m 05s`. */
function formatEta(sec: number): string {
  const s = Math.max(0, Math.round(sec));
  return s >= 60 ? `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * The progress text: bytes so far, and with a known size the percentage and ETA; always the rate. Pure, for tests.
 */
export function progressText(bytes: number, ms: number, total: number | null): string {
  const rate = bytes / Math.max(ms / 1000, 0.001);
  if (total === null || total <= 0) return `scanned ${formatBytes(bytes)} · ${formatBytes(Math.round(rate))}/s`;
  const pct = Math.min(100, (100 * bytes) / total);
  const eta = rate > 0 ? (total - bytes) / rate : 0;
  return `scanned ${formatBytes(bytes)} of ${formatBytes(total)} (${pct.toFixed(0)}%) · ${formatBytes(Math.round(rate))}/s · ETA ${formatEta(eta)}`;
}

/** Redraws the progress line from a byte count (at most 4 times a second, after 1 s); null without a line. */
function progressCallback(line: ProgressLine | null, total: number): ((bytes: number) => void) | null {
  if (line === null) return null;
  const t0 = now();
  return (bytes) => {
    const ms = now() - t0;
    line.update(ms, () => progressText(bytes, ms, total));
  };
}

/** Counts the bytes passing through and redraws the progress line (at most 4 times a second, after 1 s). */
async function* withProgress(
  source: ByteSource,
  line: ProgressLine,
  total: number | null,
): AsyncGenerator<Uint8Array | string> {
  const t0 = now();
  let bytes = 0;
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    bytes += chunk.length;
    const ms = now() - t0;
    line.update(ms, () => progressText(bytes, ms, total));
    yield chunk;
  }
}

/** The JSON object of a scan (schemas/scan.schema.json). */
export function scanJson(log: string, r: ClassifiedLog): object {
  return {
    log,
    verdict: r.verdict,
    failure_detectors_fired: r.failure_detectors_fired,
    error_detectors_fired: r.error_detectors_fired,
    warn_detectors_fired: r.warn_detectors_fired,
    capture: r.capture,
    detectors: r.detectors,
    engine_failures: r.engine_failures,
    condition_errors: r.condition_errors,
    tier_durations_ms: { tier4: roundMs(r.tier_durations_ms.tier4), tier5: roundMs(r.tier_durations_ms.tier5) },
  };
}

/**
 * The second thread's entry in the bin's bundle: src/scan/split-worker.ts, bundled as scan-part-worker.cjs beside
 * the bin's chunks (scripts/bundle-cli.mjs), of which this module is one. Two threads run only in the bin's own
 * process (`ownProcess`), so only the bundle's layout matters.
 */
const SPLIT_WORKER_URL = new URL('./scan-part-worker.cjs', import.meta.url);

/** Below this a scan leaves the young generation alone (young-generation.ts); stdin, of unknown size, holds it. */
const HOLD_YOUNG_MIN_BYTES = 16 * 1024 * 1024;

const shownLog = (log: string): string => (log === '-' ? '<stdin>' : log);

export async function runScan(args: ScanArgs, io: CommandIo): Promise<number> {
  const fail = async (err: unknown, code: number): Promise<number> => {
    if (args.format === 'json') await io.writeOut(jsonLine({ log: args.log, error: errorRecord(err) }));
    // A recipe's error quotes its source (line and caret), a read error the path: inert, as every text output.
    await io.writeErr(
      inertLines(err instanceof ReadError ? `aorta-probe scan: ${err.message}\n` : `${(err as Error).message}\n`),
    );
    return code;
  };
  let recipe: Recipe | null = null;
  if (args.recipe !== null) {
    try {
      recipe = await readRecipe(args.recipe, args.recipe === '-' ? io.stdin : undefined);
    } catch (e) {
      return fail(e, EXIT.usage);
    }
  }
  let source: ByteSource;
  let file: AsyncGenerator<Uint8Array> | null = null;
  let total: number | null = null;
  if (args.log === '-') source = io.stdin;
  else {
    // Opened first: "cannot open" is a usage problem, not a verdict.
    try {
      const opened = await openFileChunks(args.log);
      source = file = opened;
      total = opened.size;
    } catch (e) {
      return fail(new ReadError(args.log, e), EXIT.usage);
    }
  }
  const progressTo = io.progressStream();
  const progress = progressTo === null ? null : new ProgressLine(progressTo);
  const t0 = now();
  // Classified as `run` classifies a trial that printed LOG and exited with --exit-code (classify-log.ts).
  const plan = planLogScan(recipe);
  const scanRecipe = plan.scanRecipe;
  // A log this small never grows the young generation; not loading `node:v8` for it saves its cold start ~4 ms.
  if (io.ownProcess && (total === null || total >= HOLD_YOUNG_MIN_BYTES)) {
    (await import('../young-generation.js')).holdYoungGeneration();
  }
  let scanned: ScanResult | null = null;
  try {
    // Two threads only in the CLI's own process: the second is a worker thread of the bin's bundle. Imported
    // only then: its node:os and node:worker_threads cost a one-thread scan's cold start ~3 ms.
    if (io.ownProcess && file !== null && total !== null && (args.threads ?? 1) >= 2) {
      const [{ scanSplit }, { holdAgainAfterWorkerStart }] = await Promise.all([
        import('../../scan/split-threads.js'),
        import('../young-generation.js'),
      ]);
      scanned = await scanSplit(
        scanRecipe,
        args.log,
        total,
        args.vars,
        args.threads,
        progressCallback(progress, total),
        {
          url: SPLIT_WORKER_URL,
          onOnline: holdAgainAfterWorkerStart,
        },
      );
    }
    if (scanned !== null) await file?.return(undefined);
    else
      scanned = await scanStream(
        scanRecipe,
        progress === null ? source : withProgress(source, progress, total),
        args.vars,
      );
  } finally {
    progress?.clear();
  }
  const result = classifyLogScan(plan, scanned, args.vars);
  const seconds = (now() - t0) / 1000;
  const log = shownLog(args.log);
  const classified = classifiedOf(log, result, seconds);
  switch (args.format) {
    case 'json':
      await io.writeOut(jsonLine(scanJson(args.log, result)));
      break;
    case 'junit':
      await io.writeOut(
        junitXml({
          name: 'aorta-probe scan',
          timestamp: new Date().toISOString(),
          cases: [junitCase(classified, log, 'aorta-probe.scan', formatScan(log, result, NO_PALETTE))],
        }),
      );
      break;
    case 'github':
      await io.writeOut(githubAnnotations(detectorAnnotations(classified, args.log === '-' ? undefined : args.log)));
      break;
    case 'text':
      await io.writeOut(formatScan(log, result, io.stdoutPalette()));
  }
  return verdictExit(result.verdict);
}

/**
 * The human summary of a scan. Log- and recipe-derived text (matches, ids, engine-failure messages) is made inert
 * (text/inert.ts); captures are reprs already.
 */
export function formatScan(log: string, r: ClassifiedLog, c = NO_PALETTE): string {
  const list = (ids: readonly string[], colour: (s: string) => string): string =>
    ids.length === 0 ? '(none)' : ids.map((id) => colour(inertLine(id))).join(', ');
  const capture = Object.entries(r.capture).map(([k, v]) => `${strRepr(k)}: ${strRepr(v)}`);
  return (
    r.detectors.map((d) => detectorLine(log, d, c)).join('') +
    r.engine_failures.map((f) => `${inertLine(log)}:${f.line}: ${c.red(f.id)} — ${inertLine(f.message)}\n`).join('') +
    r.condition_errors.map((e) => `${c.yellow(inertLine(conditionErrorsLine(e, log)))}\n`).join('') +
    `verdict: ${c.bold(r.verdict === 'pass' ? c.green(r.verdict) : c.red(r.verdict))}\n` +
    `failure detectors: ${list(r.failure_detectors_fired, c.red)}\n` +
    (r.error_detectors_fired.length > 0 ? `error detectors: ${list(r.error_detectors_fired, c.red)}\n` : '') +
    `warn detectors: ${list(r.warn_detectors_fired, c.yellow)}\n` +
    `capture: {${capture.join(', ')}}\n`
  );
}

export const command: Command<ScanArgs> = { name: 'scan', usage: SCAN_USAGE, parse: parseScanArgs, run: runScan };
