/**
 * The playground as a recipe author's workbench (issue 21), in the test browser: one reason per diagnostic, no
 * empty headings, a banner that says the file scan is done, lines for every detector with a click that shows the
 * line in the log, "try in scratchpad" from a match, every sub-expression's value, the Example menu that follows
 * the recipe, the styled file control, tooltips kept in their column, sessions kept in local storage, a recipe
 * download, keyboard reachability, and an axe-core accessibility check with no serious violations.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, ServedPlayground, SKIP_BROWSER } from './support/browser.js';

const ARTIFACTS = join(REPO_ROOT, 'test-artifacts');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const poll = <T>(fn: () => T | Promise<T>, timeout = 15_000) => expect.poll(fn, { timeout, interval: 50 });

describe.skipIf(SKIP_BROWSER)('playground workbench in headless Chromium', () => {
  const playground = new ServedPlayground();
  beforeAll(() => playground.start(), 180_000);
  afterAll(() => playground.stop());
  const open = (hash = '', opts: { firstVisit?: boolean } = {}) => playground.open(hash, opts);

  const pg = <T>(page: Page, fn: string): Promise<T> =>
    page.evaluate(`(async () => { const p = window.__playground; await p.idle(); return ${fn}; })()`) as Promise<T>;

  it('states each diagnostic once, hides empty headings after a rejection, and lets the Example menu follow the recipe', async () => {
    const { page, problems } = await open();
    await page.selectOption('#example', 'rejected');
    await pg(page, 'true'); // idle: the example's check and scan have answered
    const diag = page.locator('#diagnostics li.diag.error');
    await poll(() => diag.getAttribute('data-node')).toBe('In');
    const message = (await diag.locator('.msg').textContent()) ?? '';
    expect(message.length).toBeGreaterThan(10);
    const whole = (await diag.textContent()) ?? '';
    // The reason appears once: "line 6, col N <reason>" and the caret excerpt, not "recipe.yaml:6:N: <reason>" again.
    expect(whole.split(message).length - 1).toBe(1);
    expect(whole).not.toMatch(/recipe\.yaml:\d+:\d+:/);
    expect(await diag.locator('pre').textContent()).toContain('^');
    await poll(() => page.getAttribute('#verdict', 'data-verdict')).toBe('invalid');
    expect(await page.isVisible('#captures-box')).toBe(false);
    expect(await page.isVisible('#patterns-box')).toBe(false);
    // A YAML indentation error is marked at the misindented key, not at column 1.
    await pg(
      page,
      `p.setRecipe(${JSON.stringify('custom_patterns:\n  - id: a\n    match:\n      regex: x\n   on_match: fail\n')})`,
    );
    await poll(() => page.locator('#diagnostics li.diag.error').getAttribute('data-col')).toBe('4');
    expect(await page.locator('#diagnostics li.diag.error').getAttribute('data-line')).toBe('5');
    expect(await page.locator('.cm-lintRange-error').textContent()).toBe('on_match');
    await page.selectOption('#example', 'rejected');
    await pg(page, 'true');
    // The menu names the example only while the recipe is that example's.
    expect(await page.inputValue('#example')).toBe('rejected');
    await pg(
      page,
      `p.setRecipe(${JSON.stringify('custom_patterns:\n  - id: a\n    match:\n      regex: "zzz"\n    on_match: warn\n')})`,
    );
    await poll(() => page.inputValue('#example')).toBe('');
    await poll(() => page.getAttribute('#verdict', 'data-verdict')).not.toBe('invalid');
    expect(await page.isVisible('#captures-box')).toBe(true);
    // The lint example names no issue number a user cannot follow.
    await page.selectOption('#example', 'lint');
    await pg(page, 'true'); // idle: the example's check and scan have answered
    expect((await pg<string>(page, 'p.recipeText()')).split('\n')[0]).toBe(
      '# Four silent bugs the linter finds: each condition loads, and none of them can ever fire.',
    );
    // Its tooltip wraps inside the recipe column.
    await poll(() => page.locator('.cm-lintRange-warning').count()).toBe(4);
    await page.locator('.cm-lintRange-warning').first().hover();
    const tip = page.locator('.cm-tooltip-lint');
    await poll(() => tip.count()).toBe(1);
    const tipBox = (await tip.boundingBox())!;
    const leftBox = (await page.locator('#left').boundingBox())!;
    const rightBox = (await page.locator('#right').boundingBox())!;
    expect(tipBox.x + tipBox.width).toBeLessThanOrEqual(rightBox.x + 1);
    expect(tipBox.x).toBeGreaterThanOrEqual(leftBox.x - 1);
    expect(problems.console).toEqual([]);
    await page.close();
  }, 90_000);

  it('shows a line for every Tier 4 and Tier 5 detector; a click scrolls the log to it and marks the match', async () => {
    const { page, problems } = await open();
    await page.selectOption('#example', 'nan-loss');
    await pg(page, 'true'); // idle: the example's check and scan have answered
    await poll(() => page.locator('#detectors li[data-detector="custom:nan_loss"]').count()).toBe(1);
    const t4 = page.locator('#detectors li[data-detector="tier4:nan_signature"] button.where-link');
    const t5 = page.locator('#detectors li[data-detector="custom:nan_loss"] button.where-link');
    expect(await t4.textContent()).toBe('line 3');
    expect(await t5.textContent()).toBe('line 3');
    await t5.click();
    // The firing match `loss=nan` on line 3: "step 1 loss=0.5\nstep 2 loss=0.4\n" is 32 characters, so 39–47.
    await poll(() => page.getAttribute('#log-editor', 'data-hit')).toBe('3:39-47');
    expect(await page.locator('#log-editor .cm-hit').textContent()).toBe('loss=nan');
    // The first match's line button marks that match.
    await page.locator('.pattern[data-detector="custom:nan_loss"] .match').first().locator('button.where-link').click();
    await poll(() => page.locator('#log-editor .cm-hit').textContent()).toBe('loss=0.5');
    expect(problems.console).toEqual([]);
    await page.close();
  }, 90_000);

  it("lists the recipe's self-tests with pass/fail (a click goes to the sample) and shows each detector's category", async () => {
    const { page, problems } = await open();
    await page.selectOption('#example', 'nan-loss');
    await pg(page, 'true'); // idle: the example's check and scan have answered
    expect(await page.isVisible('#selftests-box')).toBe(false); // the example has no tests:
    expect(await page.textContent('#detectors li[data-detector="tier4:nan_signature"] .category')).toBe(
      'user · not transient',
    );
    expect(await page.textContent('#detectors li[data-detector="custom:nan_loss"] .category')).toBe(
      'user · not transient · numeric_silent',
    );
    const recipe = readFileSync(join(REPO_ROOT, 'fixtures', 'recipes', 'self-tests-failing.yaml'), 'utf8');
    await pg(page, `p.setRecipe(${JSON.stringify(recipe)})`);
    await poll(() => page.locator('#selftests li').count()).toBe(2);
    expect(await page.locator('#selftests li.pass').count()).toBe(1);
    const failing = page.locator('#selftests li.fail');
    expect(await failing.getAttribute('data-test')).toBe('expects the wrong verdict');
    expect(await failing.textContent()).toContain('verdict: expected pass, got fail');
    await failing.locator('button.where-link').click();
    const line = Number(await failing.locator('button.where-link').getAttribute('data-line'));
    expect(await page.evaluate(() => document.querySelector('#recipe-editor .cm-activeLine')?.textContent ?? '')).toBe(
      recipe.split('\n')[line - 1],
    );
    expect(problems.console).toEqual([]);
    await page.close();
  }, 90_000);

  it('"try in scratchpad" loads a match\'s captures and the scan\'s variables; the scratchpad shows every sub-expression', async () => {
    const { page, problems } = await open();
    await page.selectOption('#example', 'nan-loss');
    await pg(page, 'true'); // idle: the example's check and scan have answered
    await page.fill('#var-exit', '3');
    await page.fill('#var-wall', '42.5');
    await page.fill('#scratch-expr', 'exit_code');
    await poll(() => page.locator('.pattern[data-detector="custom:nan_loss"] button.try').count()).toBe(2);
    // The first match is loss=0.5: its captures and the condition of its pattern go to the scratchpad.
    await page.locator('.pattern[data-detector="custom:nan_loss"] button.try').first().click();
    expect(await page.inputValue('#scratch-expr')).toBe("math.isnan(float(capture['loss']))");
    expect(await page.inputValue('#scratch-capture')).toBe('loss=0.5');
    expect(await page.inputValue('#scratch-exit')).toBe('3');
    expect(await page.inputValue('#scratch-wall')).toBe('42.5');
    // Poll the rows themselves: the answer to the earlier 'exit_code' may still be the one on show (its state is
    // 'quiet' too) when the click's expression has not been evaluated yet.
    await poll(() => page.locator('#scratch-out tr').allTextContents()).toEqual([
      "capture{'loss': '0.5'} (dict)",
      "capture['loss']'0.5' (str)",
      "float(capture['loss'])0.5 (float)",
      "math.isnan(float(capture['loss']))False (bool) → does not fire",
    ]);
    expect(await page.getAttribute('#scratch-out', 'data-state')).toBe('quiet');
    // It follows typing.
    await page.fill('#scratch-expr', 'exit_code + 1 > int(walltime_sec)');
    await poll(() => page.locator('#scratch-out tr').allTextContents()).toEqual([
      'exit_code3 (int)',
      'exit_code + 14 (int)',
      'walltime_sec42.5 (float)',
      'int(walltime_sec)42 (int)',
      'exit_code + 1 > int(walltime_sec)False (bool) → does not fire',
    ]);
    expect(problems.console).toEqual([]);
    await page.close();
  }, 90_000);

  it('a file scan ends with a banner that says so and one "scanned" line; the file control is a styled button', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aorta-workbench-'));
    try {
      const logPath = join(dir, 'train.log');
      writeFileSync(logPath, 'step 1 loss=0.5\nstep 2 loss=nan\n');
      const { page, problems } = await open();
      await page.selectOption('#example', 'nan-loss');
      await pg(page, 'true'); // idle: the example's check and scan have answered
      // The native control is out of sight (a 1-pixel clipped box), the button is what a person sees.
      expect((await page.locator('#log-file').boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
      expect(await page.isVisible('#load-log')).toBe(true);
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('#load-log')]);
      await chooser.setFiles(logPath);
      await poll(() => page.textContent('#log-file-banner')).toContain('Scanned the file train.log');
      expect(await page.textContent('#log-file-banner')).not.toContain('Scanning');
      await poll(() => page.textContent('#verdict')).toBe('fail');
      const status = (await page.textContent('#scan-progress-text')) ?? '';
      expect(status).toMatch(/^scanned 0\.0 MiB in \d+\.\d\d s \(tier 4 [\d.]+ ms, tier 5 [\d.]+ ms\)$/);
      expect((await page.textContent('#results'))!.split('scanned').length - 1).toBe(1);
      await page.click('#use-editor-log');
      await poll(() => page.isVisible('#log-file-banner')).toBe(false);
      expect(problems.console).toEqual([]);
      await page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('keeps the last session in local storage, shares recipe, log, variables and scratchpad, and downloads the recipe', async () => {
    const { page, problems } = await open();
    await page.selectOption('#example', 'oom');
    await pg(page, 'true'); // idle: the example's check and scan have answered
    await pg(
      page,
      `p.setRecipe(${JSON.stringify('custom_patterns:\n  - id: mine\n    match:\n      regex: "boom"\n    on_match: fail\n')})`,
    );
    await pg(page, `p.setLog(${JSON.stringify('all good\nboom\n')})`);
    await page.fill('#var-exit', '7');
    await page.fill('#scratch-expr', 'exit_code == 7');
    await page.fill('#scratch-capture', 'a=1');
    await poll(() => page.locator('#detectors li[data-detector="custom:mine"]').count()).toBe(1);
    await page.waitForTimeout(600); // the state is saved 400 ms after the last edit
    const hash = new URL(page.url()).hash;
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-recipe')]);
    expect(download.suggestedFilename()).toBe('recipe.yaml');
    expect(readFileSync(await download.path(), 'utf8')).toBe(
      'custom_patterns:\n  - id: mine\n    match:\n      regex: "boom"\n    on_match: fail\n',
    );
    await page.close();
    for (const h of ['', hash]) {
      // '' restores from local storage, `hash` from the link.
      const again = await open(h, { firstVisit: false });
      expect(await pg<string>(again.page, 'p.recipeText()')).toContain('id: mine');
      expect(await again.page.inputValue('#var-exit')).toBe('7');
      expect(await again.page.inputValue('#scratch-expr')).toBe('exit_code == 7');
      expect(await again.page.inputValue('#scratch-capture')).toBe('a=1');
      await poll(() =>
        again.page.locator('#detectors li[data-detector="custom:mine"] button.where-link').textContent(),
      ).toBe('line 2');
      expect(again.problems.console).toEqual([]);
      await again.page.close();
    }
    expect(problems.console).toEqual([]);
  }, 90_000);

  it('every control is reachable by keyboard, and axe-core finds no serious or critical violation', async () => {
    const { page, problems } = await open();
    await page.selectOption('#example', 'nan-loss');
    await pg(page, 'true'); // idle: the example's check and scan have answered
    await poll(() => page.locator('#detectors li[data-detector="custom:nan_loss"]').count()).toBe(1);
    const reached = new Set<string>();
    await page.locator('body').focus();
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => {
        const a = document.activeElement;
        if (a === null) return '';
        return a.id || a.getAttribute('aria-label') || a.className || a.tagName;
      });
      reached.add(id);
    }
    for (const id of [
      'example',
      'share',
      'download-recipe',
      'Recipe (YAML)',
      'load-log',
      'Sample log',
      'var-exit',
      'var-wall',
      'var-vram',
      'scratch-expr',
      'scratch-exit',
      'scratch-capture',
    ]) {
      expect(reached, `Tab never reaches ${id}`).toContain(id);
    }
    expect([...reached].some((r) => r.includes('where-link'))).toBe(true);
    expect([...reached].some((r) => r === 'try')).toBe(true);
    await page.addScriptTag({ content: AXE_SOURCE });
    const result = await page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: {
            run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }>;
          };
        }
      ).axe;
      const r = await axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'playground-axe.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log('axe-core violations:', JSON.stringify(result));
    expect(result.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'playground-workbench.png'), fullPage: true });
    expect(problems.console).toEqual([]);
    await page.close();
  }, 90_000);
});
