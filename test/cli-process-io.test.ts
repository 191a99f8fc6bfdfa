/**
 * The bin's standard streams (src/cli/process-io.ts): a cold command whose output is a few writes creates no
 * stream object, so node's stream modules (and `net`, for a pipe) stay unloaded; its output and exit status are
 * the same as through the streams. Run on the built bin, with stdin, stdout and stderr pipes as a CI job has.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const MAIN = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.cjs');
const dir = mkdtempSync(join(tmpdir(), 'aorta-process-io-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Preloaded into the bin's process: at exit, the node modules it loaded, one per line.
const DUMP = join(dir, 'dump-modules.cjs');
writeFileSync(
  DUMP,
  "process.on('exit', () => require('fs').writeFileSync(process.env.AORTA_TEST_MODULES, process.moduleLoadList.join('\\n')));\n",
);

function run(args: string[], env: Record<string, string> = {}) {
  const list = join(dir, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const r = spawnSync(process.execPath, ['-r', DUMP, MAIN, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', AORTA_TEST_MODULES: list, ...env },
  });
  const modules = readFileSync(list, 'utf8').split('\n');
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, streams: modules.includes('NativeModule stream') };
}

describe('the bin writes a short answer without creating stream objects', () => {
  it('eval: the answer on stdout, no stream module loaded', () => {
    const r = run(['eval', "capture['loss'] == 'nan'", '--capture', 'loss=nan']);
    expect(r).toEqual({ status: 0, stdout: 'value: True\ntype:  bool\nfired: yes\n', stderr: '', streams: false });
  });

  it('eval: a rejected condition on stderr, exit 1', () => {
    const r = run(['eval', 'exit_code ==']);
    expect(r).toEqual({
      status: 1,
      stdout: '',
      stderr: 'condition: syntax error: invalid syntax (line 1, col 0)\n  exit_code ==\n              ^\n',
      streams: false,
    });
  });

  it('FORCE_COLOR colours the answer written to a pipe', () => {
    const r = run(['eval', 'exit_code == 0'], { FORCE_COLOR: '1' });
    expect(r.stdout).toBe('value: \x1b[1mTrue\x1b[22m\ntype:  bool\nfired: \x1b[1m\x1b[32myes\x1b[39m\x1b[22m\n');
    expect(r.streams).toBe(false);
  });

  it('--version and check of the demo recipe', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(run(['--version'])).toEqual({
      status: 0,
      stdout: `aorta-probe ${pkg.version}\n`,
      stderr: '',
      streams: false,
    });
    const check = run(['check', 'fixtures/demo/recipe.yaml']);
    expect(check.status).toBe(0);
    expect(check.stdout).toBe('fixtures/demo/recipe.yaml: valid (3 custom patterns)\n');
    expect(check.streams).toBe(false);
  });

  it('a command that reads stdin still gets it as a stream', () => {
    const r = spawnSync(process.execPath, [MAIN, 'check', '-'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      input: readFileSync(join(REPO_ROOT, 'fixtures/demo/recipe.yaml')),
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('<stdin>: valid (3 custom patterns)\n');
  });

  it('a reader that went away (EPIPE) ends the command quietly, as through the stream', () => {
    // `head -c 0` closes the pipe before the bin writes.
    const r = spawnSync(
      'sh',
      ['-c', `"${process.execPath}" "${MAIN}" eval 'exit_code == 0' | head -c 0; echo "status $?"`],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      },
    );
    expect(r.stdout).toBe('status 0\n');
    expect(r.stderr).toBe('');
  });
});
