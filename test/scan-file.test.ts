/** src/scan/file.ts: openFileChunks closes the file however its iteration ends. */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFileChunks } from '../src/scan/file.js';

const dir = mkdtempSync(join(tmpdir(), 'aorta-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = join(dir, 'train.log');
writeFileSync(log, 'step 1\n'.repeat(100_000));

/** Descriptors this process has open (Linux). */
const openFds = (): number => readdirSync('/proc/self/fd').length;

describe('openFileChunks', () => {
  it('reports the size, and closes the file when return() comes before the first chunk', async () => {
    const before = openFds();
    const chunks = await openFileChunks(log);
    expect(chunks.size).toBe(700_000);
    expect(openFds()).toBe(before + 1);
    await chunks.return(undefined);
    expect(openFds()).toBe(before);
  });

  it('closes it when the iteration stops early, and when it ends', async () => {
    const before = openFds();
    const early = await openFileChunks(log, 4096);
    for await (const c of early) {
      expect(c.length).toBe(4096);
      break;
    }
    expect(openFds()).toBe(before);
    let bytes = 0;
    for await (const c of await openFileChunks(log, 65_536)) bytes += c.length;
    expect(bytes).toBe(700_000);
    expect(openFds()).toBe(before);
  });
});
