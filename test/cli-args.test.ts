/**
 * The one argument layer (src/cli/args.ts) as every command uses it: each command's `--help` names exactly the
 * options its parser accepts, one number grammar for every numeric option, and the same usage error (message,
 * synopsis, "See 'aorta-probe CMD --help'", the JSON error object with --json) from every command.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { USAGE } from '../src/cli/main.js';
import { type OptionSpecs, parseNumber, usageShort } from '../src/cli/args.js';
import { CHECK_OPTIONS, CHECK_USAGE } from '../src/cli/commands/check.js';
import { DEMO_OPTIONS, DEMO_USAGE } from '../src/cli/commands/demo.js';
import { EVAL_OPTIONS, EVAL_USAGE, parseEvalArgs } from '../src/cli/commands/eval.js';
import { PLAYGROUND_OPTIONS, PLAYGROUND_USAGE, parsePlaygroundArgs } from '../src/cli/commands/playground.js';
import { REPORT_OPTIONS, REPORT_USAGE } from '../src/cli/commands/report.js';
import { parseRunArgs, RUN_OPTIONS, RUN_USAGE } from '../src/cli/commands/run.js';
import { PATTERNS_OPTIONS, PATTERNS_USAGE } from '../src/cli/commands/patterns.js';
import { parseScanArgs, SCAN_OPTIONS, SCAN_USAGE } from '../src/cli/commands/scan.js';
import { parseSweepArgs, SWEEP_OPTIONS, SWEEP_USAGE } from '../src/cli/commands/sweep.js';
import { cliInProcess as cli } from './support/run-cli.js';

const COMMANDS: [string, string, OptionSpecs][] = [
  ['eval', EVAL_USAGE, EVAL_OPTIONS],
  ['check', CHECK_USAGE, CHECK_OPTIONS],
  ['scan', SCAN_USAGE, SCAN_OPTIONS],
  ['patterns', PATTERNS_USAGE, PATTERNS_OPTIONS],
  ['run', RUN_USAGE, RUN_OPTIONS],
  ['sweep', SWEEP_USAGE, SWEEP_OPTIONS],
  ['report', REPORT_USAGE, REPORT_OPTIONS],
  ['demo', DEMO_USAGE, DEMO_OPTIONS],
  ['playground', PLAYGROUND_USAGE, PLAYGROUND_OPTIONS],
];

/** The long options a help text names: not a trial command's own (after ' -- '), nor an example value ('e.g. --x'). */
function flagsIn(text: string): string[] {
  const own = text
    .split('\n')
    .map((l) => l.replace(/ -- .*/, '').replace(/e\.g\. --[\w=-]+/g, ''))
    .join('\n');
  return [...new Set(own.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [])].sort();
}

const accepted = (options: OptionSpecs): string[] =>
  Object.keys(options)
    .map((n) => `--${n}`)
    .sort();

describe('--help names exactly the options the parser accepts', () => {
  it.each(COMMANDS)('%s', (_name, usage, options) => {
    expect(flagsIn(usage)).toEqual(accepted(options));
    expect(usage).toContain('-h, --help');
  });

  it('the overview lists each command with options it accepts', () => {
    const blocks = USAGE.split('\nCommands:\n')[1]!.split('\nOptions:\n')[0]!;
    for (const [name, , options] of COMMANDS) {
      const lines = blocks.split('\n');
      const start = lines.findIndex((l) => l.startsWith(`  ${name} `) || l === `  ${name}`);
      expect(start, name).toBeGreaterThanOrEqual(0);
      // The command's synopsis: its line and the continuation lines indented deeper than the names.
      let end = start + 1;
      while (end < lines.length && /^ {4,}\S/.test(lines[end]!) && !/^ {17}/.test(lines[end]!)) end++;
      for (const f of flagsIn(lines.slice(start, end).join('\n')))
        expect(accepted(options), `${name} ${f}`).toContain(f);
    }
  });

  it('help CMD is CMD --help for every command', async () => {
    for (const [name, usage] of COMMANDS) expect((await cli(['help', name])).out, name).toBe(usage);
  });

  it("help's own help is the program's help (it describes `help [COMMAND]`), not an unknown command", async () => {
    for (const args of [['help'], ['help', 'help'], ['help', '--help'], ['help', '-h'], ['help', 'help', '--help']])
      expect(await cli(args), args.join(' ')).toEqual({ code: 0, out: USAGE, err: '' });
    expect((await cli(['help', 'eval', '--help'])).out).toBe(EVAL_USAGE);
    // The short usage of a `help` mistake points at `help --help`, which must work.
    const wrong = await cli(['help', 'eval', 'check']);
    expect(wrong).toEqual({
      code: 2,
      out: '',
      err: `aorta-probe: help: unexpected argument 'check'\n\n${usageShort('help', USAGE)}`,
    });
    expect(wrong.err).toContain("See 'aorta-probe help --help'.");
  });
});

describe('one number grammar: sign, digits, fraction and exponent where a number may be fractional', () => {
  const eval_ = (flag: string, v: string) => () => parseEvalArgs(['True', flag, v]);
  const scan = (flag: string, v: string) => () => parseScanArgs([flag, v, 'x.log']);
  const run = (flag: string, v: string) => () => parseRunArgs([flag, v, '--', 'true']);
  const sweep = (flag: string, v: string) => () =>
    parseSweepArgs(['--recipe', 'r', '--out', 'o', flag, v, '--', 'true']);
  const playground = (flag: string, v: string) => () => parsePlaygroundArgs([flag, v]);
  type Case = [string, (flag: string, v: string) => () => unknown, string, string[], [string, string][]];
  // [command, parse, flag, accepted texts, [refused text, what the message says it must be]]
  const INTEGER_BAD: [string, string][] = [
    ['1.5', 'an integer'],
    ['1e3', 'an integer'],
    ['0x10', 'an integer'],
    [' 1', 'an integer'],
    ['1_000', 'an integer'],
    ['', 'an integer'],
  ];
  const cases: Case[] = [
    ['eval', eval_, '--exit-code', ['0', '-9', '+3', '137'], INTEGER_BAD],
    ['eval', eval_, '--peak-vram', ['512', '-1', '+0'], INTEGER_BAD],
    [
      'eval',
      eval_,
      '--walltime',
      ['1', '-1.5', '+.5', '1.', '1e3', '1E-3'],
      [
        ['inf', 'a finite number of seconds'],
        ['nan', 'a finite number of seconds'],
        ['1e999', 'a finite number of seconds'],
        ['0x1', 'a finite number of seconds'],
        ['.', 'a finite number of seconds'],
      ],
    ],
    ['scan', scan, '--exit-code', ['0', '-9', '+3'], INTEGER_BAD],
    ['scan', scan, '--peak-vram', ['512', '-1'], INTEGER_BAD],
    ['scan', scan, '--walltime', ['1', '-1.5', '.5e1'], [['inf', 'a finite number of seconds']]],
    [
      'run',
      run,
      '--timeout',
      ['1', '+0.5', '1e2'],
      [
        ['0', 'a positive number of seconds'],
        ['-1', 'a positive number of seconds'],
        ['inf', 'a positive number of seconds'],
      ],
    ],
    ['run', run, '--gpu-interval', ['0.25', '2'], [['0', 'a positive number of seconds']]],
    [
      'sweep',
      sweep,
      '--timeout',
      ['1', '-0.5e1'.slice(1), '+2'],
      [
        ['-1', 'a positive number of seconds'],
        ['x', 'a positive number of seconds'],
      ],
    ],
    ['sweep', sweep, '--gpu-interval', ['0.5'], [['-0.5', 'a positive number of seconds']]],
    [
      'sweep',
      sweep,
      '--trials',
      ['1', '+5'],
      [
        ['0', 'a positive integer'],
        ['-1', 'a positive integer'],
        ['1.5', 'a positive integer'],
        ['1e1', 'a positive integer'],
      ],
    ],
    ['sweep', sweep, '--parallel', ['4'], [['0', 'a positive integer']]],
    ['sweep', sweep, '--gpus-per-trial', ['2'], [['0', 'a positive integer']]],
    ['sweep', sweep, '--task', ['0', '+7'], [['-1', 'a non-negative integer']]],
    [
      'playground',
      playground,
      '--port',
      ['0', '8177', '65535', '+80'],
      [
        ['65536', 'an integer from 0 to 65535'],
        ['-1', 'an integer from 0 to 65535'],
        ['80.0', 'an integer from 0 to 65535'],
      ],
    ],
  ];
  it.each(cases)('%s %s', (_c, parse, flag, good, bad) => {
    for (const v of good) expect(parse(flag, v), `${flag} ${v}`).not.toThrow();
    for (const [v, what] of bad) expect(parse(flag, v), `${flag} ${v}`).toThrow(`${flag} must be ${what}, got '${v}'`);
  });

  it('an integer beyond ±2^53−1 is refused as inexact', () => {
    expect(() => parseNumber('--exit-code', '9007199254740993', { integer: true })).toThrow(
      "--exit-code must be an integer within ±9007199254740991, got '9007199254740993'",
    );
  });

  it('a negative value follows its option as the next argument (not taken for an option)', () => {
    expect(parseScanArgs(['--exit-code', '-9', 'x.log']).vars.exit_code).toBe(-9);
    expect(parseEvalArgs(['--walltime', '-.5', 'True'])).toMatchObject({ vars: { walltime_sec: -0.5 } });
  });
});

describe('the same usage error from every command', () => {
  const cases: [string, string[], string][] = [
    ['eval', ['eval', 'True', '--walltme', '1'], "unknown option '--walltme' (did you mean '--walltime'?)"],
    ['check', ['check', '--stirct', 'r.yaml'], "unknown option '--stirct' (did you mean '--strict'?)"],
    ['scan', ['scan', '--recpe', 'r.yaml', 'x.log'], "unknown option '--recpe' (did you mean '--recipe'?)"],
    ['patterns', ['patterns', '--jsn'], "unknown option '--jsn' (did you mean '--json'?)"],
    ['run', ['run', '--timout', '1', '--', 'true'], "unknown option '--timout' (did you mean '--timeout'?)"],
    [
      'sweep',
      ['sweep', '--recipe', 'r', '--out', 'o', '--paralel', '2', '--', 'true'],
      "unknown option '--paralel' (did you mean '--parallel'?)",
    ],
    ['report', ['report', '--fromat', 'json', 'runs'], "unknown option '--fromat' (did you mean '--format'?)"],
    ['demo', ['demo', '--quite'], "unknown option '--quite' (did you mean '--quiet'?)"],
    ['playground', ['playground', '--prot', '1'], "unknown option '--prot' (did you mean '--port'?)"],
  ];
  it.each(cases)('%s: one line, the synopsis, where the help is; exit 2', async (name, args, message) => {
    const usage = COMMANDS.find(([n]) => n === name)![1];
    expect(await cli(args)).toEqual({
      code: 2,
      out: '',
      err: `aorta-probe: ${name}: ${message}\n\n${usageShort(name, usage)}`,
    });
  });

  // sweep has no --json (its output is the text report of DIR; `report --json DIR` is the JSON).
  it.each(cases.filter(([n]) => n !== 'sweep'))(
    '%s --json: the error object on stdout',
    async (_name, args, message) => {
      const r = await cli([...args.slice(0, 1), '--json', ...args.slice(1)]);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.out)).toEqual({
        error: { type: 'UsageError', message, detail: message, file: null, line: null, col: null, node: null },
      });
    },
  );

  it('a short usage is a few lines, never the whole help', async () => {
    for (const [name, usage] of COMMANDS) {
      const short = usageShort(name, usage);
      expect(short.split('\n').length, name).toBeLessThanOrEqual(5);
      expect(short.endsWith(`See 'aorta-probe ${name} --help'.\n`)).toBe(true);
    }
  });
});

describe('eval EXPR colours its result like the other commands', () => {
  let saved: { NO_COLOR?: string; FORCE_COLOR?: string };
  beforeEach(() => {
    saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
    delete process.env.NO_COLOR;
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('FORCE_COLOR: fired in bold green, no in dim, an exception in yellow', async () => {
    process.env.FORCE_COLOR = '1';
    expect((await cli(['eval', 'exit_code == 0'])).out).toBe(
      'value: \x1b[1mTrue\x1b[22m\ntype:  bool\nfired: \x1b[1m\x1b[32myes\x1b[39m\x1b[22m\n',
    );
    expect((await cli(['eval', 'exit_code'])).out).toBe(
      'value: \x1b[1m0\x1b[22m\ntype:  int\nfired: \x1b[2mno\x1b[22m\n',
    );
    expect((await cli(['eval', "capture['x']"])).out).toBe(
      'error: \x1b[33mKeyError\x1b[39m\nfired: \x1b[2mno\x1b[22m\n',
    );
  });

  it('NO_COLOR, or not a terminal: plain', async () => {
    process.env.FORCE_COLOR = '1';
    process.env.NO_COLOR = '1';
    expect((await cli(['eval', 'exit_code == 0'])).out).toBe('value: True\ntype:  bool\nfired: yes\n');
    delete process.env.NO_COLOR;
    delete process.env.FORCE_COLOR;
    expect((await cli(['eval', 'exit_code == 0'])).out).toBe('value: True\ntype:  bool\nfired: yes\n');
  });
});
