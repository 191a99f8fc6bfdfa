// Build step (after tsc): re2-wasm's binary, build/wasm/re2.wasm, copied to dist/src/regex/re2.wasm, beside
// dist/src/regex/re2-wasm-url.js, whose `new URL('./re2.wasm', import.meta.url)` names it. A browser's `ready()`
// with no argument fetches that URL: a bundler (Vite, webpack 5) emits the file as an asset and rewrites the URL,
// and a page loading the package unbundled finds it beside the module. It ships (package.json "files"). The glue
// that runs it (src/regex/re2-glue.generated.ts, scripts/wrap-re2-glue.mjs) comes from the same installed
// re2-wasm, so the two always match. Node never reads this copy: it loads re2-wasm's own files.
import { chmodSync, copyFileSync, existsSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const from = require.resolve('re2-wasm/build/wasm/re2.wasm');
const dir = fileURLToPath(new URL('../dist/src/regex/', import.meta.url));
if (!existsSync(dir)) {
  console.error(`copy-re2-wasm: ${dir} is missing; run tsc first (npm run build:ts)`);
  process.exit(1);
}
// Written aside and renamed into place: a concurrent pack or test never reads half a file.
const partial = `${dir}re2.wasm.partial-${process.pid}`;
copyFileSync(from, partial);
chmodSync(partial, 0o644); // re2-wasm ships it executable
renameSync(partial, `${dir}re2.wasm`);
