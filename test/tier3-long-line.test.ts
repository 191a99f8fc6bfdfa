/**
 * Issue 33 §6: a kernel-log line over the regex engine's 1 MiB subject limit (a replaced `dmesg` printed a 2 MiB
 * line) made `run` exit 3 with no result.json, after the trial had run. Such a line keeps its first
 * MAX_KERNEL_LINE_BYTES and says it was cut; every trial ends with a verdict and a result.json. A GPU tool that
 * prints without end is killed at its cap and recorded as a warning.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanKernelLines } from '../src/classifier/tier3.js';
import { linesInWindow, MAX_KERNEL_LINE_BYTES, truncateKernelText } from '../src/trial/tier3-kernel.js';
import { tempRoot } from './support/classifier.js';

const MAIN = resolve('dist/src/cli/main.cjs');
const tmp = tempRoot('aorta-tier3-long-');
afterAll(() => tmp.cleanup());

const marker = (total: number): string =>
  ` [aorta-probe: line truncated, ${total} bytes, the first ${MAX_KERNEL_LINE_BYTES} kept]`;

/** `run` without a timeout says once that a recorded hang will not end the trial (issue 35 §4). */
const NO_TIMEOUT_NOTICE =
  'aorta-probe: no --timeout: a detected hang is recorded (hang_action: record) but will not stop the trial\n';

describe('a kernel line over the limit', () => {
  it('keeps its first 64 KiB at a character boundary and says how long it was', () => {
    // A 3-byte character straddles the limit: 21 ASCII bytes + 21838 × 3 bytes = 65535, one byte short of it.
    const head = 'amdgpu: GPU reset: x ';
    const text = `${head}${'€'.repeat(500_000)}`;
    const total = head.length + 3 * 500_000;
    expect(truncateKernelText(text)).toBe(`${head}${'€'.repeat(21_838)}${marker(total)}`);
  });

  it('a line at the limit, or any short one, is kept as it is', () => {
    const exact = 'a'.repeat(MAX_KERNEL_LINE_BYTES);
    expect(truncateKernelText(exact)).toBe(exact);
    expect(truncateKernelText('SDMA hang detected on engine 0')).toBe('SDMA hang detected on engine 0');
  });

  it('a 1.5 MiB stamped line is classified on its kept start instead of throwing', () => {
    const start = Date.parse('2026-12-01T10:00:00Z');
    const text = `NVRM: Xid (PCI:0000:3b:00): 79, pid=7, ${'y'.repeat(1_572_864)}`;
    const lines = linesInWindow(`2026-12-01T10:00:00,500000+00:00 ${text}\n`, start, start + 1000);
    expect(lines).toEqual([
      {
        time: '2026-12-01T10:00:00,500000+00:00',
        text: `${text.slice(0, MAX_KERNEL_LINE_BYTES)}${marker(Buffer.byteLength(text))}`,
      },
    ]);
    expect(scanKernelLines(lines).ids).toEqual(['tier3:nvidia_fallen_off_bus']);
  });
});

/**
 * A bin directory for our own PATH (the runner's): `dmesg` prints $FAKE_KERNEL_LOG (cat: a shell `read` would take
 * seconds over a long line), `journalctl` is never needed, `nvidia-smi` prints $FAKE_SMI_BYTES bytes on one line.
 */
function fakeBin(): string {
  const bin = tmp.dir('bin');
  mkdirSync(bin, { recursive: true });
  const tool = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  tool('dmesg', 'cat "$FAKE_KERNEL_LOG"');
  tool('journalctl', 'echo "journalctl: not expected" >&2; exit 1');
  tool('nvidia-smi', 'head -c "$FAKE_SMI_BYTES" /dev/zero | tr "\\0" "7"');
  return bin;
}

/** The spawned CLI (dist/) with the fake tools first on its own PATH. */
function runCli(args: string[], env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The trial stamps the kernel line itself, with the clock the runner's window is measured on.
const writeKernelLine = (path: string, text: string): string =>
  `require('fs').writeFileSync(${JSON.stringify(path)}, new Date().toISOString() + ' ' + ${text} + '\\n')`;

describe('aorta-probe run with a replaced dmesg printing a 1.5 MiB line', () => {
  it('exits 1 on the kept amdgpu reset, with result.json saying the line was cut', () => {
    const bin = fakeBin();
    const dir = tmp.dir('out');
    const kernelLog = join(tmp.dir('k'), 'kernel.log');
    mkdirSync(join(kernelLog, '..'), { recursive: true });
    const long = `'amdgpu 0000:c1:00.0: amdgpu: GPU reset begin! ' + 'z'.repeat(1572864)`;
    const r = runCli(
      ['run', '--gpu-tool', 'none', '--out', dir, '--', process.execPath, '-e', writeKernelLine(kernelLog, long)],
      { PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`, FAKE_KERNEL_LOG: kernelLog },
    );
    expect(r.stderr).toBe(NO_TIMEOUT_NOTICE);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('failure detectors: tier3:amdgpu_reset\n');
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as {
      verdict: string;
      tier3: { kernel_source: string; kernel_lines_in_window: number; events: { detector: string; line: string }[] };
    };
    const total = 'amdgpu 0000:c1:00.0: amdgpu: GPU reset begin! '.length + 1_572_864;
    expect(result.verdict).toBe('fail');
    expect(result.tier3.kernel_source).toBe('dmesg');
    expect(result.tier3.kernel_lines_in_window).toBe(1);
    expect(result.tier3.events.map((e) => e.detector)).toEqual(['tier3:amdgpu_reset']);
    expect(result.tier3.events[0]!.line.length).toBe(MAX_KERNEL_LINE_BYTES + marker(total).length);
    expect(result.tier3.events[0]!.line.endsWith(marker(total))).toBe(true);
  }, 60_000);

  it('a GPU tool printing 6 MiB on one line is killed at its cap: a warning, a pass, a result.json', () => {
    const bin = fakeBin();
    const dir = tmp.dir('out');
    const r = runCli(['run', '--gpu-tool', 'nvidia-smi', '--gpu-interval', '0.1', '--out', dir, '--', 'sleep', '0.3'], {
      PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`,
      FAKE_KERNEL_LOG: '/nonexistent/kernel.log',
      FAKE_SMI_BYTES: String(6 * 1024 * 1024),
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      NO_TIMEOUT_NOTICE + 'aorta-probe run: warning: nvidia-smi --query-gpu printed more than 4 MiB and was killed\n',
    );
    expect(existsSync(join(dir, 'result.json'))).toBe(true);
    const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as {
      verdict: string;
      peak_vram_mib: number | null;
      gpu: { tool: string; warnings: string[] };
    };
    expect([result.verdict, result.peak_vram_mib, result.gpu.tool]).toEqual(['pass', null, 'nvidia-smi']);
    expect(result.gpu.warnings).toEqual(['nvidia-smi --query-gpu printed more than 4 MiB and was killed']);
  }, 60_000);
});
