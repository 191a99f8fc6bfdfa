// Build step (after tsc): the `aorta-probe` bin as a code-split CommonJS bundle, dist/src/cli/main.cjs, with its
// chunks beside it (dist/src/cli/chunk-*.cjs); tsc's dist/src/cli/bin.js (the unbundled entry) is removed, so
// that there is one entry to run. (tsc's dist/src/cli/main.js, the dispatcher and its `runCli`, stays: scripts
// and hosts import it.)
//
// Why: a cold `aorta-probe check` loaded 121 ES modules (71 of them yaml's) one file at a time — resolving,
// opening, stat-ing and compiling each was most of its start-up. rolldown (already a devDependency, vite's
// bundler) merges them into a few chunks; each command's dynamic import in main.ts's table stays a chunk boundary, so
// `--version` and `eval` still load only what they use. re2-wasm stays external: its glue finds its .wasm file
// from its own package directory. The library entry points (dist/src/index.js, node.js) are not bundled.
//
// Why CommonJS: an ES module entry starts node's ESM loader, whose internal modules cost ~10 ms to compile, and
// ~15 ms more under any V8 flag (ours: the shebang's young-generation flag), because node's code cache for its
// own modules is keyed by V8's flag hash and is rejected then. A CommonJS process never starts that loader
// (measured here: `node x.mjs` +12 ms over `node -e 0`, +25 ms with the flag; `node x.cjs` +3 ms). The library
// stays ESM; only the bin is CommonJS (rolldown rewrites `import.meta.url` from `__filename`).
//
// Chunks live in the bin's directory so that paths resolved from `import.meta.url` (sweep's main.cjs, the
// package.json walk) stay right.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { build } from 'rolldown';

const CLI_DIR = fileURLToPath(new URL('../dist/src/cli/', import.meta.url));
const ENTRY = join(CLI_DIR, 'bin.js');

// tsc's bin.js is the bundle's input (it imports ./main.js).
if (!existsSync(ENTRY) || !readFileSync(ENTRY, 'utf8').includes("from './main.js'")) {
  // tsc's entry is removed after bundling; a second run needs tsc's output again.
  console.error(`bundle-cli: ${ENTRY} is missing; run tsc first (npm run build:ts)`);
  process.exit(1);
}
for (const f of readdirSync(CLI_DIR)) if (/^chunk-.*\.c?js$|\.v8cache$/.test(f)) rmSync(join(CLI_DIR, f));

// CPython's character-name table (src/condition/unicode-tables.ts, ~345 KB of its 411) is read only by a
// `\N{...}` escape, yet as a string literal in a chunk every condition-reading command loads, it cost each cold
// `eval`/`check`/`scan` ~12–18 ms (measured: `eval` 191 → 173 ms median with the literal emptied) to read and scan.
// In the bin it becomes a file beside the chunks, read on the first `\N{...}`. The library keeps the literal (a
// browser has no file to read).
const NAMES_FILE = 'unicode-names.json';
const lazyUnicodeNames = {
  name: 'lazy-unicode-names',
  transform(code, id) {
    if (!id.endsWith('/dist/src/condition/unicode-tables.js')) return null;
    const literal = /const NAME_GROUPS_JSON = ("(?:[^"\\]|\\[\s\S])*");\n/.exec(code);
    const parse = 'JSON.parse(NAME_GROUPS_JSON)';
    if (literal === null || code.split(parse).length !== 2)
      throw new Error(`bundle-cli: ${id} no longer has the one NAME_GROUPS_JSON literal this step moves out`);
    // Our own generated string literal, evaluated alone in an empty context.
    writeFileSync(join(CLI_DIR, NAMES_FILE), runInNewContext(literal[1]));
    return code
      .replace(literal[0], '')
      .replace(
        parse,
        `JSON.parse(require("node:fs").readFileSync(require("node:path").join(__dirname, ${JSON.stringify(NAMES_FILE)}), "utf8"))`,
      );
  },
};

// The VM's and the byte scanner's WebAssembly (scripts/embed-wasm.mjs: base64 in an ES module, which the library and
// a browser need as they are) ship once: the bin's chunks read the base64 from those modules' files in dist/ instead
// of carrying a copy of the literal (48 KB for the VM, shipped twice before, and a third time inside its chunk's V8
// code cache). Reading the file costs what deserialising the literal from the chunk's code cache did: cold `eval 1+1`
// 161.5 ms median with the literal, 163.0 ms reading the file (150 alternating runs each, 2 cores; within noise).
const SHARED_WASM = ['dist/src/condition/vm-wasm.generated.js', 'dist/src/scan/bytescan-wasm.generated.js'];
/** The base64 literal of a generated module's text; the bin runs this very function's source on the file. */
function wasmBase64(text, file) {
  const start = text.indexOf(" = '") + 4;
  const end = text.indexOf("'", start);
  if (start < 4 || end < 0) throw new Error(`aorta-probe: ${file} has no WebAssembly base64 literal`);
  return text.slice(start, end);
}
const sharedWasm = {
  name: 'shared-wasm',
  transform(code, id) {
    if (!SHARED_WASM.some((m) => id.endsWith(`/${m}`))) return null;
    const literal = /^export const (\w+) = '([A-Za-z0-9+/=]+)';$/m.exec(code);
    if (literal === null || wasmBase64(readFileSync(id, 'latin1'), id) !== literal[2])
      throw new Error(`bundle-cli: ${id} is not the one base64 constant scripts/embed-wasm.mjs writes`);
    const read = `(f) => (${wasmBase64})(require("node:fs").readFileSync(f, "latin1"), f)`;
    const file = `require("node:path").join(__dirname, ${JSON.stringify(relative(CLI_DIR, id))})`;
    return `export const ${literal[1]} = (${read})(${file});\n`;
  },
};

await build({
  // The scan's second thread (src/scan/split-threads.ts) starts its worker from this file, beside main.cjs
  // (src/cli/commands/scan.ts names it).
  input: { main: ENTRY, 'scan-part-worker': join(CLI_DIR, '..', 'scan', 'split-worker.js') },
  platform: 'node',
  external: [/^re2-wasm/],
  plugins: [lazyUnicodeNames, sharedWasm],
  logLevel: 'warn',
  output: {
    dir: CLI_DIR,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'chunk-[name]-[hash].cjs',
    // What every command loads (argument errors, exit codes, the JSON error object, TTY checks, the code cache, the
    // command I/O and writer, the package's version) in one chunk, not one per module: each extra file is a
    // resolve + open + compile on the `--version` path.
    codeSplitting: {
      groups: [
        {
          name: 'core',
          test: /dist\/src\/(cli\/(args|suggest|exit-status|json-output|tty|code-cache|io|writer)|trial\/package-info|errors|(condition|recipe)\/errors)\.js$/,
        },
      ],
    },
    // Whitespace and comments out (the doc comments are half the bytes V8 has to scan at start-up); no
    // mangling or compression, so class and function names (error types, stack traces) stay as written. ASCII
    // only (non-ASCII in literals escaped): a one-byte source is decoded and scanned faster than a two-byte one.
    minify: { compress: false, mangle: false, codegen: { removeWhitespace: true, asciiOnly: true } },
    // The shebang stays the first line.
  },
});
for (const f of ['bin.js', 'bin.d.ts', 'bin.js.map']) rmSync(join(CLI_DIR, f), { force: true });
