/**
 * The package as its users get it (issue 15): the release tarball installed offline into fresh projects — an ES
 * module project, a CommonJS one, strict TypeScript (node16 and bundler resolution) compiling the README's library
 * examples verbatim, and a Vite app run in the test Chromium on the main thread and in a Web Worker.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlaygroundServer } from '../src/cli/commands/playground.js';
import { launchChromium, pageResults, REPO_ROOT, SKIP_BROWSER, type LaunchedBrowser } from './support/browser.js';
import { fencedBlocks, packAndInstall, runNode, type Consumer } from './support/consumer.js';
import { matchesShown, runTour } from './support/readme-tour.js';

const RECIPE =
  'custom_patterns:\n  - id: nan_loss\n    match:\n      regex: "loss=(?P<loss>\\\\S+)"\n      condition: "math.isnan(float(capture[\'loss\']))"\n';
const LOG = 'step 1 loss=2.5\nstep 2 loss=nan\n';
const VARS = { exit_code: 0, walltime_sec: 1.5, peak_vram_mib: null };

/** What every consumer below computes, in the same order; each prints it as one JSON line. */
const EXPECTED = {
  fired: true,
  detailed: { fired: true, value: { type: 'bool', repr: 'True' } },
  sandbox: ['SandboxError', 'forbidden-node', 'Pow', 1, 11, true],
  verdict: 'fail',
  failures: ['tier4:nan_signature', 'custom:nan_loss'],
  capture: { loss: 'nan' },
  recipeError: [
    'SandboxError',
    'recipe.yaml',
    5,
    29,
    'recipe.custom_patterns[0].match.condition: condition: forbidden AST node: Pow',
    true,
  ],
};

/**
 * A raw scan result's failure ids (hits of kind tier4 or fail, in report order), as a consumer of `scanStream` /
 * `scanFile` reads them: the expression test/support/scan-results.ts's `failingIds` is, mirroring `logFindings` in
 * src/classifier/classify-log.ts. Spliced into the consumers' JavaScript after a result expression.
 */
const FAILING_IDS = `.detectors.filter((d) => d.kind === 'tier4' || d.kind === 'fail').map((d) => d.id)`;

/** The shared body of the ESM and CJS consumers: `m` is the package root's namespace. */
const BODY = `
const vars = ${JSON.stringify(VARS)};
const cond = m.compileCondition("math.isnan(float(capture['loss']))");
const out = { fired: cond.evaluate({ ...vars, capture: { loss: 'nan' } }) };
out.detailed = cond.evaluateDetailed({ ...vars, capture: { loss: 'nan' } });
out.engineAfterConditions = loadedRe2();
try { m.validateCondition('exit_code ** 2'); } catch (e) {
  out.sandbox = [e.name, e.kind, e.node, e.line, e.col, e instanceof m.RecipeSchemaError];
}
const recipe = m.loadRecipe(${JSON.stringify(RECIPE)}, 'recipe.yaml');
const r = m.classifyLog(recipe, ${JSON.stringify(LOG)}, vars);
out.verdict = r.verdict; out.failures = r.failure_detectors_fired; out.capture = r.capture;
out.engineAfterRecipe = loadedRe2();
const looped = m.compileRegex('(?:ab)+c');
out.loopedMatches = [...m.matchAll(looped, 'xababc')].map((x) => x.match);
looped.dispose();
out.engineAfterLooped = loadedRe2();
try { m.loadRecipe(${JSON.stringify(RECIPE.replace("math.isnan(float(capture['loss']))", 'exit_code ** 2'))}, 'recipe.yaml'); } catch (e) {
  out.recipeError = [e.name, e.file, e.line, e.col, e.reason, e instanceof m.SandboxError && e instanceof m.RecipeSchemaError];
}
`;

const ESM = `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const loadedRe2 = () => Object.keys(require.cache).some((k) => k.includes('re2-wasm'));
const m = await import('aorta-probe');
${BODY}
const node = await import('aorta-probe/node');
const { writeFileSync } = await import('node:fs');
writeFileSync('train.log', ${JSON.stringify(LOG)});
out.file = (await node.scanFile(recipe, 'train.log', vars))${FAILING_IDS};
out.sameClasses = node.SandboxError === m.SandboxError && typeof node.runTrial === 'function' && typeof node.GpuSampler === 'function';
out.version = (await import('aorta-probe/package.json', { with: { type: 'json' } })).default.version;
console.log(JSON.stringify(out));
`;

const CJS = `const loadedRe2 = () => Object.keys(require.cache).some((k) => k.includes('re2-wasm'));
const m = require('aorta-probe');
${BODY}
const node = require('aorta-probe/node');
require('node:fs').writeFileSync('train.log', ${JSON.stringify(LOG)});
node.scanFile(recipe, 'train.log', vars).then((f) => {
  out.file = f${FAILING_IDS};
  out.sameClasses = node.SandboxError === m.SandboxError && typeof node.runTrial === 'function' && typeof node.GpuSampler === 'function';
  out.version = require('aorta-probe/package.json').version;
  console.log(JSON.stringify(out));
});
`;

describe('the packed package, installed offline', () => {
  let consumer: Consumer;
  let version: string;

  beforeAll(() => {
    consumer = packAndInstall({ type: 'module' });
    version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;
    console.log(
      `[consumer] ${consumer.pack.filename}: ${kib(consumer.pack.size)} packed, ${kib(consumer.pack.unpackedSize)} unpacked, ${consumer.pack.entryCount} files`,
    );
  }, 300_000);

  afterAll(() => {
    if (consumer !== undefined) rmSync(join(consumer.dir, '..'), { recursive: true, force: true });
  });

  it('ships what a user needs and nothing else', () => {
    const paths = consumer.pack.files.map((f) => f.path).sort();
    for (const p of [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/node.js',
      'dist/src/node.d.ts',
      'dist/src/cli/main.cjs',
      'dist/assembly/opcodes.js',
      'dist/assembly/bytescan/layout.js',
    ]) {
      expect(paths).toContain(p);
    }
    expect(paths.filter((p) => p.endsWith('.map'))).toEqual([]);
    expect(
      paths.filter(
        (p) =>
          !/^(dist\/src\/|dist\/assembly\/(opcodes|bytescan\/layout)\.(js|d\.ts)$|dist\/playground\/|docs\/[A-Za-z0-9-]+\.md$|fixtures\/(demo|logs|recipes)\/|schemas\/[a-z-]+\.schema\.json$|LICENSE$|README\.md$|package\.json$)/.test(
            p,
          ),
      ),
    ).toEqual([]);
    // re2-wasm's binary twice: the playground's asset and ready()'s `new URL('./re2.wasm', import.meta.url)`; the VM
    // and the byte scanner are embedded.
    expect(paths.filter((p) => p.endsWith('.wasm')).sort()).toEqual([
      expect.stringMatching(/^dist\/playground\/assets\/re2-[\w-]+\.wasm$/),
      'dist/src/regex/re2.wasm',
    ]);
    expect(
      paths.filter((p) => p.endsWith('.d.ts') && (consumer.pack.files.find((f) => f.path === p)?.size ?? 0) > 20_000),
    ).toEqual([]);
    const pkg = JSON.parse(
      readFileSync(join(consumer.dir, 'node_modules', 'aorta-probe', 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(pkg.scripts).toBeUndefined();
    expect(pkg.devDependencies).toBeUndefined();
    for (const k of ['license', 'repository', 'homepage', 'bugs', 'keywords', 'engines', 'exports', 'sideEffects'])
      expect(pkg[k]).toBeDefined();
    expect(Object.keys(pkg.exports as object)).toEqual(['.', './node', './package.json']);
  });

  it('runs nothing at install', () => {
    expect(consumer.installLog).not.toMatch(/aorta-probe@/);
  });

  it('imports as an ES module; compileCondition alone loads no regex engine', () => {
    writeFileSync(join(consumer.dir, 'esm.mjs'), ESM);
    const got = JSON.parse(runNode(consumer.dir, ['esm.mjs'])) as Record<string, unknown>;
    expect(got).toEqual({
      ...EXPECTED,
      engineAfterConditions: false,
      // Every pattern of the recipe and of Tier 4 runs on the fast path; a repeated group needs RE2.
      engineAfterRecipe: false,
      loopedMatches: ['ababc'],
      engineAfterLooped: true,
      file: EXPECTED.failures,
      sameClasses: true,
      version,
    });
  }, 120_000);

  it('requires as CommonJS', () => {
    writeFileSync(join(consumer.dir, 'cjs.cjs'), CJS);
    const got = JSON.parse(runNode(consumer.dir, ['cjs.cjs'])) as Record<string, unknown>;
    expect(got).toEqual({
      ...EXPECTED,
      engineAfterConditions: false,
      // Every pattern of the recipe and of Tier 4 runs on the fast path; a repeated group needs RE2.
      engineAfterRecipe: false,
      loopedMatches: ['ababc'],
      engineAfterLooped: true,
      file: EXPECTED.failures,
      sameClasses: true,
      version,
    });
  }, 120_000);

  it("compiles the README's library examples under strict TypeScript (node16 and bundler resolution)", () => {
    const blocks = fencedBlocks(join(consumer.dir, 'node_modules', 'aorta-probe', 'README.md'), 'ts');
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const tsDir = join(consumer.dir, 'ts');
    mkdirSync(tsDir, { recursive: true });
    for (const [i, b] of blocks.entries()) writeFileSync(join(tsDir, `readme-${i + 1}.ts`), `${b}\nexport {};\n`);
    const strict = {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: 'ES2022',
      lib: ['ES2022', 'DOM'],
      types: ['node'],
      typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
      skipLibCheck: false,
    };
    for (const [name, opts] of [
      ['node16', { module: 'node16', moduleResolution: 'node16' }],
      ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
    ] as const) {
      writeFileSync(
        join(tsDir, `tsconfig.${name}.json`),
        JSON.stringify({ compilerOptions: { ...strict, ...opts }, include: ['*.ts'] }),
      );
      const r = spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', `tsconfig.${name}.json`],
        { cwd: tsDir, encoding: 'utf8' },
      );
      expect(`${name}: ${r.stdout}${r.stderr}`).toBe(`${name}: `);
      expect(r.status).toBe(0);
    }
  }, 300_000);

  it('runs the README tour as shown, from the install', () => {
    const tour = join(consumer.dir, 'tour');
    mkdirSync(tour);
    for (const step of runTour(
      join(consumer.dir, 'node_modules', 'aorta-probe', 'README.md'),
      tour,
      join(consumer.dir, 'node_modules', '.bin', 'aorta-probe'),
    )) {
      expect(matchesShown(step.shown, step.actual), `$ ${step.command}\n${step.actual.join('\n')}`).toBe(true);
    }
  }, 300_000);

  it("runs the README's library examples with the output their comments show", () => {
    const blocks = fencedBlocks(join(consumer.dir, 'node_modules', 'aorta-probe', 'README.md'), 'ts').filter(
      (b) => !b.includes("'aorta-probe/node'"),
    );
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    blocks.forEach((b, i) => {
      writeFileSync(join(consumer.dir, `readme-${i + 1}.mjs`), b);
      const shown = [...b.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
      expect(
        runNode(consumer.dir, [`readme-${i + 1}.mjs`])
          .trimEnd()
          .split('\n'),
        b,
      ).toEqual(shown);
    });
  }, 120_000);

  it('npx aorta-probe demo works from the install and leaves nothing behind', () => {
    const tmp = join(consumer.dir, 'tmp');
    mkdirSync(tmp);
    const r = spawnSync('npx', ['--offline', 'aorta-probe', 'demo', '--quiet'], {
      cwd: consumer.dir,
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: tmp },
      timeout: 180_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('failure detectors: tier4:nan_signature, custom:nan_loss');
    expect(readdirSync(tmp)).toEqual([]);
  }, 300_000);

  it('every --help example that names shipped files runs from the installed package', () => {
    const pkgDir = join(consumer.dir, 'node_modules', 'aorta-probe');
    const bin = join(consumer.dir, 'node_modules', '.bin', 'aorta-probe');
    const examples: string[] = [];
    for (const cmd of ['eval', 'check', 'scan', 'patterns', 'run', 'demo', 'playground']) {
      const help = runNode(pkgDir, [bin, cmd, '--help']);
      const lines = help.slice(help.indexOf('Examples:')).split('\n').slice(1);
      examples.push(
        ...lines.filter((l) => l.startsWith('  aorta-probe ') && l.includes('fixtures/')).map((l) => l.trim()),
      );
    }
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const ex of examples) {
      const r = spawnSync('bash', ['-c', ex.replace(/^aorta-probe /, `'${bin}' `)], {
        cwd: pkgDir,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect([0, 1], `${ex}\n${r.stderr}`).toContain(r.status);
      expect(r.stderr, ex).not.toMatch(/ENOENT|no such file|cannot (open|read)/i);
    }
  }, 300_000);

  describe.skipIf(SKIP_BROWSER)('in a Vite app, in Chromium', () => {
    let browser: LaunchedBrowser;
    let server: Server;
    let url: string;
    let buildLog: string;

    // biome-ignore lint/suspicious/noDuplicateTestHooks: these hooks belong to this describe.skipIf block, which Biome does not see as a describe
    beforeAll(async () => {
      const app = consumer.dir;
      mkdirSync(join(app, 'src'), { recursive: true });
      writeFileSync(
        join(app, 'index.html'),
        '<!doctype html><html><body><script type="module" src="/src/main.ts"></script></body></html>\n',
      );
      writeFileSync(join(app, 'src', 'work.ts'), VITE_WORK);
      writeFileSync(join(app, 'src', 'main.ts'), VITE_MAIN);
      writeFileSync(join(app, 'src', 'worker.ts'), VITE_WORKER);
      writeFileSync(
        join(app, 'vite.config.mjs'),
        "export default { build: { target: 'es2022' }, logLevel: 'info' };\n",
      );
      writeFileSync(
        join(app, 'src', 'env.d.ts'),
        "declare module '*?url' { const url: string; export default url; }\n",
      );
      const r = spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'info'],
        { cwd: app, encoding: 'utf8', timeout: 180_000 },
      );
      buildLog = `${r.stdout}${r.stderr}`;
      if (r.status !== 0) throw new Error(`vite build failed:\n${buildLog}`);
      ({ server, url } = await startPlaygroundServer(join(app, 'dist'), 0));
      browser = await launchChromium();
    }, 300_000);

    // biome-ignore lint/suspicious/noDuplicateTestHooks: as above
    afterAll(async () => {
      await browser?.close();
      await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    });

    it('builds without Node built-ins', () => {
      expect(buildLog).not.toMatch(/externalized for browser compatibility|node:|Module "[a-z_]+" has been/);
    });

    it('classifies on the main thread and in a worker, with no console errors', async () => {
      const { results: got, problems } = await pageResults(browser.context, url);
      const expected = {
        ...EXPECTED,
        beforeReady: 'RegexEngineError',
        engineFetchedForConditions: false,
        stream: EXPECTED.failures,
      };
      expect(got).toEqual({ main: expected, worker: expected });
      expect(problems).toEqual([]);
    }, 120_000);
  });
});

/** What the Vite app computes on the main thread and in the worker (the same module in both). */
const VITE_WORK = `import re2Wasm from 're2-wasm/build/wasm/re2.wasm?url';
import { classifyLog, compileCondition, loadRecipe, ready, RecipeSchemaError, SandboxError, scanStream, validateCondition } from 'aorta-probe';

export async function work(): Promise<Record<string, unknown>> {
  const vars = ${JSON.stringify(VARS)};
  const cond = compileCondition("math.isnan(float(capture['loss']))");
  const out: Record<string, unknown> = { fired: cond.evaluate({ ...vars, capture: { loss: 'nan' } }) };
  out.detailed = cond.evaluateDetailed({ ...vars, capture: { loss: 'nan' } });
  try { validateCondition('exit_code ** 2'); } catch (e) {
    if (e instanceof SandboxError) out.sandbox = [e.name, e.kind, e.node, e.line, e.col, e instanceof RecipeSchemaError];
  }
  out.engineFetchedForConditions = performance.getEntriesByType('resource').some((r) => r.name.includes('re2'));
  try { loadRecipe(${JSON.stringify(RECIPE)}, 'recipe.yaml'); } catch (e) { out.beforeReady = (e as Error).name; }
  await ready({ re2Wasm });
  const recipe = loadRecipe(${JSON.stringify(RECIPE)}, 'recipe.yaml');
  const r = classifyLog(recipe, ${JSON.stringify(LOG)}, vars);
  out.verdict = r.verdict; out.failures = r.failure_detectors_fired; out.capture = r.capture;
  out.stream = (await scanStream(recipe, new Blob([${JSON.stringify(LOG)}]).stream(), vars))${FAILING_IDS};
  try { loadRecipe(${JSON.stringify(RECIPE.replace("math.isnan(float(capture['loss']))", 'exit_code ** 2'))}, 'recipe.yaml'); } catch (e) {
    if (e instanceof RecipeSchemaError) out.recipeError = [e.name, e.file, e.line, e.col, e.reason, e instanceof SandboxError];
  }
  return out;
}
`;

const VITE_WORKER = `import { work } from './work';
work().then((r) => postMessage(r), (e: unknown) => postMessage({ error: String(e) }));
`;

const VITE_MAIN = `import { work } from './work';
const w = window as unknown as { __results: Record<string, unknown>; __done: boolean };
const main = await work().catch((e: unknown) => ({ error: String(e) }));
const worker = await new Promise((resolve) => {
  const wk = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  wk.onmessage = (ev) => resolve(ev.data);
  wk.onerror = (ev) => resolve({ error: ev.message });
});
w.__results = { main, worker };
w.__done = true;
`;
