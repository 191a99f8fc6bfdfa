/**
 * Issue 37's adversarial run directories: 10 MiB of `/`, a 100 MiB single line, 100,000 files, links in, out, in
 * a cycle and nowhere, a FIFO, a file that grows while it is bundled — each in bounded time and memory, with a
 * clear error where one is due, and nothing written on failure.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BundleError, createBundle } from '../src/bundle/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-bundle-adv-'));
// 100,000 files and a 100 MiB log take a while to delete.
afterAll(() => rmSync(root, { recursive: true, force: true }), 120_000);

const RECIPE = `${JSON.stringify({
  schema_version: 1,
  mode: 'probe',
  redaction: { scrub_env_keys: ['SECRET_*'], scrub_paths: true, scrub_ip_addresses: true },
})}\n`;

/** A minimal run directory: one trial record and the resolved recipe with its redaction block. */
function runDir(name: string): string {
  const dir = join(root, name, 'T-1');
  mkdirSync(join(dir, 'none-none', 'trial_0'), { recursive: true });
  writeFileSync(join(dir, 'none-none', 'trial_0', 'result.json'), '{"verdict": "pass"}\n');
  writeFileSync(join(dir, 'recipe.resolved.yaml'), RECIPE);
  return dir;
}

function member(archive: string, rel: string): Buffer {
  const r = spawnSync('tar', ['-xzOf', archive, `T-1-1970-01-01T00-00-00-000/${rel}`], { maxBuffer: 1 << 30 });
  expect(r.status, r.stderr?.toString()).toBe(0);
  return r.stdout;
}

const at = (name: string) => {
  const out = join(root, name, 'out');
  mkdirSync(out, { recursive: true });
  return out;
};
const opts = (dir: string, out: string, log?: (l: string) => void) => ({
  runDir: dir,
  output: out,
  now: new Date(0),
  log,
});

describe('bundle: adversarial run directories', { timeout: 120_000 }, () => {
  it("10 MiB of '/': linear, copied as it is", async () => {
    const dir = runDir('slashes');
    const text = '/'.repeat(10 * 1024 * 1024);
    writeFileSync(join(dir, 'none-none', 'trial_0', 'output.log'), text);
    const t0 = performance.now();
    const b = await createBundle(opts(dir, at('slashes')));
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect(member(b.path, 'none-none/trial_0/output.log').toString('latin1')).toBe(text);
  });

  it('a 100 MiB single line: scrubbed in windows, in bounded memory (a child process measures it)', () => {
    const dir = runDir('long-line');
    const fd = openSync(join(dir, 'none-none', 'trial_0', 'output.log'), 'w');
    // 100 MiB, no line end, a path every 4 KiB.
    const block = `${'word '.repeat(817)}/home/u/f `;
    const blocks = Math.ceil((100 * 1024 * 1024) / block.length);
    for (let n = 0; n < blocks; n++) writeSync(fd, block);
    closeSync(fd);
    const size = statSync(join(dir, 'none-none', 'trial_0', 'output.log')).size;
    const script = `import { createBundle } from ${JSON.stringify(new URL('../dist/src/bundle/index.js', import.meta.url).href)};
const t0 = performance.now();
const b = await createBundle({ runDir: ${JSON.stringify(dir)}, output: ${JSON.stringify(at('long-line'))}, now: new Date(0) });
const f = b.manifest.files.find((x) => x.path === 'none-none/trial_0/output.log');
console.log(JSON.stringify({ ms: performance.now() - t0, rssMiB: process.resourceUsage().maxRSS / 1024, paths: f.paths_rewritten, bytesOut: f.bytes_out, path: b.path }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout) as { ms: number; rssMiB: number; paths: number; bytesOut: number; path: string };
    expect(m.paths).toBe(blocks);
    // Every `/home/u/f` (9 bytes) became `<PATH:0>` (8 bytes).
    expect(m.bytesOut).toBe(size - blocks);
    // The input alone is 100 MiB; a bundle that held the file, its text and its output at once would need 400+.
    expect(m.rssMiB).toBeLessThan(360);
    expect(m.ms).toBeLessThan(60_000);
  });

  it('100,000 files: listed, sorted and archived', async () => {
    const dir = runDir('many');
    const many = join(dir, 'none-none', 'trial_0', 'shards');
    mkdirSync(many);
    for (let i = 0; i < 100_000; i++) writeFileSync(join(many, `s${String(i).padStart(6, '0')}.txt`), `shard ${i}\n`);
    const t0 = performance.now();
    const b = await createBundle(opts(dir, at('many')));
    expect(performance.now() - t0).toBeLessThan(90_000);
    expect(b.manifest.files.length).toBe(100_002);
    const list = spawnSync('tar', ['-tzf', b.path], { encoding: 'utf8', maxBuffer: 1 << 28 })
      .stdout.trim()
      .split('\n');
    expect(list.length).toBe(100_003);
    expect(list[list.length - 1]).toBe('T-1-1970-01-01T00-00-00-000/manifest.json');
    expect(member(b.path, 'none-none/trial_0/shards/s099999.txt').toString()).toBe('shard 99999\n');
  });

  it('links: in is followed, out and nowhere are refused with nothing written, a cycle is walked once', async () => {
    const dir = runDir('links');
    const trial = join(dir, 'none-none', 'trial_0');
    writeFileSync(join(trial, 'output.log'), 'at /home/alice/x\n');
    symlinkSync('output.log', join(trial, 'alias.log'));
    symlinkSync('..', join(trial, 'up')); // a cycle: trial_0/up → none-none
    const lines: string[] = [];
    const out = at('links');
    const b = await createBundle(opts(dir, out, (l) => lines.push(l)));
    expect(member(b.path, 'none-none/trial_0/alias.log').toString()).toBe('at <PATH:0>\n');
    // `up` is none-none itself, which holds it: walked once, said once.
    expect(b.manifest.files.map((f) => f.path)).toEqual([
      'none-none/trial_0/alias.log',
      'none-none/trial_0/output.log',
      'none-none/trial_0/result.json',
      'recipe.resolved.yaml',
    ]);
    expect(lines).toContain(
      'aorta-probe bundle: skipping none-none/trial_0/up: a link back to a directory that holds it',
    );
    rmSync(b.path);
    for (const [target, message] of [
      [
        '/etc/hostname',
        'none-none/trial_0/out.log resolves outside the run directory (/etc/hostname); refusing to bundle',
      ],
      [join(dir, 'missing'), 'none-none/trial_0/out.log: a link that resolves nowhere; refusing to bundle'],
    ] as const) {
      symlinkSync(target, join(trial, 'out.log'));
      await expect(createBundle(opts(dir, out))).rejects.toThrow(new BundleError(message, 'unsafe-link'));
      expect(readdirSync(out)).toEqual([]);
      rmSync(join(trial, 'out.log'));
    }
  });

  it('a FIFO is left out with a log line, never opened (the bundle does not wait for a writer)', async () => {
    const dir = runDir('fifo');
    expect(spawnSync('mkfifo', [join(dir, 'none-none', 'trial_0', 'pipe.log')]).status).toBe(0);
    const lines: string[] = [];
    const b = await createBundle(opts(dir, at('fifo'), (l) => lines.push(l)));
    expect(lines).toContain('aorta-probe bundle: skipping none-none/trial_0/pipe.log: not a regular file');
    expect(b.manifest.files.map((f) => f.path)).not.toContain('none-none/trial_0/pipe.log');
  });

  it('a file that grows while it is bundled is taken as it was listed: its member is a prefix, sizes agree', async () => {
    const dir = runDir('growing');
    const log = join(dir, 'none-none', 'trial_0', 'output.log');
    writeFileSync(log, 'start /home/a/b\n'.repeat(200_000));
    const writer = spawn('sh', ['-c', `while :; do echo "more 10.0.0.1 /home/c/d" >> '${log}'; done`], {
      stdio: 'ignore',
    });
    try {
      await new Promise((r) => setTimeout(r, 100));
      const b = await createBundle(opts(dir, at('growing')));
      const row = b.manifest.files.find((f) => f.path === 'none-none/trial_0/output.log')!;
      const got = member(b.path, 'none-none/trial_0/output.log');
      expect(got.length).toBe(row.bytes_out);
      writer.kill('SIGKILL');
      // What was bundled is the scrubbed prefix of what is there now, cut at bytes_in.
      const now = readFileSync(log).subarray(0, row.bytes_in).toString();
      expect(got.toString()).toBe(
        now.replaceAll('/home/a/b', '<PATH:0>').replaceAll('/home/c/d', '<PATH:1>').replaceAll('10.0.0.1', '<IPV4:0>'),
      );
      expect(row.bytes_in).toBeGreaterThanOrEqual(200_000 * 16);
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('an output that cannot be written: a clear error, no partial file left', async () => {
    const dir = runDir('io');
    writeFileSync(join(dir, 'none-none', 'trial_0', 'output.log'), 'x\n');
    const target = join(root, 'io', 'no-such-dir', 'b.tar.gz');
    await expect(createBundle({ runDir: dir, output: target, now: new Date(0) })).rejects.toThrow(
      new BundleError(`cannot write ${target}: ENOENT`, 'io'),
    );
    expect(existsSync(join(root, 'io', 'no-such-dir'))).toBe(false);
    // Stopped after the members were written to the .partial file (a "no" at review): it is removed too.
    const out = at('io');
    await expect(createBundle({ ...opts(dir, out), review: async () => false })).rejects.toThrow(
      new BundleError('aorta-probe bundle: aborted at review; nothing was written', 'aborted'),
    );
    expect(readdirSync(out)).toEqual([]);
  });
});
