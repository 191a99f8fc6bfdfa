/**
 * Argument dispatch for the `aorta-probe` command. Returns the exit status instead of exiting, so
 * the entry point (`main.ts`) stays a one-liner. The exit-status table of every command is
 * exit-codes.ts; a usage error of any command shows its message, the command's synopsis and where
 * its help is (exit 2), and with --json also an `{"error": …}` object on stdout.
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
import { UsageError, usageShort } from './args.js';
import { EXIT } from './exit-codes.js';
import { errorRecord, jsonLine } from './json-output.js';
import { didYouMean } from '../text/suggest.js';
import { isTty, type Palette, paletteOnTty } from './tty.js';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /**
   * The process is the `aorta-probe` bin's own, not a host calling `runCli`: `scan` and `run` may then change
   * process-wide settings (young-generation.ts).
   */
  ownProcess?: boolean;
  /** The process's own descriptors, for output written without creating the stream objects (process-io.ts). */
  fds?: StdFds;
}

/** Direct writes to the bin's stdout and stderr descriptors (process-io.ts). */
export interface StdFds {
  /** Writes all of `text`, or returns false when the stream object exists (then write through it). */
  write(which: 'stdout' | 'stderr', text: string): boolean;
  /** Whether the descriptor is a terminal. */
  isTty(which: 'stdout' | 'stderr'): boolean;
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
  check RECIPE... [--format text|json|sarif|github] [--strict]
                 Load recipes with all of the loader's checks (schema, conditions, regexes
                 on RE2) and report the first error at its file:line:col; then lint them and
                 print warnings (conditions that can never fire); --strict fails on them.
  scan [--recipe RECIPE] LOG [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]
       [--format text|json|junit|github]
                 Classify a trial log with the Tier 4 patterns and the recipe's
                 custom_patterns: where each detector fired, verdict, captures.
  patterns [--json] [--version]
                 List the built-in Tier 4 patterns.
  run [--recipe RECIPE] [--out DIR] [--timeout SECONDS] [--format text|json|junit|github] [--quiet]
      [--gpu-tool TOOL] [--gpu-interval SECONDS] -- CMD [ARGS...]
                 Run CMD as a trial: stream and save its output, sample peak VRAM,
                 classify it (exit code, signals, timeout, log patterns), write
                 result.json. Exit 0 pass, 1 fail, 2 usage/recipe error, 3 error.
  sweep --recipe RECIPE --out DIR [--trials N] [--parallel K] [--gpus LIST] [--dry-run]
        [--emit slurm|k8s] [--json] -- CMD [ARGS...]
                 Run CMD over the recipe's cells (mitigation x diagnostic env bundles),
                 N trials each, K at a time, each on its own GPUs; retry, stop_after,
                 retain; or write a Slurm array script / Kubernetes Indexed Job instead.
  report DIR... [--format text|json|junit|markdown|html] [--json] [--out FILE]
                 Aggregate result.json files per cell: verdicts, flaky cells, detectors,
                 wall time and peak VRAM.
  demo [--json] [--quiet]
                 Check, scan and run the bundled example (a training job that goes NaN).
  playground [--port N] [--json]
                 Serve the browser playground (live recipe diagnostics, log classification,
                 condition scratchpad) on localhost and print its URL.
  help [COMMAND] Show this help, or a command's.
See '${PROGRAM} <command> --help' for the details of each command.

Options:
  -h, --help     Show this help and exit.
  -V, --version  Print the version and exit (with --json: {"version": str}).

Exit status, every command: 0 pass or valid, 1 verdict fail (check: invalid recipe, or
warnings with --strict), 2 usage error, unreadable input or a recipe that does not load,
3 verdict error or an I/O failure.
`;

const COMMANDS = ['eval', 'check', 'scan', 'patterns', 'run', 'sweep', 'report', 'demo', 'playground', 'help'] as const;

/** What a usage error of the program itself (no or an unknown command) shows after its message. */
const TOP_SHORT = `Usage: ${PROGRAM} <command> [options]\nCommands: ${COMMANDS.join(', ')}\nSee '${PROGRAM} --help'.\n`;

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) return await usageError(io, 'missing command', TOP_SHORT, false);
    if (command === '-h' || command === '--help') {
      await writeOut(io, USAGE);
      return EXIT.ok;
    }
    if (command === '-V' || command === '--version') {
      const json = rest.length === 1 && rest[0] === '--json';
      if (rest.length > 0 && !json) return await usageError(io, `unexpected argument '${rest[0]}'`, TOP_SHORT, false);
      await writeOut(io, json ? jsonLine({ version: packageVersion() }) : `${PROGRAM} ${packageVersion()}\n`);
      return EXIT.ok;
    }
    if (command === 'help') {
      const [topic, ...more] = rest;
      if (topic === undefined) {
        await writeOut(io, USAGE);
        return EXIT.ok;
      }
      if (more.length > 0)
        return await usageError(io, `help: unexpected argument '${more[0]}'`, usageShort('help', USAGE), false);
      if (topic === 'help' || !(COMMANDS as readonly string[]).includes(topic)) {
        return await usageError(io, `help: unknown command '${topic}'${didYouMean(topic, COMMANDS)}`, TOP_SHORT, false);
      }
      return await runCli([topic, '--help'], io);
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
      if (r.out !== '') await writeOut(io, r.out);
      if (r.err !== '') await writeErr(io, r.err);
      return r.code;
    }
    const wantsJson = argv.includes('--json');
    if (command.startsWith('-'))
      return await usageError(
        io,
        `unknown option '${command}'${didYouMean(command, ['--help', '--version'])}`,
        TOP_SHORT,
        wantsJson,
      );
    return await usageError(io, `unknown command '${command}'${didYouMean(command, COMMANDS)}`, TOP_SHORT, wantsJson);
  } catch (err) {
    if (isEpipe(err)) return EXIT.ok;
    await writeErr(io, `${PROGRAM}: ${describeIoError(err)}\n`).catch(() => {});
    return EXIT.error;
  }
}

/** `--json` or `--format json` among the arguments (before a `--`): a usage error is then also reported as JSON. */
function asksForJson(args: readonly string[]): boolean {
  const sep = args.indexOf('--');
  const own = sep === -1 ? args : args.slice(0, sep);
  // Not --jsonl: its stdout answers input lines, one each.
  return own.some((a, i) => a === '--json' || a === '--format=json' || (a === '--format' && own[i + 1] === 'json'));
}

async function evalCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./eval-expr.js');
  return runSubcommand<EvalArgs>(
    {
      name: 'eval',
      usage: m.EVAL_USAGE,
      parse: m.parseEvalArgs,
      run: async (a) => {
        if (a.mode === 'expr') return evalExpression(a.condition, a.vars, a.json, io);
        if (a.mode === 'disasm') return disasmExpression(a.condition, io);
        const { evalJsonl } = await import('./eval-jsonl.js');
        const summary = await evalJsonl(io.stdin, io.stdout, {
          onInternalError: (err, line) => {
            io.stderr.write(`${PROGRAM}: internal error on input line ${line}: ${describeInternalError(err)}\n`);
          },
        });
        return summary.internalErrors > 0 ? EXIT.error : EXIT.ok;
      },
    },
    args,
    io,
  );
}

/** What every subcommand has in common: parse, a usage error (exit 2) or --help, then run. */
interface Subcommand<A extends { help: boolean }> {
  readonly name: string;
  readonly usage: string;
  readonly parse: (args: readonly string[]) => A;
  readonly run: (parsed: A, io: CliIo) => Promise<number>;
}

async function runSubcommand<A extends { help: boolean }>(
  c: Subcommand<A>,
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  let parsed: A;
  try {
    parsed = c.parse(args);
  } catch (err) {
    if (err instanceof UsageError)
      return usageError(io, `${c.name}: ${err.message}`, usageShort(c.name, c.usage), asksForJson(args), err);
    throw err;
  }
  if (parsed.help) {
    await writeOut(io, c.usage);
    return 0;
  }
  return c.run(parsed, io);
}

const textIo = (io: CliIo) => ({
  write: (t: string) => writeOut(io, t),
  writeError: (t: string) => writeErr(io, t),
});

// Each command's module is imported when that command runs: a process loads only what it uses (`eval` never
// loads re2-wasm, the trial runner or the playground server), which is most of a command's start-up time.
async function checkCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./check.js');
  return runSubcommand<CheckArgs>(
    {
      name: 'check',
      usage: m.CHECK_USAGE,
      parse: m.parseCheckArgs,
      run: (a) =>
        m.runCheck(a, {
          get stdin() {
            return io.stdin;
          },
          stdoutIsTty: () => ttyOf(io, 'stdout'),
          ...textIo(io),
        }),
    },
    args,
    io,
  );
}

async function scanCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./scan.js');
  return runSubcommand<ScanArgs>(
    {
      name: 'scan',
      usage: m.SCAN_USAGE,
      parse: m.parseScanArgs,
      run: (a) =>
        m.runScan(a, {
          get stdin() {
            return io.stdin;
          },
          ...textIo(io),
          stdoutIsTty: () => ttyOf(io, 'stdout'),
          progressTo: ttyOf(io, 'stderr') ? io.stderr : null,
          ownProcess: io.ownProcess === true,
        }),
    },
    args,
    io,
  );
}

async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./run-trial.js');
  return runSubcommand<RunArgs>(
    {
      name: 'run',
      usage: m.RUN_USAGE,
      parse: m.parseRunArgs,
      run: (a) =>
        m.runRunCommand(a, {
          stdin: io.stdin,
          stdout: io.stdout,
          stderr: io.stderr,
          ownProcess: io.ownProcess === true,
        }),
    },
    args,
    io,
  );
}

async function sweepCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./sweep.js');
  return runSubcommand<SweepArgs>(
    {
      name: 'sweep',
      usage: m.SWEEP_USAGE,
      parse: m.parseSweepArgs,
      run: (a) => m.runSweepCommand(a, { stdout: io.stdout, stderr: io.stderr }),
    },
    args,
    io,
  );
}

async function reportCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./report.js');
  return runSubcommand<ReportArgs>(
    {
      name: 'report',
      usage: m.REPORT_USAGE,
      parse: m.parseReportArgs,
      run: (a) => m.runReportCommand(a, { stdout: io.stdout, stderr: io.stderr }),
    },
    args,
    io,
  );
}

async function demoCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./demo.js');
  return runSubcommand<DemoArgs>(
    {
      name: 'demo',
      usage: m.DEMO_USAGE,
      parse: m.parseDemoArgs,
      run: (a) => m.runDemo(a, { stdout: io.stdout, stderr: io.stderr }),
    },
    args,
    io,
  );
}

async function playgroundCommand(args: readonly string[], io: CliIo): Promise<number> {
  const m = await import('./playground.js');
  return runSubcommand<PlaygroundArgs>(
    {
      name: 'playground',
      usage: m.PLAYGROUND_USAGE,
      parse: m.parsePlaygroundArgs,
      run: (a) => m.runPlayground(a, textIo(io)),
    },
    args,
    io,
  );
}

/** --disasm EXPR: 0 listed, 1 rejected (message on stderr). */
async function disasmExpression(condition: string, io: CliIo): Promise<number> {
  const [{ compileCondition }, { SandboxError }, { disassemble }] = await Promise.all([
    import('../condition/evaluate.js'),
    import('../condition/errors.js'),
    import('../condition/disasm.js'),
  ]);
  let text: string;
  try {
    text = disassemble(compileCondition(condition).program);
  } catch (err) {
    if (err instanceof SandboxError) {
      await writeErr(io, `${err.message}\n`);
      return EXIT.fail;
    }
    throw err;
  }
  await writeOut(io, text);
  return EXIT.ok;
}

/**
 * The EXPR form: 0 evaluated (fired or not), 1 rejected (message on stderr; like check's invalid recipe), 3 an
 * internal error. With --json, stdout holds eval --jsonl's record for the condition.
 */
async function evalExpression(condition: string, vars: ConditionVars, json: boolean, io: CliIo): Promise<number> {
  const [{ compileCondition }, { SandboxError }, { formatDetailed }, records] = await Promise.all([
    import('../condition/evaluate.js'),
    import('../condition/errors.js'),
    import('./eval-expr.js'),
    import('./result-record.js'),
  ]);
  let result: import('../condition/evaluate.js').DetailedResult;
  try {
    result = compileCondition(condition).evaluateDetailed(vars);
  } catch (err) {
    if (err instanceof SandboxError) {
      if (json) await writeOut(io, jsonLine(records.sandboxErrorResult(err)));
      await writeErr(io, `${err.message}\n`);
      return EXIT.fail;
    }
    if (json) await writeOut(io, jsonLine({ valid: false, error: errorRecord(err) }));
    await writeErr(io, `${PROGRAM}: internal error: ${describeInternalError(err)}\n`);
    return EXIT.error;
  }
  await writeOut(io, json ? jsonLine(records.evaluatedResult(result)) : formatDetailed(result, stdoutPalette(io)));
  return EXIT.ok;
}

function describeInternalError(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** Exit 2 with the message and the short usage on stderr, and the error object on stdout when JSON was asked for. */
async function usageError(io: CliIo, message: string, short: string, json: boolean, err?: unknown): Promise<number> {
  if (json) await writeOut(io, jsonLine({ error: errorRecord(err ?? new UsageError(message)) })).catch(() => {});
  await writeErr(io, `${PROGRAM}: ${message}\n\n${short}`).catch(() => {});
  return EXIT.usage;
}

/** `text` to stdout: straight to the descriptor while no stream object exists (process-io.ts), else through it. */
function writeOut(io: CliIo, text: string): Promise<void> {
  return writeTo(io, 'stdout', text);
}

function writeErr(io: CliIo, text: string): Promise<void> {
  return writeTo(io, 'stderr', text);
}

function writeTo(io: CliIo, which: 'stdout' | 'stderr', text: string): Promise<void> {
  try {
    if (io.fds?.write(which, text) === true) return Promise.resolve();
  } catch (err) {
    return Promise.reject(err);
  }
  return writeAll(io[which], text);
}

/** Whether stdout or stderr is a terminal, without creating the stream where the descriptor can tell (process-io.ts). */
function ttyOf(io: CliIo, which: 'stdout' | 'stderr'): boolean {
  return io.fds !== undefined ? io.fds.isTty(which) : isTty(io[which]);
}

function stdoutPalette(io: CliIo): Palette {
  return paletteOnTty(ttyOf(io, 'stdout'));
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
