/**
 * A consumer project for the package-level tests: the release tarball (scripts/pack.mjs, from the built dist/)
 * installed with npm, offline, into a fresh directory, next to tarballs of its two dependencies packed from this
 * checkout's node_modules (so no registry is needed and the versions are the lockfile's).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './browser.js';

export interface PackedFile {
  path: string;
  size: number;
}

/** The `npm pack --json` record scripts/pack.mjs prints. */
export interface PackRecord {
  filename: string;
  path: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: PackedFile[];
}

export interface Consumer {
  /** The project directory: `node_modules/aorta-probe` is the installed tarball. */
  dir: string;
  pack: PackRecord;
  /** npm install's stdout and stderr. */
  installLog: string;
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Fails clearly when dist/ is missing or older than src/ (`npm test` builds first; `npm run build` does). */
export function requireBuiltDist(): void {
  const index = join(REPO_ROOT, 'dist', 'src', 'index.js');
  if (!existsSync(index))
    throw new Error('dist/ is not built: run `npm run build` (npm test does) before the consumer tests');
  const src = statSync(join(REPO_ROOT, 'src', 'index.ts')).mtimeMs;
  if (statSync(index).mtimeMs < src) throw new Error('dist/ is older than src/index.ts: run `npm run build`');
}

export function packAndInstall(packageJson: Record<string, unknown>): Consumer {
  requireBuiltDist();
  const work = mkdtempSync(join(tmpdir(), 'aorta-consumer-'));
  const out = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'pack.mjs'), '--out', work], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  const [pack] = JSON.parse(out) as PackRecord[];
  if (pack === undefined) throw new Error(`scripts/pack.mjs printed no record: ${out}`);
  const deps = JSON.parse(
    execFileSync(
      NPM,
      [
        'pack',
        '--ignore-scripts',
        '--json',
        '--pack-destination',
        work,
        join(REPO_ROOT, 'node_modules', 're2-wasm'),
        join(REPO_ROOT, 'node_modules', 'yaml'),
      ],
      {
        encoding: 'utf8',
      },
    ),
  ) as PackRecord[];
  const dir = join(work, 'app');
  mkdirSync(dir);
  const dependencies: Record<string, string> = { 'aorta-probe': `file:${pack.path}` };
  for (const d of deps) dependencies[d.filename.replace(/-\d+\.\d+\.\d+\.tgz$/, '')] = `file:${join(work, d.filename)}`;
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, ...packageJson, dependencies }, null, 2)}\n`,
  );
  const r = spawnSync(NPM, ['install', '--offline', '--no-audit', '--no-fund', '--loglevel', 'warn'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 180_000,
  });
  const installLog = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`npm install of the tarball failed:\n${installLog}`);
  return { dir, pack, installLog };
}

/** Runs `node args` in the consumer; returns stdout, failing with stderr on a non-zero exit. */
export function runNode(dir: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env, timeout: 120_000 });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** The fenced blocks of one language in a Markdown file, in order. */
export function fencedBlocks(markdownPath: string, lang: string): string[] {
  const text = readFileSync(markdownPath, 'utf8');
  const out: string[] = [];
  const re = new RegExp(`^( *)\`\`\`${lang}\\n([\\s\\S]*?)^\\1\`\`\`$`, 'gm');
  for (const m of text.matchAll(re)) {
    const indent = m[1] ?? '';
    out.push(
      (m[2] ?? '')
        .split('\n')
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
        .join('\n'),
    );
  }
  return out;
}
