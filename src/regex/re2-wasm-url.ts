/**
 * Where a browser finds re2-wasm's binary when `ready()` is given no `re2Wasm`: the copy that ships beside this
 * module (dist/src/regex/re2.wasm, copied from re2-wasm's build/wasm/re2.wasm by scripts/copy-re2-wasm.mjs at build
 * time, the same re2-wasm version whose glue re2-glue.generated.ts wraps).
 *
 * The expression is written as bundlers recognise it — `new URL('<static relative path>', import.meta.url)`, the
 * string literal relative to this file — so that Vite and webpack 5 (test/consumer-bundlers.test.ts) and Parcel emit
 * the file as an asset and rewrite the URL to it with no configuration, and a browser loading the package unbundled
 * resolves it beside this module. Keep it literal: a computed path or a variable would hide it from them.
 *
 * Only the browser path of engine-loader.ts calls this; Node loads re2-wasm's own files synchronously and never
 * evaluates it (the CLI bundle keeps it as dead code: nothing in Node reaches it).
 */
export function bundledRe2WasmUrl(): URL {
  return new URL('./re2.wasm', import.meta.url);
}
