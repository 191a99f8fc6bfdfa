// Clone-only: package.json's `prepare` (`node scripts/link-self-bin.mjs --build`), which `npm install` / `npm ci` in
// a clone run and which the published package does not carry (scripts/pack.mjs strips it at pack time).
//
// --build: first `npm run build`, except where `npx aorta-probe` (npm exec) in the clone runs this: see below.
// Then, always: links this package's own `bin` entries into node_modules/.bin, so that `node_modules/.bin/aorta-probe`
// and `npm run` scripts find the built CLI in a clone, as in a project that installed the package.
//
// Why the exception: in a directory whose own package.json has a bin of the asked name (this clone, or any directory
// inside it), npm exec (npm 10 and 11, libnpmexec) does not look in node_modules/.bin at all. It links the project
// into its npx cache (~/.npm/_npx/<hash of the path>) as a directory dependency, and arborist runs a linked
// directory's `prepare` there, with npm_command=exec: the whole build again, 25–60 s, on the first npx call from each
// clone path (later calls reuse that cache entry, ~1 s). The link points at this very clone, which `npm install`
// has built already, so that run only needs the bin to exist; where it is missing (an `npm install --ignore-scripts`
// clone), it builds as before.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const bins = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});

if (process.argv.includes('--build')) {
  const built = Object.values(bins).every((target) => existsSync(join(root, target)));
  if (process.env.npm_command === 'exec' && built) {
    process.stderr.write(
      `${pkg.name}: npm exec links this clone as it is built; no rebuild (scripts/link-self-bin.mjs)\n`,
    );
  } else {
    // The npm that runs this script (npm_execpath), else the one on PATH.
    const npmCli = process.env.npm_execpath;
    const r =
      npmCli !== undefined && /\.c?js$/.test(npmCli)
        ? spawnSync(process.execPath, [npmCli, 'run', 'build'], { cwd: root, stdio: 'inherit' })
        : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}

const binDir = join(root, 'node_modules', '.bin');
mkdirSync(binDir, { recursive: true });
for (const [name, target] of Object.entries(bins)) {
  const link = join(binDir, name);
  rmSync(link, { force: true });
  symlinkSync(relative(binDir, join(root, target)), link);
}
