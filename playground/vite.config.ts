/**
 * Vite build of the playground page (`npm run build:playground` → dist/playground/).
 *
 * The engine runs in a classic Web Worker bundled as an IIFE, loaded from the package's browser entry (src/index.ts)
 * like any browser app would: no aliases or shims, and re2-wasm's binary is an ordinary asset
 * (`import re2Wasm from 're2-wasm/build/wasm/re2.wasm?url'`, handed to `ready()`).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  worker: {
    format: 'iife',
    plugins: () => [],
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
