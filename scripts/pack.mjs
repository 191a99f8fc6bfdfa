// The release tarball: `npm run pack` (after `npm run build`) → aorta-probe-<version>.tgz, and its `npm pack --json`
// record on stdout. Usage: node scripts/pack.mjs [--out DIR]
//
// Why not a plain `npm pack`: the repository's package.json keeps `prepare` so that `npm install` in a clone builds,
// but npm lists a dependency's `prepare` among the install scripts it warns about (and, from npm 12, blocks) on every
// consumer's install. So the files `npm pack` selects (package.json `files`) are staged and re-packed with a
// package.json that has no scripts and no devDependencies: nothing in the published package runs at install.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
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
  // 2. The published manifest: the repository's, minus what only a clone needs.
  const pkgPath = join(stage, 'package', 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
  delete pkg.scripts;
  delete pkg.devDependencies;
  writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
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
