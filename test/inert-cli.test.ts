/**
 * Issue 33 §5: output that reaches a terminal or a CI runner is inert. A trial's log, its kernel log, its GPU tool
 * and a recipe could put ESC sequences (a window title, a clipboard write: OSC 52, a line that fakes
 * `verdict: pass`) on the terminal through `scan`/`run` text; with `run --format github` the trial's own workflow
 * commands (`::error`, `::add-mask::`, `::stop-commands::`) reached the runner. Text outputs escape controls
 * (text/inert.ts), JSON stays exact, and the github echo is framed by a random stop-commands token.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempRoot } from './support/classifier.js';

/** `run` with no timeout, Tier 2 on and hang_action record says this once at the start (issue 35 §4). */
const NO_TIMEOUT =
  'aorta-probe: no --timeout: a detected hang is recorded (hang_action: record) but will not stop the trial\n';
import { cliInProcess } from './support/run-cli.js';

const tmp = tempRoot('aorta-inert-cli-');
afterAll(() => tmp.cleanup());

const MAIN = resolve('dist/src/cli/main.cjs');

function file(name: string, text: string): string {
  const dir = tmp.dir('in');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

// A custom id that sets the window title, and a pattern whose match carries the rest of the line.
const RECIPE =
  'custom_patterns:\n  - id: "epoch\\e]2;id\\a"\n    match:\n      regex: "epoch (?P<n>\\\\d+): (.*)"\n    on_match: fail\n';
// The line: a title (OSC 2 ending in ST), a clipboard write (OSC 52), a C1 CSI, a line separator, a carriage
// return and a forged summary line after it.
const LINE = 'epoch 7: \x1b]2;owned\x1b\\ grads \x1b]52;c;cm0gLXJmIH4=\x07 \u009b2J\u2028tail\rverdict: pass';
const SHOWN = 'epoch 7: \\x1b]2;owned\\x1b\\ grads \\x1b]52;c;cm0gLXJmIH4=\\x07 \\x9b2J\\u2028tail\\x0dverdict: pass';
const ID_SHOWN = 'custom:epoch\\x1b]2;id\\x07';

describe('scan: text is inert, JSON exact', () => {
  it('the match, the id and the failing-detector list are escaped in text', async () => {
    const recipe = file('r.yaml', RECIPE);
    const log = file('train.log', `warmup\n${LINE}\n`);
    const r = await cliInProcess(['scan', '--recipe', recipe, log]);
    expect(r.code).toBe(1);
    expect(r.out).toBe(
      `${log}:2: ${ID_SHOWN} — ${SHOWN}  {'n': '7'}\n` +
        'verdict: fail\n' +
        `failure detectors: ${ID_SHOWN}\n` +
        'warn detectors: (none)\n' +
        "capture: {'n': '7'}\n",
    );
  });

  it('github annotations carry the escaped text; --json carries the exact bytes', async () => {
    const recipe = file('r.yaml', RECIPE);
    const log = file('train.log', `${LINE}\n`);
    const gh = await cliInProcess(['scan', '--recipe', recipe, '--format', 'github', log]);
    expect(gh.out).toBe(
      `::error file=${log.replaceAll(':', '%3A')},line=1,title=custom%3Aepoch\\x1b]2;id\\x07::${log}:1: ${SHOWN} {'n': '7'}\n`,
    );
    const json = await cliInProcess(['scan', '--recipe', recipe, '--json', log]);
    const doc = JSON.parse(json.out) as { detectors: { id: string; match: string }[] };
    expect(doc.detectors.map((d) => [d.id, d.match])).toEqual([['custom:epoch\x1b]2;id\x07', LINE]]);
  });
});

describe('run: text is inert', () => {
  it("the summary escapes the match, the ids and an exec error; the trial's own echo is its own", async () => {
    const recipe = file('r.yaml', RECIPE);
    const dir = tmp.dir('out');
    const r = await cliInProcess([
      'run',
      '--recipe',
      recipe,
      '--gpu-tool',
      'none',
      '--out',
      dir,
      '--',
      process.execPath,
      '-e',
      `process.stdout.write(${JSON.stringify(`${LINE}\n`)})`,
    ]);
    expect(r.code).toBe(1);
    const summary = r.out.slice(r.out.indexOf('\n\n') + 2);
    expect(summary.split('\n').slice(0, 2)).toEqual([
      `${join(dir, 'output.log')}:1: ${ID_SHOWN} — ${SHOWN}  {'n': '7'}`,
      'verdict: fail',
    ]);
    expect(summary).toContain(`\nfailure detectors: ${ID_SHOWN}\n`);
    // The exec error names the command it could not start.
    const bad = await cliInProcess(['run', '--gpu-tool', 'none', '--out', tmp.dir('out'), '--', 'no-such\x1b[2Jtool']);
    expect(bad.code).toBe(3);
    expect(bad.out).toContain(
      '\nexit code: 127 (cannot start "no-such\\u001b[2Jtool": spawn no-such\\x1b[2Jtool ENOENT)\n',
    );
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as { detectors: { match: string }[] };
    expect(result.detectors[0]!.match).toBe(LINE); // the record stays exact
  });

  it('the tier3 line and the GPU warnings quote their tools escaped', () => {
    const bin = tmp.dir('bin');
    mkdirSync(bin, { recursive: true });
    const tool = (name: string, stderr: string): void => {
      writeFileSync(join(bin, name), `#!/bin/sh\nprintf '${stderr}' >&2\nexit 1\n`);
      chmodSync(join(bin, name), 0o755);
    };
    tool('dmesg', '\\033]0;dmesg owned\\007restricted\\n');
    tool('journalctl', '\\302\\233Averdict: pass\\n');
    tool('nvidia-smi', '\\033]52;c;ZWNobw==\\007 NVML gone\\n');
    const dir = tmp.dir('out');
    const r = spawnSync(
      process.execPath,
      [MAIN, 'run', '--gpu-tool', 'nvidia-smi', '--gpu-interval', '0.1', '--out', dir, '--', 'true'],
      { encoding: 'utf8', env: { ...process.env, PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` } },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      '\ntier3: not checked: kernel log: dmesg: exit status 1: \\x1b]0;dmesg owned\\x07restricted; ' +
        'journalctl: exit status 1: \\x9bAverdict: pass\n',
    );
    expect(r.stderr).toBe(
      NO_TIMEOUT +
        'aorta-probe run: warning: nvidia-smi --query-gpu exited with status 1: \\x1b]52;c;ZWNobw==\\x07 NVML gone\n',
    );
  }, 30_000);
});

describe('run --format github frames the echo with stop-commands', () => {
  /** A trial that forges commands (and ends without a newline, so the resume line must start its own). */
  const FORGER = [
    '::error file=src/a.py,line=1::forged by the trial',
    '::add-mask::hunter2',
    '\x1b]0;ci owned\x07::stop-commands::guessed',
    'epoch 3: diverged',
  ].join('\n');

  const run = async () => {
    const recipe = file('r.yaml', RECIPE);
    const dir = tmp.dir('out');
    const r = await cliInProcess([
      'run',
      '--recipe',
      recipe,
      '--gpu-tool',
      'none',
      '--format',
      'github',
      '--out',
      dir,
      '--',
      process.execPath,
      '-e',
      `process.stdout.write(${JSON.stringify(FORGER)})`,
    ]);
    return { ...r, log: join(dir, 'output.log') };
  };

  it('stop line, the echo, then the resume line on a line of its own, then our annotations', async () => {
    const r = await run();
    expect(r.code).toBe(1);
    const m = /^::stop-commands::([0-9a-f]+)\n([\s\S]*)\n::\1::\n([\s\S]*)$/.exec(r.out);
    expect(m).not.toBeNull();
    const [, token, echoed, ours] = m!;
    expect(token!.length).toBeGreaterThanOrEqual(32);
    expect(echoed).toBe(FORGER);
    const file = r.log.replaceAll(':', '%3A');
    expect(ours).toBe(
      `::error file=${file},line=4,title=custom%3Aepoch\\x1b]2;id\\x07::${r.log}:4: epoch 3: diverged {'n': '3'}\n`,
    );
    expect(r.err).toBe(NO_TIMEOUT);
  });

  it('the token is fresh every run', async () => {
    const tokens = await Promise.all([run(), run()]).then((rs) => rs.map((r) => r.out.split('\n')[0]));
    expect(tokens[0]).toMatch(/^::stop-commands::[0-9a-f]{32}$/);
    expect(tokens[1]).toMatch(/^::stop-commands::[0-9a-f]{32}$/);
    expect(tokens[0]).not.toBe(tokens[1]);
  });

  it('--quiet: no echo, so no frame; json keeps the echo on stderr, unframed', async () => {
    const recipe = file('r.yaml', RECIPE);
    const argv = ['--', process.execPath, '-e', 'console.log("epoch 1: ok")'];
    const quiet = await cliInProcess([
      'run',
      '--recipe',
      recipe,
      '--gpu-tool',
      'none',
      '--format',
      'github',
      '--quiet',
      '--out',
      tmp.dir('out'),
      ...argv,
    ]);
    expect(quiet.out).toMatch(/^::error file=[^\n]*::[^\n]*epoch 1: ok \{'n': '1'\}\n$/);
    const json = await cliInProcess([
      'run',
      '--recipe',
      recipe,
      '--gpu-tool',
      'none',
      '--json',
      '--out',
      tmp.dir('out'),
      ...argv,
    ]);
    expect(json.err).toBe(`${NO_TIMEOUT}epoch 1: ok\n`);
  });
});
