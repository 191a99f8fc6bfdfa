import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';

describe('aorta-probe scan on a terminal', () => {
  it('draws a progress line with bytes and bytes/s during a long scan, and clears it before the verdict', async () => {
    const line = 'step 1 | loss=0.5\n'.repeat(1000); // 18,000 bytes per chunk
    async function* slowLog(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 8; i++) {
        yield Buffer.from(line);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const stdin = Readable.from(slowLog());
    const stdout = new PassThrough();
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    let out = '';
    let err = '';
    stdout.on('data', (c: Buffer) => (out += c.toString()));
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await runCli(['scan', '-'], { stdin, stdout, stderr });
    expect(code).toBe(0);
    expect(out).toBe('verdict: pass\nfailure detectors: (none)\nwarn detectors: (none)\ncapture: {}\n');
    const frames = err.split('\r\x1b[K').filter((f) => f !== '');
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) expect(f).toMatch(/^scanned \d+(\.\d+)? (B|KiB|MiB) · \d+(\.\d+)? (B|KiB|MiB)\/s$/);
    expect(err.endsWith('\r\x1b[K')).toBe(true); // cleared before the verdict
  }, 20_000);

  it('draws nothing when stderr is not a terminal', async () => {
    const stdin = Readable.from([Buffer.from('step 1 | loss=0.5\n')]);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c: Buffer) => (err += c.toString()));
    expect(await runCli(['scan', '-'], { stdin, stdout, stderr })).toBe(0);
    expect(err).toBe('');
  });
});
