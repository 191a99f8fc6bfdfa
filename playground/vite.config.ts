/**
 * Vite build of the playground page (`npm run build:playground` → dist/playground/).
 *
 * The engine runs in a classic Web Worker bundled as an IIFE, loaded from the package's browser entry (src/index.ts)
 * like any browser app would, with `await ready()` and no argument: Vite emits re2-wasm's binary as an asset from
 * the package's `new URL('./re2.wasm', import.meta.url)` (src/regex/re2-wasm-url.ts). One difference from an app
 * that installs the package: the page builds from src/, and the package's re2.wasm exists only in dist/ (the build
 * copies it there, scripts/copy-re2-wasm.mjs), so `re2WasmFromSource` points that one URL at re2-wasm's own file,
 * the same bytes. No other alias or shim.
 */
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

/** src/regex/re2-wasm-url.ts's `./re2.wasm` (a file of dist/ only) → re2-wasm's build/wasm/re2.wasm, for Vite's asset step. */
function re2WasmFromSource(): Plugin {
  const urlModule = resolve(here, '../src/regex/re2-wasm-url.ts');
  const wasm = createRequire(import.meta.url).resolve('re2-wasm/build/wasm/re2.wasm');
  const literal = "new URL('./re2.wasm', import.meta.url)";
  return {
    name: 'aorta-re2-wasm-from-source',
    enforce: 'pre', // the TypeScript source as written, before Vite's asset step reads the URL
    transform(code, id) {
      if (id !== urlModule) return null;
      if (!code.includes(literal)) throw new Error(`${urlModule} no longer has ${literal}`);
      const path = relative(dirname(urlModule), wasm).split('\\').join('/');
      return { code: code.replace(literal, `new URL(${JSON.stringify(path)}, import.meta.url)`), map: null };
    },
  };
}

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  plugins: [re2WasmFromSource()],
  worker: {
    format: 'iife',
    plugins: () => [re2WasmFromSource()],
  },
  build: {
    outDir: resolve(here, '../dist/playground'),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2000,
  },
  logLevel: 'warn',
});
