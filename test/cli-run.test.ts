import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-cli-run-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const out = (): string => join(root, `r${++n}`);

interface CliRun {
  code: number;
  out: string;
  err: string;
}

const cli = (args: string[], tty = false): Promise<CliRun> => cliInProcess(args, '', { tty });

const run = (...args: string[]) => cli(['run', ...args]);
/** Printed once at the start by a run with no timeout, Tier 2 on and hang_action record. */
const NO_TIMEOUT =
  'aorta-probe: no --timeout: a detected hang is recorded (hang_action: record) but will not stop the trial\n';
/** The variable parts of the human summary (walltime, paths) replaced by placeholders. */
const stable = (text: string, dir: string): string =>
  text.replace(/walltime: \d+\.\d{3} s/, 'walltime: <T> s').replaceAll(dir, '<OUT>');

describe('aorta-probe run', () => {
  it('acceptance: a child that SIGSEGVs → exit_code -11, verdict fail, exit status 1', async () => {
    const dir = out();
    const r = await run(
      '--recipe',
      'fixtures/recipes/bare-custom-patterns.yaml',
      '--out',
      dir,
      '--gpu-tool',
      'none',
      '--json',
      '--',
      'node',
      '-e',
      "process.kill(process.pid,'SIGSEGV')",
    );
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as Record<string, unknown>;
    expect(json).toMatchObject({
      verdict: 'fail',
      exit_code: -11,
      failure_detectors_fired: ['tier1:sigsegv'],
      error_detectors_fired: [],
      warn_detectors_fired: [],
      capture: {},
      peak_vram_mib: null,
      argv: ['node', '-e', "process.kill(process.pid,'SIGSEGV')"],
      recipe: { file: resolve('fixtures/recipes/bare-custom-patterns.yaml') },
    });
    expect(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'))).toEqual(json);
    expect(r.out.endsWith('}\n')).toBe(true);
    expect(r.out.split('\n')).toHaveLength(2); // one JSON line
  });

  it('prints the human summary after the command output; exit 0 on pass', async () => {
    const dir = out();
    const r = await run(
      '--out',
      dir,
      '--gpu-tool',
      'none',
      '--',
      'node',
      '-e',
      "console.log('hello'); console.error('oops')",
    );
    expect(r.code).toBe(0);
    expect(stable(r.out, dir)).toBe(
      'hello\noops\n\n' +
        'verdict: pass\n' +
        'exit code: 0\n' +
        'walltime: <T> s\n' +
        'peak VRAM: unavailable (no GPU tool)\n' +
        'failure detectors: (none)\n' +
        'error detectors: (none)\n' +
        'warn detectors: (none)\n' +
        'capture: {}\n' +
        'log: <OUT>/output.log (11 B)\n' +
        'result: <OUT>/result.json\n',
    );
    expect(r.err).toBe(NO_TIMEOUT);
  });

  it('a custom pattern with a condition on exit_code, in the summary', async () => {
    const dir = out();
    const r = await run(
      '--recipe',
      'fixtures/recipes/bare-custom-patterns.yaml',
      '--out',
      dir,
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      'node',
      '-e',
      "console.log('Segmentation fault (core dumped)'); process.exit(139)",
    );
    expect(r.code).toBe(1);
    expect(stable(r.out, dir)).toContain(
      'verdict: fail\nexit code: 139\nwalltime: <T> s\npeak VRAM: unavailable (no GPU tool)\n' +
        'failure detectors: tier1:exit_nonzero, custom:segfault\n',
    );
  });

  it('--json sends the command output to stderr; --quiet hides it', async () => {
    const loud = await run(
      '--out',
      out(),
      '--gpu-tool',
      'none',
      '--json',
      '--',
      'node',
      '-e',
      "console.log('to the terminal')",
    );
    expect(loud.err).toBe(`${NO_TIMEOUT}to the terminal\n`);
    expect(JSON.parse(loud.out)).toMatchObject({ verdict: 'pass', exit_code: 0 });
    const quiet = await run(
      '--out',
      out(),
      '--gpu-tool',
      'none',
      '--json',
      '--quiet',
      '--',
      'node',
      '-e',
      "console.log('hidden')",
    );
    expect(quiet.err).toBe(NO_TIMEOUT);
  });

  it('a timeout is verdict error, exit status 3', async () => {
    const r = await run(
      '--out',
      out(),
      '--gpu-tool',
      'none',
      '--timeout',
      '0.3',
      '--json',
      '--',
      'node',
      '-e',
      'setInterval(() => {}, 1000)',
    );
    expect(r.code).toBe(3);
    expect(JSON.parse(r.out)).toMatchObject({
      verdict: 'error',
      exit_code: -1,
      timed_out: true,
      error_detectors_fired: ['tier1:timeout'],
      timeout_sec: 0.3,
    });
  });

  it('a command that cannot start: 127, verdict error, exit status 3', async () => {
    const dir = out();
    const r = await run('--out', dir, '--gpu-tool', 'none', '--', 'aorta-no-such-command-xyz');
    expect(r.code).toBe(3);
    expect(stable(r.out, dir)).toBe(
      'cannot start "aorta-no-such-command-xyz": spawn aorta-no-such-command-xyz ENOENT\n\n' +
        'verdict: error\n' +
        'exit code: 127 (cannot start "aorta-no-such-command-xyz": spawn aorta-no-such-command-xyz ENOENT)\n' +
        'walltime: <T> s\n' +
        'peak VRAM: unavailable (no GPU tool)\n' +
        'failure detectors: (none)\n' +
        'error detectors: tier1:exec_failed\n' +
        'warn detectors: (none)\n' +
        'capture: {}\n' +
        'log: <OUT>/output.log (81 B)\n' +
        'result: <OUT>/result.json\n',
    );
  });

  it('an invalid recipe: file:line:col, the source line and a caret on stderr, exit status 2, nothing run', async () => {
    const dir = out();
    const r = await run('--recipe', 'fixtures/recipes/invalid-condition.yaml', '--out', dir, '--', 'node', '-e', '0');
    expect(r).toEqual({
      code: 2,
      out: '',
      err:
        'fixtures/recipes/invalid-condition.yaml:5:68: recipe.custom_patterns[0].match.condition: condition: forbidden AST node: Pow\n' +
        `        condition: "math.isnan(float(capture['loss'])) and exit_code ** 2"\n` +
        '                                                                     ^^\n' +
        '  hint: `**` is not allowed: write the power as a constant, e.g. `1e6` for `10 ** 6`\n',
    });
    const missing = await run('--recipe', 'fixtures/recipes/nope.yaml', '--', 'node', '-e', '0');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^aorta-probe run: cannot read fixtures\/recipes\/nope\.yaml: ENOENT/);
  });

  it.each([
    [
      ['node', '-e', '0'],
      "aorta-probe: run: missing '--' separator: the command must come after a literal '--', so aorta-probe knows where its own options end (got 'node')",
    ],
    [
      ['--json'],
      "aorta-probe: run: missing '--' separator: the command must come after a literal '--', so aorta-probe knows where its own options end",
    ],
    [['--json', '--'], "aorta-probe: run: no command after '--'"],
    [
      ['--', '--json', 'x'],
      "aorta-probe: run: the command starts with '--json', which looks like an option. Put aorta-probe's options before '--' and the command after it",
    ],
    [['--bogus', '--', 'x'], "aorta-probe: run: unknown option '--bogus'"],
    [['--timeout', '0', '--', 'x'], "aorta-probe: run: --timeout must be a positive number of seconds, got '0'"],
    [['--timeout', 'soon', '--', 'x'], "aorta-probe: run: --timeout must be a positive number of seconds, got 'soon'"],
    [
      ['--gpu-tool', 'rocm-smi', '--', 'x'],
      "aorta-probe: run: --gpu-tool must be one of auto, amd-smi, nvidia-smi, none, got 'rocm-smi'",
    ],
    [
      ['--out', '--json', '--', 'x'],
      "aorta-probe: run: --out: value '--json' looks like another option. Did you forget to set a variable or to quote the value? (common cause: '--out $VAR' where $VAR is unset)",
    ],
    [['--out', 'a', '--out', 'b', '--', 'x'], 'aorta-probe: run: --out is given more than once'],
  ])('usage error %j → exit status 2', async (args, message) => {
    const r = await run(...args);
    expect(r.code).toBe(2);
    // With --json among the options, stdout holds the error object (issue 16's JSON contract).
    if (args.slice(0, args.indexOf('--') === -1 ? args.length : args.indexOf('--')).includes('--json')) {
      expect(JSON.parse(r.out)).toMatchObject({ error: { type: 'UsageError', file: null } });
    } else expect(r.out).toBe('');
    expect(r.err.split('\n')[0]).toBe(message);
    expect(r.err).toContain('Usage: aorta-probe run [--recipe RECIPE]');
  });

  it('--help: usage with examples and exit statuses, exit 0 (also after other options)', async () => {
    for (const args of [['--help'], ['-h'], ['--json', '--help', '--', 'x']]) {
      const r = await run(...args);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^Usage: aorta-probe run \[--recipe RECIPE\]/);
      expect(r.out).toContain('Examples:\n  aorta-probe run --recipe recipe.yaml -- python train.py --steps 100\n');
      expect(r.out).toContain(
        'Exit status: 0 pass, 1 fail, 2 usage error or invalid recipe, 3 verdict error,\n130 interrupted by Ctrl-C',
      );
    }
  });

  it('colours the verdict on a TTY only, and never with NO_COLOR', async () => {
    const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
    try {
      delete process.env.NO_COLOR;
      delete process.env.FORCE_COLOR;
      const args = ['run', '--out', out(), '--gpu-tool', 'none', '--quiet', '--', 'node', '-e', 'process.exit(2)'];
      expect((await cli(args, true)).out).toContain('verdict: \x1b[1m\x1b[31mfail\x1b[39m\x1b[22m\n');
      expect((await cli(args, true)).out).toContain('failure detectors: \x1b[31mtier1:exit_nonzero\x1b[39m\n');
      expect((await cli(args, false)).out).toContain('verdict: fail\n');
      process.env.NO_COLOR = '1';
      expect((await cli(args, true)).out).toContain('verdict: fail\n');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('--quiet on a terminal: a progress line on stderr (time, log size, bytes/s), erased before the summary', async () => {
    const code =
      'let n = 0; const t = setInterval(() => { console.log("x".repeat(1000)); if (++n === 30) clearInterval(t); }, 50);';
    const r = await cliInProcess(
      ['run', '--out', out(), '--gpu-tool', 'none', '--quiet', '--', 'node', '-e', code],
      '',
      {
        stderrTty: true,
      },
    );
    expect(r.code).toBe(0);
    const e = r.err;
    expect(e.startsWith(NO_TIMEOUT)).toBe(true);
    expect(e.slice(NO_TIMEOUT.length)).toMatch(/^\r\x1b\[Krunning \d+\.\d s · log \d+\.\d KiB · \d+(\.\d)? (B|KiB)\/s/);
    expect(e.endsWith('\r\x1b[K')).toBe(true);
  });

  it('an output directory that cannot be created: exit status 2', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    const r = await run('--out', join(file, 'sub'), '--gpu-tool', 'none', '--', 'node', '-e', '0');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    const message = `cannot create the output directory ${file}/sub: ENOTDIR: not a directory, mkdir '${file}/sub'`;
    expect(r.err).toBe(`aorta-probe run: ${message}\n`);
    const j = await run('--json', '--out', join(file, 'sub'), '--gpu-tool', 'none', '--', 'node', '-e', '0');
    expect(j.code).toBe(2);
    expect(j.err).toBe(`aorta-probe run: ${message}\n`);
    expect(JSON.parse(j.out)).toEqual({
      error: {
        type: 'TrialOutputError',
        message,
        detail: message,
        file: join(file, 'sub'),
        line: null,
        col: null,
        node: null,
      },
    });
  });

  it('an unknown --disable-detector: exit status 2, the error object with --json', async () => {
    const r = await run('--json', '--disable-detector', 'custom:nope', '--gpu-tool', 'none', '--', 'node', '-e', '0');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toMatchObject({ error: { type: 'UsageError', file: null } });
    expect(r.err).toMatch(/^aorta-probe run: --disable-detector: /);
  });

  it('a reader that goes away (EPIPE on stdout) stops the display, not the trial: result.json and the exit status stand', async () => {
    const dir = out();
    const stdin = new PassThrough();
    stdin.end('');
    const epipe = (): Error => Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    const stdout = new Writable({ write: (_c, _e, cb) => cb(epipe()) });
    const stderr = new PassThrough();
    stderr.resume();
    const code = "for (let i = 0; i < 2000; i++) console.log('line ' + i); process.exit(4)";
    expect(
      await runCli(['run', '--out', dir, '--gpu-tool', 'none', '--', 'node', '-e', code], { stdin, stdout, stderr }),
    ).toBe(1);
    expect(JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'))).toMatchObject({
      verdict: 'fail',
      exit_code: 4,
      failure_detectors_fired: ['tier1:exit_nonzero'],
    });
    expect(readFileSync(join(dir, 'output.log'), 'utf8').split('\n')).toHaveLength(2001);
  });

  it('the top-level help lists run and demo', async () => {
    const r = await cli(['--help']);
    expect(r.out).toContain(
      '  run [--recipe RECIPE] [--out DIR] [--timeout SECONDS] [--format text|json|junit|github] [--quiet]\n',
    );
    expect(r.out).toContain('  demo [--json] [--quiet]\n');
  });
});

describe('aorta-probe run: Tier 2 says what it does (issue 35 §3, §4)', () => {
  /** A bare patterns file with the hang keys: no sweep recipe needed for one run. */
  const bareWithHangKeys = (body: string): string => {
    const file = join(root, `hang-${++n}.yaml`);
    writeFileSync(
      file,
      `custom_patterns:\n  - id: done\n    on_match: info\n    match: {regex: 'training complete'}\n${body}`,
    );
    return file;
  };
  const HANG_RECORD = /^aorta-probe: hang detected at \d+\.\d s \(no output 0\.5 s, no I\/O\)\n$/;

  it('says once, at the start, that without a timeout a hang will not stop the trial; not with one, nor with kill or Tier 2 off', async () => {
    const quick = ['--gpu-tool', 'none', '--quiet'];
    const cmd = ['--', 'node', '-e', '0'];
    expect((await run('--out', out(), ...quick, ...cmd)).err).toBe(NO_TIMEOUT);
    expect((await run('--out', out(), ...quick, '--timeout', '60', ...cmd)).err).toBe('');
    expect((await run('--out', out(), ...quick, '--hang-action', 'kill', ...cmd)).err).toBe('');
    expect((await run('--out', out(), ...quick, '--disable-detector', 'tier2', ...cmd)).err).toBe('');
    expect((await run('--out', out(), ...quick, '--disable-detector', 'tier2:hang', ...cmd)).err).toBe('');
    // The recipe's timeout counts as one; its hang_action: kill too.
    const timed = join(root, 'timed.yaml');
    writeFileSync(
      timed,
      'schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\ntimeout_per_trial: 60\n',
    );
    expect((await run('--recipe', timed, '--out', out(), ...quick, ...cmd)).err).toBe('');
    expect((await run('--recipe', bareWithHangKeys('hang_action: kill\n'), '--out', out(), ...quick, ...cmd)).err).toBe(
      '',
    );
  });

  it('hang_action record: one stderr line at the detection, the trial runs on, and the summary says so', async () => {
    const dir = out();
    const r = await run(
      '--recipe',
      bareWithHangKeys('hang_window_sec: 60\n'),
      '--hang-window',
      '0.5',
      '--hang-grace',
      '0',
      '--out',
      dir,
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      'sh',
      '-c',
      'sleep 2; exit 4',
    );
    expect(r.code).toBe(1);
    expect(r.err.startsWith(NO_TIMEOUT)).toBe(true);
    expect(r.err.slice(NO_TIMEOUT.length)).toMatch(HANG_RECORD);
    expect(r.out).toMatch(
      /\nhang: detected at \d+\.\d s \(no output 0\.5 s, no I\/O\): recorded \(tier2:hang\); the trial was not stopped\n/,
    );
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as Record<string, unknown>;
    expect(result.failure_detectors_fired).toEqual(['tier1:exit_nonzero', 'tier2:hang']);
    // The flags win over the recipe's hang_window_sec: 60.
    expect(result.hang).toMatchObject({ window_sec: 0.5, grace_sec: 0, action: 'record', killed: false });
  }, 30_000);

  it('a hang latched by a trial that then exits 0 is printed, and the summary says it was dropped', async () => {
    const r = await run(
      '--hang-window',
      '0.5',
      '--hang-grace',
      '0',
      '--out',
      out(),
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      'sleep',
      '2',
    );
    expect(r.code).toBe(0);
    expect(r.err.slice(NO_TIMEOUT.length)).toMatch(HANG_RECORD);
    expect(r.out).toMatch(
      /\nhang: detected at \d+\.\d s \(no output 0\.5 s, no I\/O\): recorded, then dropped: the trial exited 0 \(reconciled\)\n/,
    );
  }, 30_000);

  it('--hang-action kill: the line says the trial is being stopped; the summary that it was', async () => {
    const r = await run(
      '--hang-window',
      '0.5',
      '--hang-grace',
      '0',
      '--hang-action',
      'kill',
      '--out',
      out(),
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      'sleep',
      '30',
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^aorta-probe: hang detected at \d+\.\d s \(no output 0\.5 s, no I\/O\): stopping the trial \(hang_action: kill\)\n$/,
    );
    expect(r.out).toContain('exit code: -1 (killed: hang)\n');
    expect(r.out).toMatch(
      /\nhang: detected at \d+\.\d s \(no output 0\.5 s, no I\/O\): the trial was stopped \(hang_action: kill\)\n/,
    );
  }, 30_000);

  it('checks --hang-window, --hang-grace and --hang-action as the recipe checks its keys (exit 2, nothing run)', async () => {
    const bad = async (...args: string[]): Promise<string> => {
      const r = await run(...args, '--', 'node', '-e', 'process.exit(9)');
      expect(r.code).toBe(2);
      return r.err.split('\n')[0]!;
    };
    expect(await bad('--hang-window', '0')).toBe(
      "aorta-probe: run: --hang-window must be a positive number of seconds, got '0'",
    );
    expect(await bad('--hang-window', 'soon')).toBe(
      "aorta-probe: run: --hang-window must be a positive number of seconds, got 'soon'",
    );
    expect(await bad('--hang-grace', '-1')).toBe(
      "aorta-probe: run: --hang-grace must be a non-negative number of seconds, got '-1'",
    );
    expect(await bad('--hang-action', 'stop')).toBe(
      "aorta-probe: run: --hang-action must be one of record, kill, got 'stop'",
    );
    // --hang-grace 0 is allowed, as hang_grace_period_at_start: 0 is.
    const r = await run(
      '--hang-grace',
      '0',
      '--timeout',
      '30',
      '--out',
      out(),
      '--gpu-tool',
      'none',
      '--',
      'node',
      '-e',
      '0',
    );
    expect(r.code).toBe(0);
  });

  it('--help lists the hang flags', async () => {
    const r = await run('--help');
    expect(r.out).toContain('[--gpu-interval SECONDS] [--hang-window SECONDS]\n');
    expect(r.out).toContain('[--hang-grace SECONDS] [--hang-action record|kill] [--disable-detector');
    expect(r.out).toContain('  --hang-window SECONDS\n');
  });
});
