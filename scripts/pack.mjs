// The published package.json, and the release tarball.
//
// Why: the repository's package.json keeps `prepare` so that `npm install` in a clone builds (scripts/link-self-bin.mjs),
// but npm lists a `prepare` among the install scripts it warns about (and, from npm 12, blocks) when a consumer
// installs a tarball or a directory. The published manifest is the repository's minus what only a clone needs: no
// scripts at all (so no preinstall, install, postinstall or prepare) and no devDependencies (`publishedManifest`).
//
// Plain `npm pack` and `npm publish` go through it: package.json's `prepack` builds, then runs this script with
// --prepack, which keeps the repository's package.json under node_modules/.cache/aorta-probe-pack/ and writes the
// published manifest in its place; npm then packs that file (and, with no `prepare` left in it, does not build a
// second time); `postpack` (--postpack) puts the repository's file back, byte for byte. npm runs `postpack` from the
// manifest it read before `prepack`, so the stripped file needs no scripts. (`npm publish` re-reads package.json
// after packing for the registry's record of the version: that record has the scripts, as any package's does; npm
// never runs or lists a registry package's `prepare`, and what an install writes to node_modules is the tarball's
// file.) If a pack dies between the two (the process killed), package.json stays stripped: `git diff` shows it, and
// `node scripts/pack.mjs --postpack` puts it back.
//
// `npm run pack [-- --out DIR]` (no flag): after a build, the same tarball without building again (the tests pack
// this way): the files `npm pack --ignore-scripts` selects are staged with the published manifest and packed there,
// leaving the repository's package.json alone. It prints the `npm pack --json` record, with `path` added.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The published manifest: the repository's, minus what only a clone needs (as the text npm packs). */
export function publishedManifest(text) {
  const pkg = JSON.parse(text);
  delete pkg.scripts;
  delete pkg.devDependencies;
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const pkgPath = join(root, 'package.json');
const saved = join(root, 'node_modules', '.cache', 'aorta-probe-pack', 'package.json');

/** Replaces `path` whole: a reader never sees a half-written package.json. */
function replaceFile(path, text) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

function prepack() {
  const text = readFileSync(pkgPath, 'utf8');
  if (existsSync(saved) && text === publishedManifest(readFileSync(saved, 'utf8')))
    fail(`package.json is still stripped by an interrupted pack: run node scripts/pack.mjs --postpack first`);
  mkdirSync(dirname(saved), { recursive: true });
  writeFileSync(saved, text);
  replaceFile(pkgPath, publishedManifest(text));
}

function postpack() {
  if (!existsSync(saved)) fail(`nothing to restore (${saved} is missing): package.json was not stripped`);
  const original = readFileSync(saved, 'utf8');
  const now = readFileSync(pkgPath, 'utf8');
  if (now !== publishedManifest(original) && now !== original)
    fail(`package.json changed while it was packed; left as it is. The repository's version before the pack: ${saved}`);
  replaceFile(pkgPath, original);
  rmSync(saved);
}

function stagedPack() {
  const outArg = process.argv.indexOf('--out');
  if (outArg >= 0 && (process.argv[outArg + 1] === undefined || process.argv[outArg + 1].startsWith('--'))) {
    process.stderr.write('pack: --out needs a directory: npm run pack -- --out DIR\n');
    process.exit(2);
  }
  const outDir = resolve(outArg >= 0 ? process.argv[outArg + 1] : root);
  if (!existsSync(outDir) || !statSync(outDir).isDirectory()) {
    process.stderr.write(`pack: --out ${outDir}: no such directory (create it first)\n`);
    process.exit(2);
  }
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const stage = mkdtempSync(join(tmpdir(), 'aorta-pack-'));
  try {
    // 1. The file selection npm makes from the repository (no scripts run: the caller has built).
    const [first] = JSON.parse(
      execFileSync(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', stage], {
        cwd: root,
        encoding: 'utf8',
      }),
    );
    execFileSync('tar', ['-xzf', join(stage, first.filename), '-C', stage]);
    rmSync(join(stage, first.filename));
    // 2. The published manifest.
    const staged = join(stage, 'package', 'package.json');
    writeFileSync(staged, publishedManifest(readFileSync(staged, 'utf8')));
    // 3. Pack the staged directory; its record (files, sizes) is what this script prints.
    const packed = execFileSync(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', stage], {
      cwd: join(stage, 'package'),
      encoding: 'utf8',
    });
    const [record] = JSON.parse(packed);
    try {
      renameSync(join(stage, record.filename), join(outDir, record.filename));
    } catch (err) {
      if (err.code !== 'EXDEV') throw err;
      copyFileSync(join(stage, record.filename), join(outDir, record.filename)); // another file system
    }
    process.stdout.write(`${JSON.stringify([{ ...record, path: join(outDir, record.filename) }], null, 2)}\n`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--prepack')) prepack();
  else if (process.argv.includes('--postpack')) postpack();
  else stagedPack();
}
