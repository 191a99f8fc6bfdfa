/**
 * Vite build of the playground page (`npm run build:playground` → dist/playground/).
 *
 * The engine (src/condition, src/recipe, src/regex, src/scan) runs in a classic Web Worker bundled as an IIFE.
 * The few Node built-ins those modules use are replaced in the worker bundle by small shims (aliases below), so
 * no engine file has to change for the browser:
 *   - `node:module` (src/regex/engine.ts `createRequire(...)('re2-wasm/build/wasm/re2.js')`) → a `createRequire`
 *     whose require `importScripts` re2-wasm's emscripten glue and returns `self.Module` (see shims/node-module.ts);
 *   - `node:crypto` (src/recipe/load.ts `createHash('sha256')`) → a synchronous SHA-256 (shims/node-crypto.ts);
 *   - the global `Buffer` (`Buffer.byteLength`, `Buffer.from(s, 'utf8')` in src/recipe, src/regex, src/scan) → a
 *     tiny global installed first thing in the worker (shims/buffer-global.ts).
 * re2-wasm's `build/wasm/re2.js` and `re2.wasm` are copied verbatim to `re2/` in the output.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const re2Dir = join(dirname(require.resolve('re2-wasm/package.json')), 'build', 'wasm');
const RE2_FILES = ['re2.js', 're2.wasm'];

/** Serves (dev) and emits (build) re2-wasm's glue and binary under `re2/`. */
function re2Assets(): Plugin {
  return {
    name: 'aorta-re2-assets',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const m = /\/re2\/(re2\.(?:js|wasm))(?:\?.*)?$/.exec(req.url ?? '');
        if (m === null) return next();
        res.setHeader('Content-Type', m[1]!.endsWith('.wasm') ? 'application/wasm' : 'text/javascript');
        res.end(readFileSync(join(re2Dir, m[1]!)));
      });
    },
    generateBundle() {
      for (const f of RE2_FILES) this.emitFile({ type: 'asset', fileName: `re2/${f}`, source: readFileSync(join(re2Dir, f)) });
    },
  };
}

const shim = (name: string): string => resolve(here, 'src/shims', name);

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  resolve: {
    alias: [
      { find: /^node:module$/, replacement: shim('node-module.ts') },
      { find: /^node:crypto$/, replacement: shim('node-crypto.ts') },
    ],
  },
  worker: {
    format: 'iife',
    plugins: () => [],
  },
  plugins: [re2Assets()],
  build: {
    outDir: resolve(here, '../dist/playground'),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2000,
  },
  logLevel: 'warn',
});
