import { describe, expect, it } from 'vitest';
import { extractJsonDocuments } from '../src/gpu/json-docs.js';
import { runTool } from '../src/gpu/run-tool.js';

const env = process.env;

describe('runTool', { timeout: 20000 }, () => {
  it('returns stdout, stderr and the exit status, 0 or not', async () => {
    expect(await runTool('/bin/sh', ['-c', 'echo out; echo err >&2; exit 3'], { env, timeoutMs: 10000 })).toEqual({
      kind: 'exited',
      exitCode: 3,
      stdout: 'out\n',
      stderr: 'err\n',
    });
  });

  it('sets PYTHONUNBUFFERED=1 for the tool (amd-smi is Python)', async () => {
    expect(
      await runTool('/bin/sh', ['-c', 'echo "$PYTHONUNBUFFERED"'], {
        env: { PATH: '/usr/bin:/bin' },
        timeoutMs: 10000,
      }),
    ).toEqual({
      kind: 'exited',
      exitCode: 0,
      stdout: '1\n',
      stderr: '',
    });
  });

  it('reports a tool that cannot be started', async () => {
    expect(await runTool('/nonexistent/amd-smi', [], { env, timeoutMs: 10000 })).toEqual({
      kind: 'spawn-error',
      code: 'ENOENT',
    });
  });

  it('reports a tool killed by a signal', async () => {
    expect(await runTool('/bin/sh', ['-c', 'kill -SEGV $$'], { env, timeoutMs: 10000 })).toEqual({
      kind: 'signaled',
      signal: 'SIGSEGV',
      stdout: '',
      stderr: '',
    });
  });

  it('kills a tool past the timeout, with its children', async () => {
    const t0 = performance.now();
    expect(await runTool('/bin/sh', ['-c', 'sleep 30; echo never'], { env, timeoutMs: 100 })).toEqual({
      kind: 'timeout',
    });
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('does not wait for a grandchild that keeps the pipes open after the tool exited', async () => {
    const t0 = performance.now();
    expect(await runTool('/bin/sh', ['-c', 'sleep 30 & echo done'], { env, timeoutMs: 10000 })).toEqual({
      kind: 'exited',
      exitCode: 0,
      stdout: 'done\n',
      stderr: '',
    });
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('kills a tool that prints too much', async () => {
    const flood = 'while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done';
    expect(await runTool('/bin/sh', ['-c', flood], { env, timeoutMs: 10000, maxStdoutBytes: 100000 })).toEqual({
      kind: 'output-too-large',
    });
  });

  it('is cancelled through its signal', async () => {
    const ac = new AbortController();
    const p = runTool('/bin/sh', ['-c', 'sleep 30'], { env, timeoutMs: 10000, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect(await p).toEqual({ kind: 'aborted' });
    expect(await runTool('/bin/sh', ['-c', 'echo no'], { env, timeoutMs: 10000, signal: ac.signal })).toEqual({
      kind: 'aborted',
    });
  });
});

describe('extractJsonDocuments on hostile garbage', () => {
  it('gives up after 16 candidates that are not JSON, so its time stays bounded', () => {
    const garbage = '{ unclosed "\n'.repeat(200000); // 2.6 MB
    const t0 = performance.now();
    expect(extractJsonDocuments(`${garbage}{"gpu": 0}\n`)).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(extractJsonDocuments(`${'{x\n'.repeat(15)}{"gpu": 0}\n`)).toEqual([{ value: { gpu: 0 }, line: 16 }]);
  });
});
