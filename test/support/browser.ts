/**
 * Real-browser support for the playground tests: the Chromium that `npm install` brings (see ./chromium.ts;
 * `AORTA_CHROMIUM` selects another) driven by playwright-core (which downloads no browser), a fresh user-data dir
 * per launch, and the playground page built by Vite and served by the `aorta-probe playground` server code.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from 'node:http';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startPlaygroundServer } from '../../src/cli/commands/playground.js';
import { resolveChromium, type ChromiumChoice } from './chromium.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PLAYGROUND_DIST = join(REPO_ROOT, 'dist', 'playground');
export const SKIP_BROWSER = process.env.AORTA_SKIP_BROWSER === '1';

/** The browser to launch; throws a clear error when it is missing (the tests must not silently pass). */
export async function requireChromium(): Promise<ChromiumChoice> {
  const choice = await resolveChromium(REPO_ROOT);
  if (!existsSync(choice.executablePath)) {
    throw new Error(
      `Chromium not found at ${choice.executablePath} (${choice.source}): the browser tests need a real browser. ` +
        'Run `npm install` (it brings @sparticuz/chromium), point AORTA_CHROMIUM at another Chromium, ' +
        'or set AORTA_SKIP_BROWSER=1 to skip the browser tests.',
    );
  }
  return choice;
}

function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Makes sure dist/playground is built and newer than its sources (playground/ and the engine modules);
 * builds it with `vite build` otherwise (`npm test` builds it first through `npm run build`).
 */
export function ensurePlaygroundBuilt(): void {
  const index = join(PLAYGROUND_DIST, 'index.html');
  const sources = ['playground', 'src/condition', 'src/recipe', 'src/regex', 'src/scan', 'src/lint', 'src/redact'].map(
    (d) => newestMtime(join(REPO_ROOT, d)),
  );
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources)) return;
  const r = spawnSync(
    process.execPath,
    [join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'playground/vite.config.ts'],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  if (r.status !== 0 || !existsSync(index)) {
    throw new Error(
      `the playground page is not built and \`vite build --config playground/vite.config.ts\` failed ` +
        `(run \`npm run build:playground\` to see why):\n${r.stdout}\n${r.stderr}`,
    );
  }
}

/**
 * A private copy of the built page for one test file to serve: the shared working tree's dist/playground may be
 * rebuilt (emptied and rewritten) by another test run at any time. Remove it with `rmSync` when done.
 */
export function snapshotPlayground(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aorta-playground-page-'));
  cpSync(PLAYGROUND_DIST, dir, { recursive: true });
  return dir;
}

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh, throw-away user-data dir. */
export async function launchChromium(): Promise<LaunchedBrowser> {
  const choice = await requireChromium();
  const userDataDir = mkdtempSync(join(tmpdir(), 'aorta-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: choice.executablePath,
    headless: true,
    args: choice.args,
    viewport: { width: 1440, height: 1000 },
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What a test page that reports through `window.__results` (once it sets `window.__done`) reported, with every
 * console error, console warning and page error it raised on the way.
 */
export async function pageResults(
  context: BrowserContext,
  url: string,
): Promise<{ results: unknown; problems: string[] }> {
  const page = await context.newPage();
  try {
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`${msg.type()}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true, undefined, {
      timeout: 60_000,
    });
    const results = await page.evaluate(() => (window as unknown as { __results: unknown }).__results);
    return { results, problems };
  } finally {
    await page.close();
  }
}

/** A page the tests opened, with the console errors, warnings and page errors it reported. */
export interface OpenedPage {
  page: Page;
  problems: { console: string[] };
  loadMs: number;
}

/**
 * The playground as the browser suites use it: a private snapshot of the built page, served on a free port, and a
 * fresh Chromium. `open()` loads it and waits until it is interactive; each page starts as a first visit (no
 * session kept in local storage by an earlier page).
 */
export class ServedPlayground {
  #browser: LaunchedBrowser | null = null;
  #server: Server | null = null;
  #pageDir: string | null = null;
  #url = '';

  async start(): Promise<void> {
    ensurePlaygroundBuilt();
    this.#pageDir = snapshotPlayground();
    ({ server: this.#server, url: this.#url } = await startPlaygroundServer(this.#pageDir, 0));
    this.#browser = await launchChromium();
  }

  async stop(): Promise<void> {
    await this.#browser?.close();
    this.#server?.closeAllConnections();
    this.#server?.close();
    if (this.#pageDir) rmSync(this.#pageDir, { recursive: true, force: true });
  }

  async open(hash = '', opts: { firstVisit?: boolean } = {}): Promise<OpenedPage> {
    if (this.#browser === null) throw new Error('ServedPlayground.open before start');
    const page = await this.#browser.context.newPage();
    const problems = { console: [] as string[] };
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.console.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.console.push(`pageerror: ${e.message}`));
    page.on('crash', () => problems.console.push('page crashed'));
    if (opts.firstVisit !== false)
      await page.addInitScript(() => localStorage.removeItem('aorta-probe.playground.session'));
    const t0 = Date.now();
    await page.goto(this.#url + hash);
    await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60_000 });
    return { page, problems, loadMs: Date.now() - t0 };
  }
}
