/**
 * End-to-end tests of the browser playground (issue 6) in a real headless Chromium (the npm-installed one, driven by
 * playwright-core). Skipped only with AORTA_SKIP_BROWSER=1; a missing browser fails with a clear message.
 * A screenshot of the main view is saved to test-artifacts/playground.png.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, ServedPlayground, SKIP_BROWSER } from './support/browser.js';

const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');

/** Timings measured here, printed at the end (and kept in test-artifacts/playground-timings.json). */
const timings: Record<string, number> = {};

/** expect.poll with room for a loaded 2-core CI machine (its default is 1 s). */
const poll = <T>(fn: () => T | Promise<T>, timeout = 15_000) => expect.poll(fn, { timeout, interval: 50 });

describe.skipIf(SKIP_BROWSER)('playground in headless Chromium', () => {
  const playground = new ServedPlayground();

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await playground.start();
  }, 180_000);

  afterAll(async () => {
    await playground.stop();
    mkdirSync(ARTIFACTS, { recursive: true });
    if (Object.keys(timings).length > 0)
      writeFileSync(join(ARTIFACTS, 'playground-timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
    console.log('playground timings (ms):', JSON.stringify(timings));
  });

  /** Opens the page as a first visit and waits until it is interactive; collects console errors and page errors. */
  const open = (hash = '') => playground.open(hash);

  const pg = <T>(page: Page, fn: string): Promise<T> =>
    page.evaluate(`(async () => { const p = window.__playground; return ${fn}; })()`) as Promise<T>;

  it('loads with no console errors, shows the NaN-loss example classified, the Tier 4 catalogue, and looks sensible', async () => {
    const { page, problems, loadMs } = await open();
    timings.pageInteractiveWallMs = loadMs;
    const t = await pg<Record<string, number>>(page, 'p.timings');
    timings.pageInteractiveInPageMs = Math.round(t.interactiveMs!);
    timings.enginesReadyInPageMs = Math.round(t.enginesReadyMs!);
    timings.workerEngineInitMs = Math.round(t.workerInitMs!);
    timings.workerReadySinceStartMs = Math.round(t.workerReadySinceStartMs!);
    timings.re2ImportScriptsMs = Math.round(t.re2LoadMs!);
    await poll(() => page.textContent('#verdict')).toBe('fail');
    expect(await page.locator('#catalogue tr[data-detector]').count()).toBe(7);
    expect(await page.textContent('#catalogue')).toContain('tier4:nan_signature');
    expect(await page.isVisible('#catalogue tr[data-detector="tier4:python_traceback"]')).toBe(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'playground.png'), fullPage: true });
    expect(problems.console).toEqual([]);
    expect(await pg(page, 'p.errors')).toEqual([]);
    await page.close();
  }, 60_000);

  it('the catalogue never breaks a regex between two letters or digits, and the table stays inside its panel', async () => {
    const { page, problems } = await open();
    await poll(() => page.locator('#catalogue tr[data-detector]').count()).toBe(7);
    for (const width of [1440, 1000, 700]) {
      await page.setViewportSize({ width, height: 1000 });
      // Where a regex's line ends (a character whose top is below the previous one's), what is on either side.
      const m = await page.evaluate(`(() => {
        const regexes = [...document.querySelectorAll('#catalogue td:nth-child(3) code')].map((c) => {
          const node = c.firstChild;
          const text = c.textContent;
          const top = (i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1); return r.getBoundingClientRect().top; };
          const breaks = [];
          for (let i = 1; i < text.length; i++) if (top(i) > top(i - 1) + 2) breaks.push(text.slice(Math.max(0, i - 3), i) + '|' + text.slice(i, i + 3));
          return { text, breaks, whiteSpace: getComputedStyle(c).whiteSpace };
        });
        const panel = document.getElementById('catalogue-box').closest('.panel').getBoundingClientRect();
        const box = document.getElementById('catalogue-box').getBoundingClientRect();
        return { regexes, inPanel: box.left >= panel.left && box.right <= panel.right };
      })()`);
      const { regexes, inPanel } = m as {
        regexes: { text: string; breaks: string[]; whiteSpace: string }[];
        inPanel: boolean;
      };
      await page.locator('#catalogue-box').screenshot({ path: join(ARTIFACTS, `playground-catalogue-${width}.png`) });
      expect(regexes.map((r) => r.text)).toContain('Watchdog caught collective operation timeout');
      for (const r of regexes) {
        expect(r.whiteSpace).toBe('pre-wrap');
        const midWord = r.breaks.filter((b) => /\w\|\w/.test(b));
        expect([width, r.text, midWord]).toEqual([width, r.text, []]);
      }
      expect(inPanel, `width ${width}`).toBe(true);
    }
    expect(problems.console).toEqual([]);
    await page.close();
  }, 60_000);

  it('marks a hostile condition (lambda x: x) typed into the recipe at its YAML line and column, naming Lambda; the state is in the URL hash', async () => {
    const { page, problems } = await open();
    const recipe = await pg<string>(page, 'p.recipeText()');
    const lines = recipe.split('\n');
    const condLine = lines.findIndex((l) => l.includes('condition:')) + 1;
    const old = "math.isnan(float(capture['loss']))";
    const col = lines[condLine - 1]!.indexOf(old) + 1;
    expect(col).toBeGreaterThan(1);
    await pg(page, `p.selectInRecipe(${JSON.stringify(old)})`);
    await page.keyboard.type('lambda x: x');
    const diag = page.locator('#diagnostics li.diag.error');
    await poll(() => diag.getAttribute('data-node')).toBe('Lambda');
    expect(await diag.getAttribute('data-line')).toBe(String(condLine));
    expect(await diag.getAttribute('data-col')).toBe(String(col));
    expect(await diag.textContent()).toContain('forbidden AST node: Lambda');
    // The CodeMirror lint mark covers the condition on that line, with a gutter marker and a tooltip on hover.
    const mark = page.locator('.cm-lintRange-error');
    await poll(() => mark.count()).toBeGreaterThan(0);
    expect(await mark.first().textContent()).toContain('lambda x: x');
    expect(await page.locator('.cm-lint-marker-error').count()).toBe(1);
    const lineEl = page.locator('.cm-line', { has: page.locator('.cm-lintRange-error') });
    expect(await lineEl.textContent()).toBe(lines[condLine - 1]!.replace(old, 'lambda x: x'));
    await mark.first().hover();
    await poll(() => page.locator('.cm-tooltip-lint').textContent()).toContain('Lambda');
    await page.screenshot({ path: join(ARTIFACTS, 'playground-lambda.png') });
    // The verdict pane says the recipe is rejected rather than showing a stale result.
    await poll(() => page.getAttribute('#verdict', 'data-verdict')).toBe('invalid');
    // Page state is kept in the hash: a fresh page opened on the same URL has the same recipe and diagnostic.
    await poll(() => page.url()).toContain('#z=');
    await page.waitForTimeout(500);
    const hash = new URL(page.url()).hash;
    const again = await open(hash);
    expect(await pg<string>(again.page, 'p.recipeText()')).toBe(recipe.replace(old, 'lambda x: x'));
    await poll(() => again.page.locator('#diagnostics li.diag.error').getAttribute('data-node')).toBe('Lambda');
    expect(problems.console).toEqual([]);
    expect(again.problems.console).toEqual([]);
    await again.page.close();
    await page.close();
  }, 60_000);

  it('classifies the NaN-loss example on a NaN log as fail with the capture, and the OOM example', async () => {
    const { page, problems } = await open();
    await page.selectOption('#example', 'oom');
    await poll(() => page.locator('#detectors li[data-detector="custom:oom_killer"]').count()).toBe(1);
    expect(await page.textContent('#verdict')).toBe('fail');
    expect(await page.locator('#detectors li.warn[data-detector="custom:nccl_warn"]').count()).toBe(1);
    await page.selectOption('#example', 'nan-loss');
    await poll(() => page.locator('#detectors li[data-detector="custom:nan_loss"]').count()).toBe(1);
    expect(await page.textContent('#verdict')).toBe('fail');
    expect(await page.textContent('#captures tr[data-capture="loss"] td')).toBe('"nan"');
    const card = page.locator('.pattern[data-detector="custom:nan_loss"]');
    const text = (await card.textContent()) ?? '';
    // First match: loss=0.5 on line 1, condition False; fired at line 3 where the condition is True.
    expect(text).toContain('first match: line 1');
    expect(text).toMatch(/condition → False \(bool\) → does not fire/);
    expect(text).toContain('fired at: line 3');
    expect(text).toMatch(/condition → True \(bool\) → fires/);
    expect(await page.locator('#detectors li[data-detector="tier4:nan_signature"]').count()).toBe(1);
    const scan = await pg<{
      ok: boolean;
      result: { verdict: string; capture: Record<string, string>; failure_detectors_fired: string[] };
    }>(page, 'p.lastScan');
    expect(scan.result.verdict).toBe('fail');
    expect(scan.result.capture).toEqual({ loss: 'nan' });
    expect(scan.result.failure_detectors_fired).toEqual(['tier4:nan_signature', 'custom:nan_loss']);
    // The spec's worked examples all load and fire; the rejected example names In at its line.
    await page.selectOption('#example', 'worked');
    await poll(() => page.locator('#detectors li[data-detector^="custom:"]').count()).toBe(4);
    expect(await page.locator('#detectors li.warn[data-detector="custom:slow_iteration"]').count()).toBe(1);
    // A schema error from the recipe loader is marked at its key.
    await pg(
      page,
      `p.setRecipe(${JSON.stringify('custom_patterns:\n  - id: a\n    match:\n      regex: x\n    on_match: explode\n')})`,
    );
    await poll(() => page.locator('#diagnostics li.diag.error').getAttribute('data-line')).toBe('5');
    expect(await page.textContent('#diagnostics li.diag.error .msg')).toContain('on_match');
    expect(await page.locator('.cm-lintRange-error').textContent()).toBe('explode');
    // The linter's warnings (issue 8) are warning marks: four conditions that load but can never fire.
    await page.selectOption('#example', 'lint');
    await poll(() => page.locator('#diagnostics li.diag.warning').count()).toBe(4);
    await poll(() => page.locator('.cm-lintRange-warning').count()).toBe(4);
    expect(await page.locator('#diagnostics li.diag.error').count()).toBe(0);
    // A warning's suggestion is a one-click fix in its tooltip.
    await page.locator('.cm-lintRange-warning').first().hover();
    await page.locator('.cm-tooltip-lint .cm-diagnosticAction').first().click();
    await poll(() => page.locator('#diagnostics li.diag.warning').count()).toBe(3);
    expect(await pg<string>(page, 'p.recipeText()')).toContain("int(capture['code']) == 137");
    await page.selectOption('#example', 'rejected');
    await poll(() => page.locator('#diagnostics li.diag.error').getAttribute('data-node')).toBe('In');
    expect(await page.locator('#diagnostics li.diag.error').getAttribute('data-line')).toBe('6');
    expect(problems.console).toEqual([]);
    await page.close();
  }, 60_000);

  it("scratchpad: math.isnan(float(capture['loss'])) with loss=nan shows nan and True, and rejections", async () => {
    const { page, problems } = await open();
    await page.fill('#scratch-expr', '');
    await page.fill('#scratch-capture', 'loss=nan');
    await page.locator('#scratch-expr').pressSequentially("math.isnan(float(capture['loss']))");
    const out = page.locator('#scratch-out');
    // Wait for the whole expression's answer: a typed prefix such as `math.isnan` is a truthy condition too, so
    // 'fired' alone can be a prefix's state.
    await poll(() => page.locator('#scratch-out tr.final').textContent()).toBe(
      "math.isnan(float(capture['loss']))True (bool) → fires",
    );
    expect(await out.getAttribute('data-state')).toBe('fired');
    const rows = await page.locator('#scratch-out tr').allTextContents();
    expect(rows).toContain("float(capture['loss'])nan (float)");
    expect(rows.at(-1)).toBe("math.isnan(float(capture['loss']))True (bool) → fires");
    await page.fill('#scratch-capture', 'loss=0.25');
    await poll(() => out.getAttribute('data-state')).toBe('quiet');
    expect(await page.locator('#scratch-out tr.final').textContent()).toBe(
      "math.isnan(float(capture['loss']))False (bool) → does not fire",
    );
    await page.fill('#scratch-capture', '');
    await poll(() => out.getAttribute('data-state')).toBe('raised');
    expect(await page.locator('#scratch-out tr.final').textContent()).toContain('raises KeyError');
    await page.fill('#scratch-expr', 'exit_code == 1000000000');
    await poll(() => out.getAttribute('data-state')).toBe('rejected');
    expect(await out.textContent()).toContain('integer constant');
    await page.fill('#scratch-expr', 'lambda x: x');
    await poll(() => page.locator('#scratch-out .diag').getAttribute('data-node')).toBe('Lambda');
    expect(problems.console).toEqual([]);
    await page.close();
  }, 60_000);

  it('scans a 50 MiB log with progress while the page stays responsive, and cancels a running scan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aorta-playground-'));
    const logPath = join(dir, 'big-50mib.log');
    try {
      // 50 MiB of ordinary training lines; the only NaN is on the last line.
      const target = 50 * 1024 * 1024;
      const fd = openSync(logPath, 'w');
      let written = 0; // bytes
      let step = 0;
      while (written < target - 200) {
        const parts: string[] = [];
        for (let i = 0; i < 10_000; i++, step++)
          parts.push(
            `[2026-11-02 10:00:00] rank 0 step ${step} loss=0.${String(step % 9973).padStart(4, '0')} grad_norm=1.02 lr=3.0e-4\n`,
          );
        const chunk = parts.join('').slice(0, target - 200 - written);
        writeSync(fd, chunk);
        written += Buffer.byteLength(chunk);
      }
      const last = `[2026-11-02 11:00:00] rank 0 step ${step} loss=nan grad_norm=nan\n`;
      writeSync(fd, `\n${'#'.repeat(target - written - last.length - 2)}\n${last}`); // exactly 50 MiB (ASCII)
      closeSync(fd);

      const { page, problems } = await open();
      await page.selectOption('#example', 'oom');
      await page.selectOption('#example', 'nan-loss');
      await poll(() => page.textContent('#verdict')).toBe('fail');
      // Frame gaps on the main thread, measured in the page while the scan runs.
      await page.evaluate(() => {
        const w = window as unknown as { __maxGap: number; __frames: number; __stopFrames: boolean };
        w.__maxGap = 0;
        w.__frames = 0;
        w.__stopFrames = false;
        let last = performance.now();
        const tick = (now: number): void => {
          w.__maxGap = Math.max(w.__maxGap, now - last);
          w.__frames++;
          last = now;
          if (!w.__stopFrames) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      const t0 = Date.now();
      await page.setInputFiles('#log-file', logPath);
      const pcts = new Set<string>();
      const inputLatencies: number[] = [];
      let typed = 0;
      for (;;) {
        const status = (await page.textContent('#scan-progress-text')) ?? '';
        const pct = await page.getAttribute('#scan-progress-text', 'data-pct');
        if (status.startsWith('scanned')) break;
        if (pct !== null) pcts.add(pct);
        if (Date.now() - t0 > 110_000) throw new Error(`the 50 MiB scan did not finish (last status: ${status})`);
        if (pcts.size === 1 && typed === 0)
          await page.screenshot({ path: join(ARTIFACTS, 'playground-scan-progress.png') });
        // The page answers input during the scan: type into the scratchpad and wait for its result.
        if (pcts.size > 0 && typed < 3) {
          typed++;
          const ti = Date.now();
          await page.fill('#scratch-expr', `exit_code == ${typed}`);
          await poll(() => page.textContent('#scratch-out tr.final'), 5000).toContain(`exit_code == ${typed}`);
          inputLatencies.push(Date.now() - ti);
        }
        await page.waitForTimeout(100);
      }
      timings.scan50MiBWallMs = Date.now() - t0;
      const scan = await pg<{
        ok: boolean;
        result: {
          verdict: string;
          capture: Record<string, string>;
          bytes: number;
          ms: number;
          failure_detectors_fired: string[];
        };
      }>(page, 'p.lastScan');
      timings.scan50MiBInWorkerMs = Math.round(scan.result.ms);
      const frames = await page.evaluate(() => {
        const w = window as unknown as { __maxGap: number; __frames: number; __stopFrames: boolean };
        w.__stopFrames = true;
        return { maxGap: w.__maxGap, frames: w.__frames };
      });
      timings.scan50MiBMaxFrameGapMs = Math.round(frames.maxGap);
      timings.scratchpadLatencyDuringScanMaxMs = Math.max(...inputLatencies);
      expect(scan.ok).toBe(true);
      expect(statSync(logPath).size).toBe(50 * 1024 * 1024);
      expect(scan.result.bytes).toBe(50 * 1024 * 1024);
      expect(scan.result.verdict).toBe('fail');
      expect(scan.result.capture).toEqual({ loss: 'nan' });
      expect(scan.result.failure_detectors_fired).toEqual(['tier4:nan_signature', 'custom:nan_loss']);
      expect(pcts.size).toBeGreaterThanOrEqual(3); // progress was shown as the scan went
      expect(inputLatencies.length).toBe(3);
      expect(Math.max(...inputLatencies)).toBeLessThan(2000);
      expect(frames.maxGap).toBeLessThan(1000);

      // Cancel: start the scan again and cancel it midway; the scanner worker is replaced and still works.
      await page.setInputFiles('#log-file', []);
      await page.setInputFiles('#log-file', logPath);
      await poll(
        async () => Number((await page.getAttribute('#scan-progress-text', 'data-pct')) ?? 0),
        30_000,
      ).toBeGreaterThan(0);
      await poll(() => page.isVisible('#cancel')).toBe(true);
      await page.click('#cancel');
      await poll(() => page.textContent('#scan-progress-text')).toBe('scan cancelled');
      expect(await pg(page, 'p.restarts()')).toEqual({ checker: 0, scanner: 1 });
      await page.click('#use-editor-log');
      await poll(() => page.textContent('#verdict')).toBe('fail');
      expect(await pg(page, 'p.lastScan.result.bytes')).toBeLessThan(100);
      expect(problems.console).toEqual([]);
      expect(await pg(page, 'p.errors')).toEqual([]);
      await page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it('survives 2,000 consecutive recipe edits without errors or heap growth', async () => {
    const { page, problems } = await open();
    // Edits arrive back to back, faster than the engine answers; each answer is for the latest text (older edits are
    // coalesced away, as while typing), so hundreds of distinct recipes are compiled, checked and scanned.
    // Every 100th edit holds a forbidden condition; the final text is a valid one.
    // (The regex module's own tests check compile/dispose at the heap level; here the page must not hold on to
    // programs, VM state or worker handles across edits.)
    const result = await page.evaluate(async () => {
      type Heap = {
        heap: { probe1MiBAddress: number; emvalHandles: number; regexCache: { compiled: number; deleted: number } };
      };
      type Pg = {
        setRecipe(t: string): void;
        idle(): Promise<void>;
        errors: string[];
        stats: { checks: number; scans: number };
        lastCheck: { diagnostics: { node: string | null }[] };
        lastScan: { ok: boolean; result?: { verdict: string; capture: Record<string, string> } };
        heap(): Promise<{ checker: Heap; scanner: Heap }>;
      };
      const p = (window as unknown as { __playground: Pg }).__playground;
      const recipe = (i: number): string => {
        const n = String(i).padStart(4, '0'); // fixed width: every program has the same size
        return i % 100 === 50
          ? `custom_patterns:\n  - id: p${n}\n    match:\n      regex: "loss=(?P<loss>[^ \\\\n]+)"\n      condition: "lambda x: ${n}"\n`
          : `custom_patterns:\n  - id: p${n}\n    match:\n      regex: "loss=(?P<loss>[^ \\\\n]+)(?:x${n})?"\n      condition: "math.isnan(float(capture['loss'])) or exit_code == ${i}"\n    on_match: fail\n`;
      };
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const edit = async (from: number, to: number): Promise<void> => {
        for (let i = from; i < to; i++) {
          p.setRecipe(recipe(i));
          // Let the page handle the workers' answers every few edits (a macrotask); otherwise only a microtask.
          if (i % 8 === 7) await sleep(0);
          else await Promise.resolve();
        }
        await p.idle();
      };
      const t0 = performance.now();
      const s0 = { ...p.stats };
      const before = await p.heap();
      await edit(0, 2000);
      p.setRecipe(recipe(100_000)); // a valid final text, whose result is checked below
      await p.idle();
      const after = await p.heap();
      return {
        before,
        after,
        ms: performance.now() - t0,
        errors: p.errors,
        checks: p.stats.checks - s0.checks,
        scans: p.stats.scans - s0.scans,
        diagnostics: p.lastCheck.diagnostics,
        scan: p.lastScan,
      };
    });
    timings.recipeEdits2000Ms = Math.round(result.ms);
    timings.recipeEdits2000Checks = result.checks;
    timings.recipeEdits2000Scans = result.scans;
    expect(result.errors).toEqual([]);
    expect(result.diagnostics).toEqual([]);
    expect(result.scan.ok).toBe(true);
    expect(result.scan.result?.capture).toEqual({ loss: 'nan' });
    expect(result.checks).toBeGreaterThan(50);
    expect(result.scans).toBeGreaterThan(50);
    for (const w of ['checker', 'scanner'] as const) {
      const b = result.before[w].heap;
      const a = result.after[w].heap;
      // Every compiled program is freed again except the regex cache's bounded idle list (256 programs), the Tier 4
      // catalogue (7) and the final recipe's pattern: a leak would keep one program per processed edit.
      expect(a.regexCache.compiled - b.regexCache.compiled).toBeGreaterThan(50);
      expect(a.regexCache.compiled - a.regexCache.deleted).toBeLessThanOrEqual(256 + 7 + 1);
      expect(a.emvalHandles).toBe(b.emvalHandles);
      // The heap's free space stays where it was, give or take the idle programs (a few KB each).
      expect(a.probe1MiBAddress).toBeLessThanOrEqual(b.probe1MiBAddress + 2 * 1024 * 1024);
    }
    expect(problems.console).toEqual([]);
    await page.close();
  }, 120_000);
});
