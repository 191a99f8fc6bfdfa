/**
 * `ready()` with no argument in apps built by the two bundlers most users have (issue "Front doors, round two"):
 * the release tarball installed offline into a fresh project (test/support/consumer.ts), one small app built by
 * Vite and by webpack 5 (its default script output and its ES module output) with no configuration about this
 * package, run in the test Chromium on the main thread and in `{ type: 'module' }` Workers. The package names its re2.wasm as `new URL('./re2.wasm', import.meta.url)`
 * (src/regex/re2-wasm-url.ts); each bundler must emit that file as an asset, byte for byte, and the app must load
 * the engine from it. A third worker passes `re2Wasm` and must fetch that URL instead (the override for a CDN or
 * a CSP).
 *
 * The builds are checked everywhere; the browser part skips with a visible note where Chromium cannot start (or
 * AORTA_SKIP_BROWSER=1), and fails instead under CI=true.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlaygroundServer } from '../src/cli/commands/playground.js';
import { launchChromium, pageResults, REPO_ROOT, SKIP_BROWSER, type LaunchedBrowser } from './support/browser.js';
import { packAndInstall, type Consumer } from './support/consumer.js';

const CI = process.env.CI === 'true';

const RECIPE =
  'custom_patterns:\n  - id: nan_loss\n    match:\n      regex: "loss=(?P<loss>\\\\S+)"\n      condition: "math.isnan(float(capture[\'loss\']))"\n';
const LOG = 'step 1 loss=2.5\nstep 2 loss=nan\n';
const VARS = { exit_code: 0, walltime_sec: 1.5, peak_vram_mib: null };
/** Where the override worker finds re2.wasm: a copy the test puts beside the built app. */
const OVERRIDE_PATH = '/custom/re2.wasm';

/**
 * What the app computes in each realm: the engine before `ready()` (a regex compile must fail, naming the fix),
 * then a regex, a recipe, a scan and a verdict after it, and which .wasm files this realm fetched.
 */
const WORK = `import { classifyLog, compileRegex, isReady, loadRecipe, matchAll, ready, RegexEngineError, scanLog } from 'aorta-probe';

/** Which realm this is: a module worker refuses importScripts(), a classic one takes it (no arguments: a no-op). */
function realm() {
  if (typeof window !== 'undefined') return 'main thread';
  try {
    importScripts();
    return 'classic worker';
  } catch {
    return 'module worker';
  }
}

export async function work(re2Wasm) {
  const vars = ${JSON.stringify(VARS)};
  const out = { realm: realm(), readyBefore: isReady() };
  try {
    compileRegex('(?:ab)+c');
    out.beforeReady = 'no error';
  } catch (e) {
    out.beforeReady = e instanceof RegexEngineError ? [e.name, e.message.includes('await ready()')] : String(e);
  }
  await (re2Wasm === undefined ? ready() : ready({ re2Wasm }));
  out.readyAfter = isReady();
  const looped = compileRegex('(?:ab)+c');
  out.looped = [...matchAll(looped, 'xababc')].map((m) => m.match);
  looped.dispose();
  const recipe = loadRecipe(${JSON.stringify(RECIPE)}, 'recipe.yaml');
  out.scan = scanLog(recipe, ${JSON.stringify(LOG)}, vars).detectors.map((d) => [d.id, d.kind, d.line, d.match]);
  const r = classifyLog(recipe, ${JSON.stringify(LOG)}, vars);
  out.verdict = r.verdict;
  out.failures = r.failure_detectors_fired;
  out.capture = r.capture;
  out.wasm = performance
    .getEntriesByType('resource')
    .map((e) => new URL(e.name))
    .filter((u) => u.pathname.endsWith('.wasm'))
    .map((u) => (u.origin === location.origin ? u.pathname : u.href));
  return out;
}
`;

const fail = `(e) => postMessage({ error: String(e?.stack ?? e) })`;
const WORKER = `import { work } from './work.js';
work().then((r) => postMessage(r), ${fail});
`;
const OVERRIDE_WORKER = `import { work } from './work.js';
work(${JSON.stringify(OVERRIDE_PATH)}).then((r) => postMessage(r), ${fail});
`;

/** The page: the main thread first, then each module worker; the workers are written as both bundlers find them. */
const MAIN = `import { work } from './work.js';
const answer = (wk) =>
  new Promise((resolve) => {
    wk.onmessage = (ev) => resolve(ev.data);
    wk.onerror = (ev) => resolve({ error: 'worker error: ' + ev.message });
  });
(async () => {
  const main = await work().catch((e) => ({ error: String(e?.stack ?? e) }));
  const worker = await answer(new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
  const override = await answer(new Worker(new URL('./override-worker.js', import.meta.url), { type: 'module' }));
  window.__results = { main, worker, override };
  window.__done = true;
})();
`;

/** Vite: the app's own choices only (an ES-module worker build, its output folder); nothing about aorta-probe. */
const VITE_CONFIG = `export default { build: { target: 'es2022', outDir: 'dist-vite' }, worker: { format: 'es' }, logLevel: 'info' };
`;
/**
 * webpack 5: a production build of the entry; nothing about aorta-probe or .wasm. With its default (script) output
 * webpack turns `{ type: 'module' }` workers into classic ones; with ES module output they stay module workers.
 * Unminified: terser is three quarters of a build's time here and touches nothing this test checks (the asset,
 * the URLs, the chunks).
 */
const webpackConfig = (out: string, esm: boolean): string => `import { fileURLToPath } from 'node:url';
export default {
  mode: 'production',
  context: fileURLToPath(new URL('.', import.meta.url)),
  entry: './src/main.js',
  output: { path: fileURLToPath(new URL('./${out}/', import.meta.url)), filename: 'main.js', clean: true${esm ? ', module: true' : ''} },${esm ? '\n  experiments: { outputModule: true },' : ''}
  performance: { hints: false },
  optimization: { minimize: false },
};
`;

interface Bundler {
  name: string;
  /** The command line, run with `node` in the app's folder. */
  args: string[];
  out: string;
  /** The page's HTML, written into the output after a build that does not make one. */
  html?: string;
  /** What the app's `new Worker(…, { type: 'module' })` became in this build. */
  worker: 'module worker' | 'classic worker';
}

const WEBPACK_CLI = join(REPO_ROOT, 'node_modules', 'webpack-cli', 'bin', 'cli.js');
const BUNDLERS: Bundler[] = [
  {
    name: 'vite',
    args: [join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'],
    out: 'dist-vite',
    worker: 'module worker',
  },
  {
    name: 'webpack',
    args: [WEBPACK_CLI, '--config', 'webpack.config.mjs'],
    out: 'dist-webpack',
    html: '<!doctype html><html><body><script src="main.js"></script></body></html>\n',
    worker: 'classic worker',
  },
  {
    name: 'webpack, ES module output',
    args: [WEBPACK_CLI, '--config', 'webpack.esm.config.mjs'],
    out: 'dist-webpack-esm',
    html: '<!doctype html><html><body><script type="module" src="main.js"></script></body></html>\n',
    worker: 'module worker',
  },
];

/** Every file under `dir`, relative, with `/`. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) =>
      join(e.parentPath, e.name)
        .slice(dir.length + 1)
        .split('\\')
        .join('/'),
    )
    .sort();
}

describe('ready() with no argument, in apps built by Vite and webpack 5', () => {
  let consumer: Consumer;
  let browser: LaunchedBrowser | undefined;
  /** Why the browser part is skipped here (never under CI=true), or undefined. */
  let browserSkip: string | undefined;
  const re2Wasm = readFileSync(join(REPO_ROOT, 'node_modules', 're2-wasm', 'build', 'wasm', 're2.wasm'));

  beforeAll(async () => {
    consumer = packAndInstall({ type: 'module' });
    const app = consumer.dir;
    mkdirSync(join(app, 'src'));
    writeFileSync(join(app, 'src', 'work.js'), WORK);
    writeFileSync(join(app, 'src', 'worker.js'), WORKER);
    writeFileSync(join(app, 'src', 'override-worker.js'), OVERRIDE_WORKER);
    writeFileSync(join(app, 'src', 'main.js'), MAIN);
    writeFileSync(
      join(app, 'index.html'),
      '<!doctype html><html><body><script type="module" src="/src/main.js"></script></body></html>\n',
    );
    writeFileSync(join(app, 'vite.config.mjs'), VITE_CONFIG);
    writeFileSync(join(app, 'webpack.config.mjs'), webpackConfig('dist-webpack', false));
    writeFileSync(join(app, 'webpack.esm.config.mjs'), webpackConfig('dist-webpack-esm', true));
    if (SKIP_BROWSER && !CI) browserSkip = 'AORTA_SKIP_BROWSER=1';
    else {
      try {
        browser = await launchChromium();
      } catch (err) {
        if (CI) throw err;
        browserSkip = `Chromium did not start: ${String(err).split('\n')[0]}`;
      }
    }
    if (browserSkip !== undefined)
      console.warn(`consumer-bundlers.test.ts: the browser runs are SKIPPED (${browserSkip}); the builds are checked`);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (consumer !== undefined) rmSync(join(consumer.dir, '..'), { recursive: true, force: true });
  });

  describe.each(BUNDLERS)('$name', (bundler) => {
    let log = '';
    let outDir = '';
    /** The path, in the built app, of the one .wasm file the bundler emitted. */
    let wasmPath = '';

    beforeAll(() => {
      const r = spawnSync(process.execPath, bundler.args, { cwd: consumer.dir, encoding: 'utf8', timeout: 240_000 });
      log = `${r.stdout}${r.stderr}`;
      if (r.status !== 0) throw new Error(`${bundler.name} build failed:\n${log}`);
      outDir = join(consumer.dir, bundler.out);
      if (bundler.html !== undefined) writeFileSync(join(outDir, 'index.html'), bundler.html);
      wasmPath = `/${filesUnder(outDir).find((f) => f.endsWith('.wasm')) ?? '(no .wasm emitted)'}`;
    }, 300_000);

    it("emits the package's re2.wasm as an asset, byte for byte, and sees no Node built-in", () => {
      const wasm = filesUnder(outDir).filter((f) => f.endsWith('.wasm'));
      expect(wasm).toHaveLength(1);
      expect(readFileSync(join(outDir, wasm[0]!)).equals(re2Wasm)).toBe(true);
      expect(log).not.toMatch(
        /externalized for browser compatibility|Module "[a-z_]+" has been|doesn't exist at build time|Can't resolve|node:|WARNING/,
      );
    });

    it("runs on the main thread and in { type: 'module' } workers; re2Wasm overrides the bundled file", async (ctx) => {
      if (browser === undefined) ctx.skip(browserSkip);
      mkdirSync(join(outDir, 'custom'), { recursive: true });
      copyFileSync(
        join(REPO_ROOT, 'node_modules', 're2-wasm', 'build', 'wasm', 're2.wasm'),
        join(outDir, OVERRIDE_PATH),
      );
      const { server, url } = await startPlaygroundServer(outDir, 0);
      try {
        const { results: got, problems } = await pageResults(browser!.context, url);
        const expected = {
          realm: 'main thread',
          readyBefore: false,
          beforeReady: ['RegexEngineError', true],
          readyAfter: true,
          looped: ['ababc'],
          scan: [
            ['tier4:nan_signature', 'tier4', 2, 'loss=nan'],
            ['custom:nan_loss', 'fail', 2, 'loss=nan'],
          ],
          verdict: 'fail',
          failures: ['tier4:nan_signature', 'custom:nan_loss'],
          capture: { loss: 'nan' },
          wasm: [wasmPath],
        };
        const inWorker = { ...expected, realm: bundler.worker };
        expect(got).toEqual({ main: expected, worker: inWorker, override: { ...inWorker, wasm: [OVERRIDE_PATH] } });
        expect(problems).toEqual([]);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }, 120_000);
  });
});
