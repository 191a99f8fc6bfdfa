// Issue 12 §2 and §5 (runTrial options): output files cannot be redirected, blocked or clobbered; an unusable
// --out is exit 2 before the trial starts; an I/O error afterwards is exit 3 with a message.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { runTrial, TrialOptionsError } from '../src/trial/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-containment-out-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => {
  const d = join(root, `d${++n}`);
  mkdirSync(d);
  return d;
};

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdin = new PassThrough();
  stdin.end('');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (c: Buffer) => (o += c.toString()));
  stderr.on('data', (c: Buffer) => (e += c.toString()));
  const code = await runCli(['run', '--gpu-tool', 'none', '--quiet', ...args], { stdin, stdout, stderr });
  return { code, out: o, err: e };
}

describe('trial output files', () => {
  it('a planted output.log symlink is replaced, its target untouched', async () => {
    const dir = fresh();
    const victim = join(root, `victim${n}`);
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(dir, 'output.log'));
    const r = await run('--out', dir, '--', 'node', '-e', 'console.log("hello")');
    expect(r.code).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(join(dir, 'output.log'), 'utf8')).toBe('hello\n');
  });

  it('a planted output.log FIFO neither hangs nor is opened', async () => {
    const dir = fresh();
    execFileSync('mkfifo', [join(dir, 'output.log')]);
    const t0 = performance.now();
    const r = await run('--out', dir, '--', 'node', '-e', 'console.log("hi")');
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'output.log'), 'utf8')).toBe('hi\n');
  }, 30_000);

  it('an unusable --out is exit 2 before the trial starts', async () => {
    const file = join(root, `plain${++n}`);
    writeFileSync(file, '');
    const marker = join(root, `ran${n}`);
    const r = await run(
      '--out',
      file,
      '--',
      'node',
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`,
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^aorta-probe run: cannot create the output directory .*: /);
    expect(existsSync(marker)).toBe(false);
  });

  it('result.json that cannot be written is exit 3 with a message', async () => {
    const dir = fresh();
    mkdirSync(join(dir, 'result.json'));
    const r = await run('--out', dir, '--', 'node', '-e', '0');
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/aorta-probe run: cannot write .*result\.json: (EISDIR|ENOTEMPTY|EEXIST)/);
    expect(readdirSync(dir).sort()).toEqual(['output.log', 'result.json']); // no temporary file left behind
  });

  it('spill files are not in --out', async () => {
    const dir = fresh();
    const recipe = join(root, `spill${n}.yaml`);
    writeFileSync(
      recipe,
      "custom_patterns:\n  - id: loss\n    match: {regex: 'loss=(?P<l>\\d+)', condition: \"exit_code == 0 and capture['l'] == '7'\"}\n",
    );
    const script = `const fs=require('fs');for(let i=0;i<20;i++)console.log('loss='+i);console.log(JSON.stringify(fs.readdirSync(process.env.AORTA_PROBE_TRIAL_DIR)))`;
    const out = await runTrial(
      (await import('../src/recipe/index.js')).loadRecipe(readFileSync(recipe), recipe),
      ['node', '-e', script],
      { outDir: dir, gpuTool: 'none', scan: { candidateBudget: { candidates: 1, units: 1024 } } },
    );
    expect(out.deferred).toEqual([{ detectorId: 'custom:loss', candidates: 20, spilled: 19 }]);
    expect(readFileSync(join(dir, 'output.log'), 'utf8')).toContain('["output.log"]');
    expect(out.result.failure_detectors_fired).toEqual(['custom:loss']);
  });

  it('runTrial rejects NaN / negative timeouts and an empty outDir with typed errors', async () => {
    await expect(
      runTrial(null, ['true'], { outDir: fresh(), timeoutSec: Number.NaN, gpuTool: 'none' }),
    ).rejects.toThrow(TrialOptionsError);
    await expect(runTrial(null, ['true'], { outDir: fresh(), timeoutSec: -1, gpuTool: 'none' })).rejects.toThrow(
      'runTrial: timeoutSec must be a positive finite number of seconds or null, not -1',
    );
    await expect(runTrial(null, ['true'], { outDir: '', gpuTool: 'none' })).rejects.toThrow(
      'runTrial: outDir must be a non-empty path',
    );
  });
});
