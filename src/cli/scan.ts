/**
 * `aorta-probe scan [--recipe R.yaml] LOG [--exit-code N] [--walltime S] [--peak-vram M] [--json]`
 * classifies a trial log (streamed from a file, or stdin for '-') with the Tier 4 catalogue and
 * the recipe's custom patterns; `aorta-probe patterns [--json] [--version]` lists the catalogue.
 *
 * Exit status: scan 0 pass, 1 fail (or an invalid recipe); patterns 0; 2 usage error or an
 * unreadable file.
 */
import type { Readable, Writable } from 'node:stream';
import { formatBytes, ProgressLine } from './tty.js';
import { strRepr } from '../condition/repr.js';
import type { Recipe } from '../recipe/index.js';
import { loadRecipeFile } from './recipe-file.js';
import { BUILTIN_PATTERN_VERSION, TIER4_PATTERNS, scanStream, type ByteSource, type ScanResult, type ScanVars } from '../scan/index.js';
import { openFileChunks } from '../scan/file.js';
import { classify, disableSet, enabledPatterns, tierDisabled } from '../classifier/classify.js';

export const SCAN_USAGE = `Usage: aorta-probe scan [--recipe RECIPE] LOG [--exit-code N] [--walltime SECONDS] [--peak-vram MIB] [--json]

Scans LOG (a file, or '-' for stdin; read as a stream in bounded memory, invalid UTF-8 read as
U+FFFD) with the 7 built-in Tier 4 patterns and, with --recipe, the recipe's custom_patterns.
A custom pattern fires at the first match in log order whose condition holds; its condition
sees the variables below. Prints the verdict, the detectors that fired and the merged captures.

  --recipe RECIPE      A probe recipe or a bare custom_patterns: file (checked as 'check' does).
  --exit-code N        exit_code for conditions, an integer. Default: 0.
  --walltime SECONDS   walltime_sec for conditions. Default: 0.0.
  --peak-vram MIB      peak_vram_mib for conditions, an integer. Default: unavailable (0).
  --json               One JSON object: {"verdict", "failure_detectors_fired",
                       "warn_detectors_fired", "capture", "tier_durations_ms", "detectors"}
                       ("detectors": each fired id with its kind and category, who and
                       transient; see docs/classifier.md).
  -h, --help           Show this help and exit.

Exit status: 0 pass, 1 fail or an invalid recipe, 2 usage error or unreadable file.

Examples:
  aorta-probe scan fixtures/logs/hip_error.txt
  aorta-probe scan --recipe fixtures/demo/recipe.yaml --exit-code 0 fixtures/demo/train.log
  some-job 2>&1 | aorta-probe scan --recipe recipe.yaml --json -
`;

export const PATTERNS_USAGE = `Usage: aorta-probe patterns [--json] [--version]

Lists the built-in Tier 4 patterns in scan order: id, description, regex, flags and a sample line.
  --json       A JSON object {"version": str, "patterns": [{"id", "description", "regex",
               "flags", "sample"}]}.
  --version    Print only the catalogue version ("${BUILTIN_PATTERN_VERSION}").
  -h, --help   Show this help and exit.

Examples:
  aorta-probe patterns
  aorta-probe patterns --json
`;

export class ScanUsageError extends Error {}

export interface ScanArgs {
  help: boolean;
  recipe: string | null;
  log: string;
  vars: ScanVars;
  json: boolean;
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function parseScanArgs(args: readonly string[]): ScanArgs {
  let recipe: string | null = null;
  let log: string | undefined;
  let json = false;
  const vars: ScanVars = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };
  const seen = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h' || arg === '--help') return { help: true, recipe, log: '', vars, json };
    if (arg === '--json') {
      json = true;
      continue;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      if (log !== undefined) throw new ScanUsageError(`unexpected argument '${arg}'`);
      log = arg;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (!['--recipe', '--exit-code', '--walltime', '--peak-vram'].includes(name)) throw new ScanUsageError(`unknown option '${name}'`);
    if (seen.has(name)) throw new ScanUsageError(`${name} is given more than once`);
    seen.add(name);
    const value = eq !== -1 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new ScanUsageError(`option '${name}' needs a value`);
    if (name === '--recipe') recipe = value;
    else if (name === '--walltime') {
      if (!DECIMAL.test(value)) throw new ScanUsageError(`--walltime must be a finite number of seconds, got '${value}'`);
      vars.walltime_sec = Number(value);
    } else {
      const n = Number(value);
      if (!INTEGER.test(value) || !Number.isSafeInteger(n)) throw new ScanUsageError(`${name} must be an integer, got '${value}'`);
      if (name === '--exit-code') vars.exit_code = n;
      else vars.peak_vram_mib = n;
    }
  }
  if (log === undefined) throw new ScanUsageError('missing LOG (a file, or - for stdin)');
  return { help: false, recipe, log, vars, json };
}

export interface ScanIo {
  stdin: Readable;
  write(text: string): Promise<void>;
  writeError(text: string): Promise<void>;
  /** stderr, when it is a terminal: a progress line (bytes, bytes/s) is drawn there for a long scan. */
  progressTo?: Writable | null;
}

/** Counts the bytes passing through and redraws the progress line (at most 4 times a second, after 1 s). */
async function* withProgress(source: ByteSource, line: ProgressLine): AsyncGenerator<Uint8Array | string> {
  const t0 = performance.now();
  let bytes = 0;
  for await (const chunk of source as AsyncIterable<Uint8Array | string>) {
    bytes += typeof chunk === 'string' ? chunk.length : chunk.length;
    const ms = performance.now() - t0;
    line.update(ms, () => `scanned ${formatBytes(bytes)} · ${formatBytes(Math.round(bytes / Math.max(ms / 1000, 0.001)))}/s`);
    yield chunk;
  }
}

export async function runScan(args: ScanArgs, io: ScanIo): Promise<number> {
  let recipe: Recipe | null = null;
  if (args.recipe !== null) {
    const loaded = await loadRecipeFile(args.recipe, 'scan', io.writeError);
    if ('failure' in loaded) return loaded.failure === 'unreadable' ? 2 : 1;
    recipe = loaded.recipe;
  }
  let source: ByteSource;
  if (args.log === '-') source = io.stdin;
  else {
    // Opened first: "cannot open" is a usage problem, not a verdict.
    try {
      source = await openFileChunks(args.log);
    } catch (e) {
      await io.writeError(`aorta-probe scan: cannot read ${args.log}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const progress = io.progressTo ? new ProgressLine(io.progressTo) : null;
  // The recipe's disables apply as in a trial: disabled custom patterns are not scanned, disabled ids not listed.
  const disabled = disableSet(recipe);
  const scanRecipe = recipe === null ? null : { customPatterns: tierDisabled(disabled, 'tier5') ? [] : enabledPatterns(recipe.customPatterns, disabled) };
  let scanned: ScanResult;
  try {
    scanned = await scanStream(scanRecipe, progress === null ? source : withProgress(source, progress), args.vars);
  } finally {
    progress?.clear();
  }
  const c = classify({
    tier1: [], tier2: [], tier3: [], scanFailures: scanned.failure_detectors_fired, scanWarnings: scanned.warn_detectors_fired, disabled, launched: true, recipe,
  });
  const result = {
    ...scanned, verdict: c.verdict as ScanResult['verdict'], failure_detectors_fired: c.failures, warn_detectors_fired: c.warnings, detectors: c.detectors,
  };
  await io.write(args.json ? `${JSON.stringify(result)}\n` : formatScan(result));
  return result.verdict === 'pass' ? 0 : 1;
}

function formatScan(r: ScanResult): string {
  const list = (ids: readonly string[]): string => (ids.length === 0 ? '(none)' : ids.join(', '));
  const capture = Object.entries(r.capture).map(([k, v]) => `${strRepr(k)}: ${strRepr(v)}`);
  return (
    `verdict: ${r.verdict}\n` +
    `failure detectors: ${list(r.failure_detectors_fired)}\n` +
    `warn detectors: ${list(r.warn_detectors_fired)}\n` +
    `capture: {${capture.join(', ')}}\n`
  );
}

export function runPatterns(args: readonly string[]): { code: number; out: string; err: string } {
  let json = false;
  let version = false;
  for (const a of args) {
    if (a === '-h' || a === '--help') return { code: 0, out: PATTERNS_USAGE, err: '' };
    if (a === '--json') json = true;
    else if (a === '--version') version = true;
    else return { code: 2, out: '', err: `aorta-probe: patterns: unknown argument '${a}'\n\n${PATTERNS_USAGE}` };
  }
  if (version) return { code: 0, out: json ? `${JSON.stringify({ version: BUILTIN_PATTERN_VERSION })}\n` : `${BUILTIN_PATTERN_VERSION}\n`, err: '' };
  const rows = TIER4_PATTERNS.map((p) => ({ id: p.detectorId, description: p.description, regex: p.regex, flags: p.pythonFlags, sample: p.sample }));
  if (json) return { code: 0, out: `${JSON.stringify({ version: BUILTIN_PATTERN_VERSION, patterns: rows })}\n`, err: '' };
  let out = `Tier 4 built-in patterns, version ${BUILTIN_PATTERN_VERSION} (scan order):\n`;
  for (const r of rows) {
    out += `\n${r.id}\n  ${r.description}\n  regex:  ${r.regex}${r.flags.length > 0 ? `   (${r.flags.join(', ')})` : ''}\n  sample: ${r.sample}\n`;
  }
  return { code: 0, out, err: '' };
}
