/**
 * Argument dispatch for the `aorta-probe` command: a table of the commands, each imported when it runs. Returns the
 * exit status instead of exiting, so hosts (tests, scripts/cli-doc-examples.mjs) can call `runCli`; the bin's entry
 * is bin.ts. The exit-status table of every command is exit-status.ts; a usage error of any command shows its
 * message, the command's synopsis and where its help is (exit 2), and with --json also an `{"error": …}` object on
 * stdout.
 */
import { packageInfo } from '../trial/package-info.js';
import { didYouMean } from '../text/suggest.js';
import { UsageError, usageShort } from './args.js';
import type { Command } from './command.js';
import { EXIT } from './exit-status.js';
import { type CliIo, type CommandIo, commandIo } from './io.js';
import { errorRecord, jsonLine } from './json-output.js';
import { isEpipe } from './writer.js';

export type { CliIo } from './io.js';

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
  list-mitigations [--mitigations-file F]... [--json]
                 List the mitigations an axis may name (the 18 built-ins and each file's).
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
  bundle RUN_DIR [--ticket T] [--review] [--output PATH] [--redaction-from RECIPE] [--json]
                 Pack a sweep's run directory into a scrubbed .tar.gz with a manifest of
                 what was changed (the recipe's redaction: block; docs/redaction.md).
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

/** A table entry: one command, its argument type hidden from the table (each `Command` has its own). */
type CommandRunner = (args: readonly string[], io: CommandIo) => Promise<number>;

/** The entry for a command module: imports it on the first call, then parses and runs as `runCommand` does. */
const lazy =
  <A extends { readonly help: boolean }>(load: () => Promise<{ readonly command: Command<A> }>): CommandRunner =>
  async (args, io) =>
    runCommand((await load()).command, args, io);

/**
 * Each command's module is imported when that command runs: a process loads only what it uses (`eval` never loads
 * re2-wasm, the trial runner or the playground server), which is most of a command's start-up time. In the bin's
 * bundle each import is a chunk boundary (scripts/bundle-cli.mjs).
 */
export const COMMAND_TABLE = {
  eval: lazy(() => import('./commands/eval.js')),
  check: lazy(() => import('./commands/check.js')),
  scan: lazy(() => import('./commands/scan.js')),
  patterns: lazy(() => import('./commands/patterns.js')),
  'list-mitigations': lazy(() => import('./commands/list-mitigations.js')),
  run: lazy(() => import('./commands/run.js')),
  sweep: lazy(() => import('./commands/sweep.js')),
  report: lazy(() => import('./commands/report.js')),
  bundle: lazy(() => import('./commands/bundle.js')),
  demo: lazy(() => import('./commands/demo.js')),
  playground: lazy(() => import('./commands/playground.js')),
} as const satisfies Readonly<Record<string, CommandRunner>>;

type CommandName = keyof typeof COMMAND_TABLE;

const COMMANDS = [...(Object.keys(COMMAND_TABLE) as CommandName[]), 'help'] as const;

const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMAND_TABLE, name);

/** What a usage error of the program itself (no or an unknown command) shows after its message. */
const TOP_SHORT = `Usage: ${PROGRAM} <command> [options]\nCommands: ${COMMANDS.join(', ')}\nSee '${PROGRAM} --help'.\n`;

export async function runCli(argv: readonly string[], host: CliIo): Promise<number> {
  return dispatch(argv, commandIo(host));
}

async function dispatch(argv: readonly string[], io: CommandIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) return await usageError(io, 'missing command', TOP_SHORT, false);
    if (command === '-h' || command === '--help') {
      await io.writeOut(USAGE);
      return EXIT.ok;
    }
    if (command === '-V' || command === '--version') {
      const json = rest.length === 1 && rest[0] === '--json';
      if (rest.length > 0 && !json) return await usageError(io, `unexpected argument '${rest[0]}'`, TOP_SHORT, false);
      const version = packageInfo().version;
      await io.writeOut(json ? jsonLine({ version }) : `${PROGRAM} ${version}\n`);
      return EXIT.ok;
    }
    if (command === 'help') {
      // `-h`/`--help` anywhere asks for help too: `help --help`, `help eval --help`.
      const [topic, ...more] = rest.filter((a) => a !== '-h' && a !== '--help');
      if (more.length > 0)
        return await usageError(io, `help: unexpected argument '${more[0]}'`, usageShort('help', USAGE), false);
      // help's own help (`help help`, `help --help`) is the program's: it is where `help [COMMAND]` is described.
      if (topic === undefined || topic === 'help') {
        await io.writeOut(USAGE);
        return EXIT.ok;
      }
      if (!isCommand(topic))
        return await usageError(io, `help: unknown command '${topic}'${didYouMean(topic, COMMANDS)}`, TOP_SHORT, false);
      return await dispatch([topic, '--help'], io);
    }
    if (isCommand(command)) return await COMMAND_TABLE[command](rest, io);
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
    await io.writeErr(`${PROGRAM}: ${err instanceof Error ? err.message : String(err)}\n`).catch(() => {});
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

/** What every command has in common: parse, a usage error (exit 2) or --help, then run. */
async function runCommand<A extends { readonly help: boolean }>(
  c: Command<A>,
  args: readonly string[],
  io: CommandIo,
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
    await io.writeOut(c.usage);
    return EXIT.ok;
  }
  return c.run(parsed, io);
}

/** Exit 2 with the message and the short usage on stderr, and the error object on stdout when JSON was asked for. */
async function usageError(
  io: CommandIo,
  message: string,
  short: string,
  json: boolean,
  err?: unknown,
): Promise<number> {
  if (json) await io.writeOut(jsonLine({ error: errorRecord(err ?? new UsageError(message)) })).catch(() => {});
  await io.writeErr(`${PROGRAM}: ${message}\n\n${short}`).catch(() => {});
  return EXIT.usage;
}
