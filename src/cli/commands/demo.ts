/**
 * `aorta-probe demo`: the tool's main job on the bundled example (fixtures/demo/, shipped with the package): check
 * a recipe, scan a log of a crashed run, and run a tiny trial script whose training loss goes NaN while it still
 * exits 0. It prints each step's command and verdict. Exit status 0 when the demo ran (its verdicts are `fail` by
 * design), 1 if the bundled files are missing or broken, 2 on a usage error or an unusable --out.
 */
import { createReadStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { scanStream } from '../../scan/index.js';
import { classifyLogScan, planLogScan } from '../../classifier/classify-log.js';
import { formatScan, scanJson } from './scan.js';
import { packageInfo } from '../../trial/package-info.js';
import { runTrial } from '../../trial/index.js';
import { loadRecipeFile } from '../recipe-file.js';
import { formatTrial, shownPath } from './run.js';
import { atMost, parseCommandArgs, UsageError, type OptionSpecs } from '../args.js';
import type { Command } from '../command.js';
import type { CommandIo } from '../io.js';
import { errorRecord, jsonLine, positionlessError } from '../json-output.js';
import { TrialOutputError } from '../../trial/output-error.js';
import { prepareOutDir } from '../../trial/out-files.js';

export const DEMO_USAGE = `Usage: aorta-probe demo [--json] [--quiet] [--out DIR]

Runs the bundled example (fixtures/demo/ in the package):
  1. checks fixtures/demo/recipe.yaml (three custom patterns: a NaN loss, the throughput, a slow run);
  2. scans fixtures/demo/train.log, the log of a run that crashed with a HIP out-of-memory error;
  3. runs 'node fixtures/demo/trial.mjs', a tiny training job whose loss goes NaN while it still
     exits 0, as a trial with that recipe (the same as 'aorta-probe run'), and prints its verdict.

  --json       One JSON object: {"recipe": {"file", "custom_patterns"}, "scan": {"log", ...the
               scan result}, "trial": {...result.json}, "result_json": str|null} (null when the
               trial's files were not kept).
  --quiet      Do not show the trial's own output.
  --out DIR    Where the trial writes output.log and result.json. Default: the demo's own
               directory in the user's cache, $XDG_CACHE_HOME/aorta-probe/demo (else
               ~/.cache/aorta-probe/demo), replaced by the next demo; where there is none,
               a temporary directory removed before the demo exits.
  -h, --help   Show this help and exit.

Examples:
  aorta-probe demo
  aorta-probe demo --json | jq .trial.verdict

Exit status: 0 when the demo ran (both verdicts are 'fail' by design), 1 when the bundled files
are missing or broken, 2 on a usage error or an --out that cannot be used. With --json, stdout
holds one JSON object (schemas/demo.schema.json), or {"error": {...}}.
`;

export interface DemoArgs {
  readonly help: boolean;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly out: string | null;
}

export const DEMO_OPTIONS = {
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  out: { type: 'string', metavar: 'DIR' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export function parseDemoArgs(args: readonly string[]): DemoArgs {
  const { values: v, positionals } = parseCommandArgs(args, DEMO_OPTIONS);
  const help = v.help === true;
  if (!help) atMost(positionals, 0, 'demo takes no arguments');
  if (v.out === '') throw new UsageError("option '--out' needs a value (--out DIR)");
  return { help, json: v.json === true, quiet: v.quiet === true, out: v.out ?? null };
}

export async function runDemo(args: DemoArgs, io: CommandIo): Promise<number> {
  // `aorta-probe demo | head`: a reader that goes away ends the display, quietly (no unhandled 'error' event).
  const ignore = (): void => {};
  io.stdout.on('error', ignore);
  try {
    return await demo(args, io);
  } finally {
    io.stdout.off('error', ignore);
  }
}

async function demo(args: DemoArgs, io: CommandIo): Promise<number> {
  const root = packageInfo().root;
  const dir = root === null ? null : join(root, 'fixtures', 'demo');
  const files =
    dir === null
      ? null
      : { recipe: join(dir, 'recipe.yaml'), log: join(dir, 'train.log'), trial: join(dir, 'trial.mjs') };
  if (files === null || !Object.values(files).every((f) => existsSync(f))) {
    const message = 'the bundled fixtures/demo/ files are missing from this installation';
    if (args.json) io.stdout.write(jsonLine({ error: positionlessError('ReadError', message, dir) }));
    io.stderr.write(`aorta-probe demo: ${message}\n`);
    return 1;
  }
  const recipePath = shownPath(files.recipe);
  const loaded = await loadRecipeFile(recipePath, 'demo', (t) => io.stderr.write(t));
  if ('failure' in loaded) {
    if (args.json) io.stdout.write(jsonLine({ error: errorRecord(loaded.error) }));
    return 1;
  }
  const recipe = loaded.recipe;
  const c = args.json ? null : io.stdoutPalette();
  const say = (text: string): void => {
    if (c !== null) io.stdout.write(text);
  };
  const n = recipe.customPatterns.length;
  say(
    `${c?.bold('1. Check the recipe') ?? ''}\n$ aorta-probe check ${recipePath}\n${recipePath}: valid (${n} custom pattern${n === 1 ? '' : 's'})\n\n`,
  );

  const logPath = shownPath(files.log);
  say(
    `${c?.bold('2. Scan the log of a run that crashed') ?? ''}\n$ aorta-probe scan --recipe ${recipePath} ${logPath}\n`,
  );
  // Classified as `aorta-probe scan` classifies it (the recipe's disables, Tier 1 from the exit code).
  const vars = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };
  const plan = planLogScan(recipe);
  const scan = classifyLogScan(plan, await scanStream(plan.scanRecipe, createReadStream(files.log), vars), vars);
  if (c !== null) say(`${formatScan(logPath, scan, c)}\n`);

  const trialPath = shownPath(files.trial);
  say(
    `${c?.bold('3. Run a trial: a training job whose loss goes NaN, and which still exits 0') ?? ''}\n` +
      `$ aorta-probe run --recipe ${recipePath} -- node ${trialPath}\n`,
  );
  // Without --out the trial's files go to the demo's directory in the user's cache, kept (the summary names them)
  // and replaced by the next demo: never into the current directory, never a new directory per run. Where there is
  // no usable cache directory, to a temporary one that is removed again, and then no path into it is printed.
  const kept = args.out ?? demoCacheDir(io.env);
  const outDir = kept ?? mkdtempSync(join(tmpdir(), 'aorta-probe-demo-'));
  try {
    const echo = args.quiet ? null : args.json ? io.stderr : io.stdout;
    let outcome: Awaited<ReturnType<typeof runTrial>>;
    try {
      outcome = await runTrial(recipe, [process.execPath, files.trial], {
        outDir,
        echo,
        gpuTool: 'auto',
        env: io.env,
      });
    } catch (err) {
      // An --out that cannot be used: the invocation is wrong (2), as for `run`.
      if (!(err instanceof TrialOutputError)) throw err;
      if (args.json) io.stdout.write(jsonLine({ error: errorRecord(err) }));
      io.stderr.write(`aorta-probe demo: ${err.message}\n`);
      return 2;
    }
    // Without a GPU tool the summary already says "unavailable (no GPU tool)"; other sampler problems are worth a line.
    if (outcome.result.gpu.tool !== null)
      for (const w of outcome.result.gpu.warnings) io.stderr.write(`aorta-probe demo: warning: ${w}\n`);
    if (c === null) {
      io.stdout.write(
        `${JSON.stringify({
          recipe: { file: recipePath, custom_patterns: n },
          scan: scanJson(logPath, scan),
          trial: outcome.result,
          result_json: kept === null ? null : outcome.resultPath,
        })}\n`,
      );
    } else if (kept !== null) {
      say(formatTrial(outcome, c, echo === io.stdout));
      if (args.out === null)
        say(`(the demo's files are kept in ${shownPath(outDir)}, replaced by the next demo; choose with --out DIR)\n`);
    } else {
      // The files are about to be removed: name them, not a path into a directory that will not exist.
      say(formatTrial({ ...outcome, logPath: 'output.log', resultPath: 'result.json' }, c, echo === io.stdout));
      say('(output.log and result.json were in a temporary directory, removed again; keep them with --out DIR)\n');
    }
  } finally {
    if (kept === null) rmSync(outDir, { recursive: true, force: true });
  }
  return 0;
}

/**
 * The demo's directory in the user's cache (XDG: `$XDG_CACHE_HOME`, else `$HOME/.cache`; each must be absolute),
 * created when missing; null when there is none or it cannot be created.
 */
function demoCacheDir(env: NodeJS.ProcessEnv): string | null {
  const xdg = env['XDG_CACHE_HOME'];
  const home = env['HOME'];
  const cache =
    xdg !== undefined && isAbsolute(xdg) ? xdg : home !== undefined && isAbsolute(home) ? join(home, '.cache') : null;
  if (cache === null) return null;
  const dir = join(cache, 'aorta-probe', 'demo');
  try {
    prepareOutDir(dir);
  } catch (err) {
    if (err instanceof TrialOutputError) return null;
    throw err;
  }
  return dir;
}

export const command: Command<DemoArgs> = { name: 'demo', usage: DEMO_USAGE, parse: parseDemoArgs, run: runDemo };
