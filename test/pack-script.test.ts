/** `npm run pack -- --out DIR` (scripts/pack.mjs): a usage mistake is a one-line message and exit 2, not a stack. */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const pack = (...args: string[]) => spawnSync(process.execPath, ['scripts/pack.mjs', ...args], { encoding: 'utf8' });

describe('scripts/pack.mjs usage errors', () => {
  it('a missing --out directory', () => {
    const r = pack('--out', '/nonexistent/aorta-pack-out');
    expect([r.status, r.stderr, r.stdout]).toEqual([
      2,
      'pack: --out /nonexistent/aorta-pack-out: no such directory (create it first)\n',
      '',
    ]);
  });

  it('--out without a value', () => {
    const r = pack('--out');
    expect([r.status, r.stderr]).toEqual([2, 'pack: --out needs a directory: npm run pack -- --out DIR\n']);
  });
});
