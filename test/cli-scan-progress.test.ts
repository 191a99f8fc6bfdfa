import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { cliInProcess } from './support/run-cli.js';

describe('aorta-probe scan on a terminal', () => {
  it('draws a progress line with bytes and bytes/s during a long scan, and clears it before the verdict', async () => {
    const line = 'step 1 | loss=0.5\n'.repeat(1000); // 18,000 bytes per chunk
    async function* slowLog(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 8; i++) {
        yield Buffer.from(line);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const { code, out, err } = await cliInProcess(['scan', '-'], Readable.from(slowLog()), { stderrTty: true });
    expect(code).toBe(0);
    expect(out).toBe('verdict: pass\nfailure detectors: (none)\nwarn detectors: (none)\ncapture: {}\n');
    const frames = err.split('\r\x1b[K').filter((f) => f !== '');
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) expect(f).toMatch(/^scanned \d+(\.\d+)? (B|KiB|MiB) · \d+(\.\d+)? (B|KiB|MiB)\/s$/);
    expect(err.endsWith('\r\x1b[K')).toBe(true); // cleared before the verdict
  }, 20_000);

  it('draws nothing when stderr is not a terminal', async () => {
    const { code, err } = await cliInProcess(['scan', '-'], 'step 1 | loss=0.5\n');
    expect(code).toBe(0);
    expect(err).toBe('');
  });
});
