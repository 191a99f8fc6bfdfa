/**
 * Browser stand-in for `node:module` in the engine worker. src/regex/engine.ts does
 * `createRequire(import.meta.url)('re2-wasm/build/wasm/re2.js')`; here that require loads re2-wasm's emscripten glue
 * with `importScripts` (classic workers only) after pointing `Module.locateFile` at the served `re2/` directory.
 * The glue is built with WASM_ASYNC_COMPILATION=0 and, in a worker, reads `re2.wasm` with a synchronous XHR, so
 * `self.Module.WrappedRE2` is ready as soon as importScripts returns.
 */
interface Re2Global {
  Module?: { WrappedRE2?: unknown; locateFile?: (p: string) => string; [k: string]: unknown };
  importScripts?: (...urls: string[]) => void;
}

/** Where re2.js and re2.wasm are served: the page passes it as the worker's name (JSON `{re2Base}`). */
export function re2BaseUrl(): string {
  const g = globalThis as unknown as { name?: string; location?: { href: string } };
  try {
    const parsed = JSON.parse(g.name ?? '') as { re2Base?: unknown };
    if (typeof parsed.re2Base === 'string') return parsed.re2Base;
  } catch {
    // fall through
  }
  return new URL('../re2/', g.location?.href ?? 'http://localhost/').href;
}

function loadRe2(): unknown {
  const g = globalThis as unknown as Re2Global;
  if (g.Module?.WrappedRE2 !== undefined) return g.Module;
  const base = re2BaseUrl();
  const t0 = performance.now();
  g.Module = { locateFile: (p: string) => new URL(p, base).href };
  const glue = new URL('re2.js', base).href;
  let classic = typeof g.importScripts === 'function';
  if (classic) {
    try {
      g.importScripts!(glue);
    } catch (e) {
      // A module worker has importScripts but refuses it with a TypeError; a network error is rethrown.
      if (!(e instanceof TypeError)) throw e;
      classic = false;
    }
  }
  if (!classic) {
    // `vite` dev server only: workers are ES modules there, which have no importScripts. Read the glue with a
    // synchronous request (allowed in workers) and run it as a classic script in the global scope.
    const xhr = new XMLHttpRequest();
    xhr.open('GET', glue, false);
    xhr.send();
    if (xhr.status !== 200) throw new Error(`cannot load ${glue}: HTTP ${xhr.status}`);
    (0, eval)(`${xhr.responseText}\n;self.Module = Module;`);
  }
  (globalThis as unknown as { __aortaRe2LoadMs?: number }).__aortaRe2LoadMs = performance.now() - t0;
  if (g.Module?.WrappedRE2 === undefined) throw new Error('re2-wasm did not initialise synchronously');
  return g.Module;
}

export function createRequire(_from: string | URL): (id: string) => unknown {
  return (id: string) => {
    if (id === 're2-wasm/build/wasm/re2.js') return loadRe2();
    throw new Error(`require(${JSON.stringify(id)}) is not available in the playground worker`);
  };
}

export default { createRequire };
