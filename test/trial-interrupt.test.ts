/**
 * Ctrl-C: the real CLI runs in a child process (bundled from src/ with rolldown, so no build step is needed), a
 * trial runs under it, and the test sends SIGINT to the CLI as a terminal would (the trial is in its own session,
 * so only the CLI gets it and must forward it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTrial } from '../src/trial/index.js';
import { bundleCli } from './support/fake-trial-tools/cli-bundle.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-interrupt-'));
let cliMain = '';
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(async () => {
  cliMain = (await bundleCli(join(root, 'bundle'))).main;
}, 60_000);

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the CLI; `until` resolves when `file` exists (the trial is running), then `signals` are sent to the CLI. */
async function runCliAndInterrupt(args: string[], readyFile: string, signals: NodeJS.Signals[]): Promise<Finished> {
  const cli = spawn(process.execPath, [cliMain, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  cli.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  cli.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Finished>((res) => cli.on('close', (code, signal) => res({ code, signal, stdout, stderr })));
  const t0 = Date.now();
  while (!existsSync(readyFile)) {
    if (Date.now() - t0 > 15_000) throw new Error(`trial never became ready; stderr: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const s of signals) {
    cli.kill(s);
    await new Promise((r) => setTimeout(r, 150));
  }
  return done;
}

describe('Ctrl-C during a trial', () => {
  it('forwards SIGINT to the trial, writes result.json (tier1:interrupted, verdict error) and exits 130', async () => {
    const out = join(root, 'out1');
    const ready = join(root, 'ready1');
    const got = join(root, 'got1');
    const child = `const fs = require('fs');
      process.on('SIGINT', () => { fs.writeFileSync(${JSON.stringify(got)}, 'SIGINT'); console.log('child: got SIGINT'); process.exit(130); });
      console.log('child: running'); fs.writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => {}, 1000);`;
    const r = await runCliAndInterrupt(
      ['run', '--out', out, '--gpu-tool', 'none', '--json', '--quiet', '--', process.execPath, '-e', child],
      ready,
      ['SIGINT'],
    );
    expect(r.code).toBe(130);
    expect(readFileSync(got, 'utf8')).toBe('SIGINT');
    expect(r.stderr).toBe(
      'aorta-probe: no --timeout: a detected hang is recorded (hang_action: record) but will not stop the trial\n' +
        'aorta-probe run: SIGINT: stopping the trial (Ctrl-C again to kill it)\n',
    );
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Record<string, unknown>;
    expect(JSON.parse(r.stdout)).toEqual(result);
    expect(result).toMatchObject({
      verdict: 'error',
      exit_code: 130,
      interrupted: true,
      timed_out: false,
      failure_detectors_fired: [],
      error_detectors_fired: ['tier1:interrupted'],
    });
    expect(readFileSync(join(out, 'output.log'), 'utf8')).toBe('child: running\nchild: got SIGINT\n');
  }, 30_000);

  it('a second Ctrl-C kills a trial that ignores SIGINT (exit_code -9), and the result is still written', async () => {
    const out = join(root, 'out2');
    const ready = join(root, 'ready2');
    const child = `process.on('SIGINT', () => console.log('child: ignoring SIGINT'));
      require('fs').writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => {}, 1000);`;
    const r = await runCliAndInterrupt(
      ['run', '--out', out, '--gpu-tool', 'none', '--quiet', '--', process.execPath, '-e', child],
      ready,
      ['SIGINT', 'SIGINT'],
    );
    expect(r.code).toBe(130);
    expect(r.stdout).toContain('verdict: error\nexit code: -9 (SIGKILL)\n');
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Record<string, unknown>;
    expect(result).toMatchObject({
      verdict: 'error',
      exit_code: -9,
      interrupted: true,
      error_detectors_fired: ['tier1:interrupted'],
    });
    expect(readFileSync(join(out, 'output.log'), 'utf8')).toBe('child: ignoring SIGINT\n');
  }, 30_000);

  it('SIGTERM to the CLI is forwarded as SIGTERM (exit status 143)', async () => {
    const out = join(root, 'out3');
    const ready = join(root, 'ready3');
    const child = `require('fs').writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => {}, 1000);`;
    const r = await runCliAndInterrupt(
      ['run', '--out', out, '--gpu-tool', 'none', '--json', '--', process.execPath, '-e', child],
      ready,
      ['SIGTERM'],
    );
    expect(r.code).toBe(143);
    expect(JSON.parse(r.stdout)).toMatchObject({
      verdict: 'error',
      exit_code: -15,
      interrupted: true,
      error_detectors_fired: ['tier1:interrupted'],
    });
  }, 30_000);

  it('runTrial: an AbortSignal interrupts; a failure found in the log still wins over the interrupt', async () => {
    const ac = new AbortController();
    const ready = join(root, 'ready4');
    const child = `console.log('Traceback (most recent call last):'); require('fs').writeFileSync(${JSON.stringify(ready)}, ''); setInterval(() => {}, 1000);`;
    const pending = runTrial(null, [process.execPath, '-e', child], {
      outDir: join(root, 'out4'),
      gpuTool: 'none',
      signal: ac.signal,
      killGraceMs: 500,
    });
    while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    const { result } = await pending;
    expect(result).toMatchObject({
      verdict: 'fail',
      exit_code: -2,
      interrupted: true,
      failure_detectors_fired: ['tier4:python_traceback'],
      error_detectors_fired: ['tier1:interrupted'],
    });
  }, 30_000);
});
