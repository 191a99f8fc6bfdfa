// Build step (after tsc): the `aorta-probe` bin as a code-split bundle, written over tsc's dist/src/cli/main.js
// with its chunks beside it (dist/src/cli/chunk-*.js).
//
// Why: a cold `aorta-probe check` loaded 121 ES modules (71 of them yaml's) one file at a time — resolving,
// opening, stat-ing and compiling each was most of its start-up. rolldown (already a devDependency, vite's
// bundler) merges them into a few chunks; each command's dynamic import in run.ts stays a chunk boundary, so
// `--version` and `eval` still load only what they use. re2-wasm stays external: its glue finds its .wasm file
// from its own package directory. The library entry points (dist/src/index.js, node.js) are not bundled.
//
// The bin keeps its path (package.json `bin`, sweep's own command line) and its shebang; chunks live in the same
// directory so that paths resolved from `import.meta.url` (sweep's main.js, the package.json walk) stay right.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const CLI_DIR = fileURLToPath(new URL('../dist/src/cli/', import.meta.url));
const ENTRY = join(CLI_DIR, 'main.js');

// tsc's main.js imports ./run.js; the bundle's imports only chunks.
if (!readFileSync(ENTRY, 'utf8').includes("from './run.js'")) {
  // Bundling the bundle would read chunks this script is about to delete.
  console.error(`bundle-cli: ${ENTRY} is already the bundle; run tsc first (npm run build:ts)`);
  process.exit(1);
}
for (const f of readdirSync(CLI_DIR)) if (/^chunk-.*\.js$/.test(f)) rmSync(join(CLI_DIR, f));

await build({
  input: { main: ENTRY },
  platform: 'node',
  external: [/^re2-wasm/],
  logLevel: 'warn',
  output: {
    dir: CLI_DIR,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunk-[name]-[hash].js',
    // What every command loads (argument errors, exit codes, the JSON error object, TTY checks) in one chunk,
    // not one per module: each extra file is a resolve + open + compile on the `--version` path.
    codeSplitting: {
      groups: [
        {
          name: 'core',
          test: /dist\/src\/(cli\/(args|suggest|exit-codes|json-output|tty)|errors|(condition|recipe)\/errors)\.js$/,
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
