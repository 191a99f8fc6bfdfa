/**
 * `ready()`'s browser path, run in Node with `process.getBuiltinModule` hidden while the loader first looks (so it
 * takes the path a browser takes) and `fetch` stubbed: with no argument it fetches the re2.wasm named beside
 * src/regex/re2-wasm-url.ts; `re2Wasm` overrides it; what goes wrong says what to do. The same path in real
 * browsers, bundled by Vite and webpack: test/consumer-bundlers.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const RE2_WASM = readFileSync(join(REPO_ROOT, 'node_modules', 're2-wasm', 'build', 'wasm', 're2.wasm'));
/** Where the package's copy lies beside re2-wasm-url.js (here the source file's folder). */
const BUNDLED = pathToFileURL(join(REPO_ROOT, 'src', 'regex', 're2.wasm')).href;

type Loader = typeof import('../src/regex/engine-loader.js');

/** A fresh engine loader (and module graph) that believes it is not in Node. */
async function browserLoader(): Promise<Loader> {
  vi.resetModules();
  const proc = process as { getBuiltinModule?: unknown };
  const saved = proc.getBuiltinModule;
  proc.getBuiltinModule = undefined;
  try {
    const loader = await import('../src/regex/engine-loader.js');
    expect(loader.isReady()).toBe(false); // caches "not Node" for this module instance
    return loader;
  } finally {
    proc.getBuiltinModule = saved;
  }
}

/** A `fetch` that records its URLs and answers each with `respond`. */
function stubFetch(respond: (url: string) => Response): string[] {
  const seen: string[] = [];
  vi.stubGlobal('fetch', async (input: string | URL) => {
    seen.push(String(input));
    return respond(String(input));
  });
  return seen;
}

const wasmResponse = (): Response =>
  new Response(new Uint8Array(RE2_WASM), { headers: { 'content-type': 'application/wasm' } });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('ready() on the browser path', () => {
  it("with no argument fetches the package's own re2.wasm, once, and the engine works", async () => {
    const seen = stubFetch(wasmResponse);
    const loader = await browserLoader();
    // The same module graph as the loader: before ready(), RE2 work fails and names the fix.
    const { compileRegex } = await import('../src/regex/compile.js');
    const { matchAll } = await import('../src/regex/match.js');
    expect(() => compileRegex('(?:ab)+c')).toThrow(/in a browser, `await ready\(\)`/);
    await Promise.all([loader.ready(), loader.ready()]);
    await loader.ready();
    expect(seen).toEqual([BUNDLED]);
    expect(loader.isReady()).toBe(true);
    const re = compileRegex('(?:ab)+c');
    expect([...matchAll(re, 'xababc')].map((m) => m.match)).toEqual(['ababc']);
    re.dispose();
  });

  it('fetches re2Wasm instead when it is given, or takes its bytes', async () => {
    const seen = stubFetch(wasmResponse);
    await (await browserLoader()).ready({ re2Wasm: 'https://cdn.example/re2-wasm@1.0.2/re2.wasm' });
    expect(seen).toEqual(['https://cdn.example/re2-wasm@1.0.2/re2.wasm']);
    const loader = await browserLoader();
    await loader.ready({ re2Wasm: new Uint8Array(RE2_WASM) });
    expect(seen).toHaveLength(1);
    expect(loader.isReady()).toBe(true);
  });

  it('names the file and the override when the bundled file is missing or is a fallback page; a retry can succeed', async () => {
    let answer = (): Response => new Response('not found', { status: 404 });
    stubFetch(() => answer());
    const loader = await browserLoader();
    const missing = loader.ready();
    await expect(missing).rejects.toMatchObject({ name: 'RegexEngineError' });
    await expect(missing).rejects.toThrow(
      `ready(): cannot fetch ${BUNDLED}: HTTP 404 (the package's own re2.wasm, named by \`new URL('./re2.wasm', import.meta.url)\`; where a bundler does not emit it as an asset, pass \`ready({ re2Wasm })\``,
    );
    answer = () => new Response('<!doctype html><html></html>', { headers: { 'content-type': 'text/html' } });
    await expect(loader.ready()).rejects.toThrow(
      `ready(): ${BUNDLED} is not WebAssembly (the server sent text/html) (the package's own re2.wasm`,
    );
    expect(loader.isReady()).toBe(false);
    answer = wasmResponse;
    await loader.ready();
    expect(loader.isReady()).toBe(true);
  });

  it("an override's failure names the override alone", async () => {
    stubFetch(() => new Response('gone', { status: 410 }));
    await expect((await browserLoader()).ready({ re2Wasm: '/static/re2.wasm' })).rejects.toThrow(
      /^ready\(\): cannot fetch \/static\/re2\.wasm: HTTP 410$/,
    );
  });
});
