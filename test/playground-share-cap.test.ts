/**
 * Issue 33 §6: a share link is a deflate-raw payload, which expands ~1000 times, so a link of under 1 MB held a
 * log of hundreds of MiB (28 s and 2.8 GB of the tab). Opening a link stops inflating as soon as its state passes
 * MAX_LINK_STATE_BYTES, and says so; writing one refuses a state over it. Module-level (the codec is plain TS on
 * the web streams Node shares with the browser), plus the banner in headless Chromium.
 */
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inflateCapped, ShareLinkTooLarge } from '../playground/src/inflate-capped.js';
import { MAX_LINK_STATE_BYTES, readHash, writeHash, type PageState } from '../playground/src/state.js';
import { ServedPlayground, SKIP_BROWSER } from './support/browser.js';

const MESSAGE = 'This share link was not opened: it expands to more than 4 MiB (the limit for a link).';

/** Node's DecompressionStream hands out 16 KiB chunks; the cap may be overrun by at most one of them. */
const CHUNK = 64 * 1024;

const base64Url = (b: Uint8Array): string =>
  Buffer.from(b).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

const VARS = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };
const state = (recipe: string, log = ''): PageState => ({
  recipe,
  log,
  vars: VARS,
  expr: '',
  scratchVars: VARS,
  capture: '',
});

/** A link whose JSON is a page state with a `log` of `n` copies of `c`: what a crafted link looks like. */
function craftedLink(n: number, c: string): string {
  const json = `{"recipe":"","log":"${c.repeat(n)}","vars":{"exit_code":0,"walltime_sec":0,"peak_vram_mib":null},"expr":"","scratchVars":{"exit_code":0,"walltime_sec":0,"peak_vram_mib":null},"capture":""}`;
  return `#z=${base64Url(deflateRawSync(Buffer.from(json), { level: 9 }))}`;
}

describe('opening a share link', () => {
  it('a link that expands to 48 MiB of one byte is refused with the message, after at most the cap and one chunk', async () => {
    const bomb = deflateRawSync(Buffer.alloc(48 * 1024 * 1024, 0x7a), { level: 9 });
    expect(bomb.byteLength).toBeLessThan(64 * 1024); // the crafted link is small
    const err = await inflateCapped(bomb, MAX_LINK_STATE_BYTES).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShareLinkTooLarge);
    expect((err as ShareLinkTooLarge).message).toBe(MESSAGE);
    const decoded = (err as ShareLinkTooLarge).decodedBytes;
    expect(decoded).toBeGreaterThan(MAX_LINK_STATE_BYTES);
    expect(decoded).toBeLessThanOrEqual(MAX_LINK_STATE_BYTES + CHUNK);
  });

  it('readHash rejects a crafted page-state link (a 20 MiB log) with the same message', async () => {
    await expect(readHash(craftedLink(20 * 1024 * 1024, 'q'))).rejects.toThrow(MESSAGE);
  });

  it('a smaller cap stops as early: 1 MiB of output from a 1 KiB cap is refused past 1 KiB and one chunk', async () => {
    const err = (await inflateCapped(deflateRawSync(Buffer.alloc(1 << 20, 0)), 1024).catch(
      (e: unknown) => e,
    )) as ShareLinkTooLarge;
    expect(err.message).toBe('This share link was not opened: it expands to more than 1 KiB (the limit for a link).');
    expect(err.decodedBytes).toBeLessThanOrEqual(1024 + CHUNK);
  });

  it('a state just under the cap still opens, byte for byte', async () => {
    const link = craftedLink(MAX_LINK_STATE_BYTES - 1024, 'r');
    const s = await readHash(link);
    expect(s?.log.length).toBe(MAX_LINK_STATE_BYTES - 1024);
    expect(s?.recipe).toBe('');
  });

  it('writeHash and readHash round-trip; a state over the cap gets no link', async () => {
    const small = state('custom_patterns: []\n', 'step 1 loss=0.5\n');
    const hash = await writeHash(small);
    expect(hash).toMatch(/^#z=[A-Za-z0-9_-]+$/);
    expect(await readHash(hash!)).toEqual(small);
    expect(await writeHash(state(`# ${'x'.repeat(MAX_LINK_STATE_BYTES)}\n`))).toBeNull();
  });
});

describe.skipIf(SKIP_BROWSER)('the playground opened from an oversized link', () => {
  const playground = new ServedPlayground();
  beforeAll(() => playground.start(), 180_000);
  afterAll(() => playground.stop());

  it('shows why in the banner and opens the first example instead', async () => {
    const { page } = await playground.open(craftedLink(6 * 1024 * 1024, 'w'));
    expect(await page.isVisible('#link-banner')).toBe(true);
    expect(await page.textContent('#link-banner')).toBe(MESSAGE);
    expect(await page.inputValue('#example')).not.toBe('');
    await page.close();
  }, 60_000);
});
