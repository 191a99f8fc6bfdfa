/**
 * Argument dispatch for the `aorta-probe` command. Returns the exit status instead of exiting, so
 * the entry point (`main.ts`) stays a one-liner.
 *
 * Exit status: 0 success (also when the reader of stdout goes away early, e.g. `| head -1`),
 * 1 a rejected condition (EXPR form), an invalid recipe (check, scan) or a failing log (scan), an
 * I/O failure or an internal error, 2 a usage error. `run`: 0 pass, 1 fail, 2 usage error or
 * unusable recipe, 3 verdict error, 128+N stopped by signal N (see run-trial.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import type { ConditionVars } from '../condition/evaluate.js';
import type { EvalArgs } from './eval-expr.js';
import type { CheckArgs } from './check.js';
import type { ScanArgs } from './scan.js';
import type { RunArgs } from './run-trial.js';
import type { DemoArgs } from './demo.js';
import type { PlaygroundArgs } from './playground.js';
import type { SweepArgs } from './sweep.js';
import type { ReportArgs } from './report.js';
import { isTty } from './tty.js';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

const PROGRAM = 'aorta-probe';

export const USAGE = `Usage: ${PROGRAM} <command> [options]

Commands:
  eval EXPR [--capture NAME=VALUE]... [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]
                 Check one condition against the sandbox rules, evaluate it with the given
                 variables, and print its value, type and whether it fired.
  eval --jsonl   Read JSON Lines on stdin and write one JSON result line per input line
                 to stdout: each condition is checked, then evaluated with its line's
                 variables.
  check RECIPE [--json] [--strict]
                 Load a recipe with all of the loader's checks (schema, conditions, regexes
                 on RE2) and report the first error at its file:line:col; then lint it and
                 print warnings (conditions that can never fire); --strict fails on them.
  scan [--recipe RECIPE] LOG [--exit-code N] [--walltime SECONDS] [--peak-vram MIB] [--json]
                 Classify a trial log with the Tier 4 patterns and the recipe's
                 custom_patterns: verdict, detectors fired, captures.
  patterns [--json] [--version]
                 List the built-in Tier 4 patterns.
  run [--recipe RECIPE] [--out DIR] [--timeout SECONDS] [--json] [--quiet]
      [--gpu-tool TOOL] [--gpu-interval SECONDS] -- CMD [ARGS...]
                 Run CMD as a trial: stream and save its output, sample peak VRAM,
                 classify it (exit code, signals, timeout, log patterns), write
                 result.json. Exit 0 pass, 1 fail, 2 usage/recipe error, 3 error.
  sweep --recipe RECIPE --out DIR [--trials N] [--parallel K] [--gpus LIST] [--dry-run]
        [--emit slurm|k8s] -- CMD [ARGS...]
                 Run CMD over the recipe's cells (mitigation x diagnostic env bundles),
                 N trials each, K at a time, each on its own GPUs; retry, stop_after,
                 retain; or write a Slurm array script / Kubernetes Indexed Job instead.
  report DIR... [--format text|json|junit|markdown|html]
                 Aggregate result.json files per cell: verdicts, flaky cells, detectors,
                 wall time and peak VRAM.
  demo [--json] [--quiet]
                 Check, scan and run the bundled example (a training job that goes NaN).
  playground [--port N]
                 Serve the browser playground (live recipe diagnostics, log classification,
                 condition scratchpad) on localhost and print its URL.
See '${PROGRAM} <command> --help' for the details of each command.

Options:
  -h, --help     Show this help and exit.
  --version      Print the version and exit.
`;

const EVAL_SYNOPSIS = `Usage: ${PROGRAM} eval EXPR [--capture NAME=VALUE]... [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]
       ${PROGRAM} eval --jsonl
`;

/** Shown after an `eval` usage error: the synopsis and where the details are. */
export const EVAL_USAGE_SHORT = `${EVAL_SYNOPSIS}Run '${PROGRAM} eval --help' for the options and the output format.
`;

export const EVAL_USAGE = `${EVAL_SYNOPSIS}
With EXPR: checks the condition against the sandbox rules, evaluates it once and prints
  value: <Python repr of the value>
  type:  <Python type name>
  fired: yes|no
or, when evaluating raised an exception (which means the condition did not fire),
  error: <exception class, e.g. KeyError>
  fired: no
A rejected condition's SandboxError message goes to stderr instead (exit status 1).

  --capture NAME=VALUE   A named regex capture, capture['NAME'] == 'VALUE'. Repeatable; the
                         value may contain '='. Default: no captures.
  --exit-code N          exit_code, an integer (negative: killed by a signal). Default: 0.
  --walltime SECONDS     walltime_sec, a finite number. Default: 0.0.
  --peak-vram MIB        peak_vram_mib, an integer. Default: unavailable (null, which the
                         condition sees as 0).
Each option may be given once (--capture once per NAME), as '--exit-code 3' or '--exit-code=3'.
An expression that starts with '-' goes after '--', which ends the options.

With --jsonl: reads JSON Lines on stdin, one object per line:
  {"condition": str, "capture": {str: str}, "exit_code": int,
   "walltime_sec": number, "peak_vram_mib": int|null}
and writes exactly one JSON line per input line (blank lines included) to stdout, in order:
  {"valid": true, "fired": bool, "value": {"type": str, "repr": str}}
  {"valid": true, "fired": false, "error": "<exception class>"}
  {"valid": false, "error": {"type": "SandboxError", "node": str|null, "message": str,
                             "detail": str, "line": int, "col": int}}
  {"valid": false, "error": {"type": "InputError", "message": str, "line": <input line>, "col": 1}}
A SandboxError's line/col point into the condition; an InputError's line is the input line.

With --disasm: prints the bytecode EXPR compiles to, one instruction a line (index, stack
depth before it, opcode, argument, what the argument means); see docs/bytecode.md.

Options:
  --jsonl        JSON Lines in and out; takes no EXPR and no variable options.
  --disasm       Print EXPR's bytecode instead of evaluating it.
  -h, --help     Show this help and exit.

Exit status:
  EXPR form: 0 when the condition was evaluated (fired or not, exception or not),
    1 when it was rejected or on an internal error, 2 on a usage error.
  --jsonl form: 0 when the input was read to the end (rejected conditions and malformed
    lines are answered on stdout, not by the exit status), 1 on an I/O or internal error,
    2 on a usage error.

Examples:
  ${PROGRAM} eval "math.isnan(float(capture['loss']))" --capture loss=nan
  ${PROGRAM} eval "exit_code == 137 or exit_code == -9" --exit-code -9
  ${PROGRAM} eval --jsonl < fixtures/demo/conditions.jsonl
`;

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) return await usageError(io, 'missing command', USAGE);
    if (command === '-h' || command === '--help') {
      await writeAll(io.stdout, USAGE);
      return 0;
    }
    if (command === '--version') {
      if (rest.length > 0) return await usageError(io, `unexpected argument '${rest[0]}'`, USAGE);
      await writeAll(io.stdout, `${PROGRAM} ${packageVersion()}\n`);
      return 0;
    }
    if (command === 'eval') return await evalCommand(rest, io);
    if (command === 'check') return await checkCommand(rest, io);
    if (command === 'scan') return await scanCommand(rest, io);
    if (command === 'run') return await runCommand(rest, io);
    if (command === 'demo') return await demoCommand(rest, io);
    if (command === 'sweep') return await sweepCommand(rest, io);
    if (command === 'report') return await reportCommand(rest, io);
    if (command === 'playground') return await playgroundCommand(rest, io);
    if (command === 'patterns') {
      const r = (await import('./scan.js')).runPatterns(rest);
      if (r.out !== '') await writeAll(io.stdout, r.out);
      if (r.err !== '') await writeAll(io.stderr, r.err);
      return r.code;
    }
    if (command.startsWith('-')) return await usageError(io, `unknown option '${command}'`, USAGE);
    return await usageError(io, `unknown command '${command}'`, USAGE);
  } catch (err) {
    if (isEpipe(err)) return 0;
    await writeAll(io.stderr, `${PROGRAM}: ${describeIoError(err)}\n`).catch(() => {});
    return 1;
  }
}

async function evalCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { parseEvalArgs, UsageError } = await import('./eval-expr.js');
  let parsed: EvalArgs;
  try {
    parsed = parseEvalArgs(args);
  } catch (err) {
    if (err instanceof UsageError) return usageError(io, `eval: ${err.message}`, EVAL_USAGE_SHORT);
    throw err;
  }
  if (parsed.mode === 'help') {
    await writeAll(io.stdout, EVAL_USAGE);
    return 0;
  }
  if (parsed.mode === 'expr') return evalExpression(parsed.condition, parsed.vars, io);
  if (parsed.mode === 'disasm') return evalExpression(parsed.condition, null, io);

  const { evalJsonl } = await import('./eval-jsonl.js');
  const summary = await evalJsonl(io.stdin, io.stdout, {
    onInternalError: (err, line) => {
      io.stderr.write(`${PROGRAM}: internal error on input line ${line}: ${describeInternalError(err)}\n`);
    },
  });
  return summary.internalErrors > 0 ? 1 : 0;
}

/** What every subcommand but eval has in common: parse, a usage error (exit 2) or --help, then run. */
interface Subcommand<A extends { help: boolean }> {
  readonly name: string;
  readonly usage: string;
  readonly parse: (args: readonly string[]) => A;
  readonly usageError: new (message: string) => Error;
  readonly run: (parsed: A, io: CliIo) => Promise<number>;
}

async function runSubcommand<A extends { help: boolean }>(c: Subcommand<A>, args: readonly string[], io: CliIo): Promise<number> {
  let parsed: A;
  try {
    parsed = c.parse(args);
  } catch (err) {
    if (err instanceof c.usageError) return usageError(io, `${c.name}: ${err.message}`, c.usage);
    throw err;
  }
  if (parsed.help) {
    await writeAll(io.stdout, c.usage);
    return 0;
  }
  return c.run(parsed, io);
}

const textIo = (io: CliIo) => ({ write: (t: string) => writeAll(io.stdout, t), writeError: (t: string) => writeAll(io.stderr, t) });

// Each command's module is imported when that command runs: a process loads only what it uses (`eval` never
// loads re2-wasm, the trial runner or the playground server), which is most of a command's start-up time.
async function checkCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./check.js');
  return runSubcommand<CheckArgs>({ name: 'check', usage: m.CHECK_USAGE, parse: m.parseCheckArgs, usageError: m.CheckUsageError, run: (a) => m.runCheck(a, textIo(io)) }, args, io);
}

async function scanCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./scan.js');
  return runSubcommand<ScanArgs>({
    name: 'scan', usage: m.SCAN_USAGE, parse: m.parseScanArgs, usageError: m.ScanUsageError,
    run: (a) => m.runScan(a, { stdin: io.stdin, ...textIo(io), progressTo: isTty(io.stderr) ? io.stderr : null }),
  }, args, io);
}

async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./run-trial.js');
  return runSubcommand<RunArgs>({ name: 'run', usage: m.RUN_USAGE, parse: m.parseRunArgs, usageError: m.RunUsageError, run: (a) => m.runRunCommand(a, { stdout: io.stdout, stderr: io.stderr }) }, args, io);
}

async function sweepCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./sweep.js');
  return runSubcommand<SweepArgs>({ name: 'sweep', usage: m.SWEEP_USAGE, parse: m.parseSweepArgs, usageError: m.SweepUsageError, run: (a) => m.runSweepCommand(a, { stdout: io.stdout, stderr: io.stderr }) }, args, io);
}

async function reportCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./report.js');
  return runSubcommand<ReportArgs>({ name: 'report', usage: m.REPORT_USAGE, parse: m.parseReportArgs, usageError: m.ReportUsageError, run: (a) => m.runReportCommand(a, { stdout: io.stdout, stderr: io.stderr }) }, args, io);
}

async function demoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./demo.js');
  return runSubcommand<DemoArgs>({ name: 'demo', usage: m.DEMO_USAGE, parse: m.parseDemoArgs, usageError: m.DemoUsageError, run: (a) => m.runDemo(a, { stdout: io.stdout, stderr: io.stderr }) }, args, io);
}

async function playgroundCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./playground.js');
  return runSubcommand<PlaygroundArgs>({ name: 'playground', usage: m.PLAYGROUND_USAGE, parse: m.parsePlaygroundArgs, usageError: m.PlaygroundUsageError, run: (a) => m.runPlayground(a, textIo(io)) }, args, io);
}

/**
 * The EXPR form (or with `vars` null, --disasm): 0 evaluated (fired or not) or listed, 1 rejected
 * (message on stderr) or an internal error.
 */
async function evalExpression(condition: string, vars: ConditionVars | null, io: CliIo): Promise<number> {
  const [{ compileCondition }, { SandboxError }, { formatDetailed }, { disassemble }] = await Promise.all([
    import('../condition/evaluate.js'), import('../condition/errors.js'), import('./eval-expr.js'), import('../condition/disasm.js'),
  ]);
  let text: string;
  try {
    const compiled = compileCondition(condition);
    text = vars === null ? disassemble(compiled.program) : formatDetailed(compiled.evaluateDetailed(vars));
  } catch (err) {
    if (err instanceof SandboxError) {
      await writeAll(io.stderr, `${err.message}\n`);
      return 1;
    }
    await writeAll(io.stderr, `${PROGRAM}: internal error: ${describeInternalError(err)}\n`);
    return 1;
  }
  await writeAll(io.stdout, text);
  return 0;
}

function describeInternalError(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

async function usageError(io: CliIo, message: string, usage: string): Promise<number> {
  await writeAll(io.stderr, `${PROGRAM}: ${message}\n\n${usage}`).catch(() => {});
  return 2;
}

/** Writes and waits for the write to complete; rejects on a stream error instead of crashing. */
function writeAll(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Left attached on failure: the 'error' event follows the write callback.
    stream.once('error', reject);
    stream.write(text, (err) => {
      if (err) reject(err);
      else {
        stream.off('error', reject);
        resolve();
      }
    });
  });
}

function isEpipe(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'EPIPE';
}

function describeIoError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Version from the package's own package.json, found by walking up from this module (src/ or dist/src/). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'aorta-probe' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no (readable) package.json here; keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
