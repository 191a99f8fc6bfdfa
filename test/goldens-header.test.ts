/**
 * Every golden file under fixtures/ says where it comes from: its header names a generator that exists in this
 * repo, the exact command that wrote it (which `npm run goldens` runs), and the Python version of the oracle
 * ("not used" for the goldens our own code writes).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM helper shared with scripts/regenerate-goldens.mjs
import { goldenFiles, goldenMeta } from '../scripts/golden-files.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const files = goldenFiles(ROOT) as string[];

describe('golden file headers', () => {
  it('finds the goldens', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });
  it.each(files)('%s names its generator, command and Python version', (path) => {
    const meta = goldenMeta(ROOT, path) as { generator?: unknown; command?: unknown; python?: unknown } | null;
    expect(meta, `${path} has no header`).not.toBeNull();
    expect(typeof meta!.generator).toBe('string');
    expect(
      existsSync(join(ROOT, meta!.generator as string)),
      `${path}: generator ${String(meta!.generator)} does not exist`,
    ).toBe(true);
    expect(meta!.command as string).toContain(meta!.generator as string);
    // A golden that Python wrote names its version; one that our own code writes (the bytecode listings) says so.
    if ((meta!.generator as string).endsWith('.py')) expect(meta!.python as string).toMatch(/^3\.\d+\.\d+/);
    else expect(meta!.python).toBe('not used');
  });
});
