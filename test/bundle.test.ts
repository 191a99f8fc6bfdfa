/**
 * `aorta-probe bundle` (issue 37 §3): a real sweep's run directory with a redaction: block, bundled, read back by
 * Python's `tarfile` and GNU tar (members sorted, manifest.json last, uid/gid 0, mtime 0, modes kept); what was
 * scrubbed, what the manifest says; the original's errors, `--review`, the identity redactor.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
import { expectValid } from './support/json-schemas.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-bundle-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const run = join(root, 'runs', 'T-9');

beforeAll(async () => {
  writeFileSync(
    join(root, 'r.yaml'),
    `schema_version: 1
mode: probe
ticket: T-9
trials: 1
mitigation_axis: [none, tf32_off]
diagnostic_axis: [none]
env_passthrough_mode: file
redaction:
  scrub_env_keys: ['AORTA_TEST_BUNDLE_*']
  scrub_paths: true
  scrub_ip_addresses: true
`,
  );
  process.env.AORTA_TEST_BUNDLE_SECRET = 'hunter2';
  try {
    const r = await cliInProcess([
      'sweep',
      '--recipe',
      join(root, 'r.yaml'),
      '--out',
      join(root, 'runs'),
      '--quiet',
      '--',
      'sh',
      '-c',
      'echo "connect 10.1.2.3 from /home/alice/data token=hunter2hunter2"',
    ]);
    expect(r.code).toBe(0);
  } finally {
    delete process.env.AORTA_TEST_BUNDLE_SECRET;
  }
}, 60_000);

const py = (code: string): string => {
  const r = spawnSync('python3', ['-c', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
};

describe('aorta-probe bundle', { timeout: 60_000 }, () => {
  it('writes a scrubbed, deterministic .tar.gz with the manifest last', async () => {
    const out = join(root, 'out1');
    mkdirSync(out);
    // An environment snapshot (the original's environments/<name>/env.json): its env_vars are an env location.
    mkdirSync(join(run, 'environments', 'local'), { recursive: true });
    writeFileSync(
      join(run, 'environments', 'local', 'env.json'),
      JSON.stringify({ env_vars: { AORTA_TEST_BUNDLE_X: 'x', KEEP: '/home/a/b' } }),
    );
    const r = await cliInProcess(['bundle', run, '--output', out, '--json']);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`aorta-probe bundle: using redaction block from ${run}/recipe.resolved.yaml\n`);
    const doc = JSON.parse(r.out) as {
      path: string;
      manifest: Record<string, unknown> & { files: Record<string, unknown>[] };
    };
    expectValid('bundle', doc);
    expect(doc.path).toMatch(new RegExp(`^${out}/T-9-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}\\.tar\\.gz$`));
    expect(readdirSync(out)).toEqual([doc.path.slice(out.length + 1)]); // no .partial left
    const m = doc.manifest;
    expect([m.schema_version, m.ticket, m.source_run_dir, m.redactor_kind, m.redaction_applied]).toEqual([
      1,
      'T-9',
      'T-9',
      'probe.v1',
      true,
    ]);
    const log = m.files.find((f) => f.path === 'none-none/trial_0/output.log')!;
    expect(log).toMatchObject({ paths_rewritten: 1, ips_rewritten: 1, secrets_redacted: 1, env_keys_removed: 0 });
    // The sweep already left the key out of host_env.json; the snapshot still had one.
    expect(m.files.find((f) => f.path === 'host_env.json')!.env_keys_removed).toBe(0);
    expect(m.files.find((f) => f.path === 'environments/local/env.json')).toMatchObject({
      env_keys_removed: 1,
      paths_rewritten: 1,
    });
    // Python's tarfile reads what GNU tar reads.
    const listing = JSON.parse(
      py(
        `import tarfile,json; t=tarfile.open(${JSON.stringify(doc.path)}); print(json.dumps([[x.name,x.uid,x.gid,x.uname,x.mtime,oct(x.mode)] for x in t.getmembers()]))`,
      ),
    ) as [string, number, number, string, number, string][];
    const names = listing.map((x) => x[0]);
    const base = names[0]!.split('/')[0]!;
    expect(names[names.length - 1]).toBe(`${base}/manifest.json`);
    expect(names.slice(0, -1)).toEqual([...names.slice(0, -1)].sort());
    expect(listing.every(([, uid, gid, uname, mtime]) => uid === 0 && gid === 0 && uname === '' && mtime === 0)).toBe(
      true,
    );
    expect(listing.find((x) => x[0].endsWith('tf32_off-none/trial_0/probe.env'))![5]).toBe('0o600');
    const gnu = spawnSync('tar', ['-tzf', doc.path], { encoding: 'utf8' });
    expect(gnu.stdout.trim().split('\n')).toEqual(names);
    const text = py(
      `import tarfile; t=tarfile.open(${JSON.stringify(doc.path)}); print(t.extractfile(${JSON.stringify(`${base}/none-none/trial_0/output.log`)}).read().decode(), end='')`,
    );
    expect(text).toBe('connect <IPV4:0> from <PATH:0> token=<SECRET:0>\n');
    const hostEnv = py(
      `import tarfile; t=tarfile.open(${JSON.stringify(doc.path)}); print(t.extractfile(${JSON.stringify(`${base}/host_env.json`)}).read().decode(), end='')`,
    );
    expect(hostEnv).not.toContain('AORTA_TEST_BUNDLE_SECRET');
  });

  it("the original's errors: no records, no ticket, a link out of the run directory, a bad redaction block", async () => {
    const empty = join(root, 'empty', 'T');
    mkdirSync(empty, { recursive: true });
    const e1 = await cliInProcess(['bundle', empty]);
    expect([e1.code, e1.err]).toEqual([
      1,
      `aorta-probe bundle: run dir ${empty} contains no 'trial_*/result.json' artifacts. Did you forget to include the per-ticket segment, or run before any probe trial finished?\n`,
    ]);
    const noTicket = join(root, 'nt', '_no_ticket_');
    mkdirSync(noTicket, { recursive: true });
    const e2 = await cliInProcess(['bundle', noTicket]);
    expect(e2.code).toBe(1);
    expect(e2.err).toContain('has no ticket (_no_ticket_): give --ticket TICKET');
    symlinkSync('/etc', join(run, 'escape'));
    try {
      const out = join(root, 'out2');
      mkdirSync(out);
      const e3 = await cliInProcess(['bundle', run, '--output', out]);
      expect(e3.code).toBe(1);
      expect(e3.err).toContain(
        'aorta-probe bundle: escape resolves outside the run directory (/etc); refusing to bundle',
      );
      expect(readdirSync(out)).toEqual([]);
    } finally {
      rmSync(join(run, 'escape'));
    }
    writeFileSync(join(root, 'bad.yaml'), 'redaction:\n  scrub_paths: "yes-please"\n');
    const e4 = await cliInProcess(['bundle', run, '--redaction-from', join(root, 'bad.yaml')]);
    expect(e4.code).toBe(1);
    expect(e4.err).toContain('recipe.redaction.scrub_paths: must be a bool, got str');
    expect((await cliInProcess(['bundle', join(root, 'nope')])).code).toBe(2);
  });

  it('--review: no writes nothing (exit 1), yes writes', async () => {
    const ask = async (answer: string, out: string): Promise<number> => {
      const stdin = new PassThrough();
      stdin.end(answer);
      const sink = new PassThrough();
      sink.resume();
      return runCli(['bundle', run, '--review', '--output', out], { stdin, stdout: sink, stderr: sink });
    };
    const out = join(root, 'out3');
    mkdirSync(out);
    expect(await ask('n\n', out)).toBe(1);
    expect(readdirSync(out)).toEqual([]);
    expect(await ask('y\n', out)).toBe(0);
    expect(readdirSync(out)).toHaveLength(1);
  });

  it('without a redaction block: the identity redactor, bytes as they are', async () => {
    const out = join(root, 'out4.tar.gz');
    writeFileSync(join(root, 'plain.yaml'), 'schema_version: 1\n');
    const r = await cliInProcess([
      'bundle',
      run,
      '--redaction-from',
      join(root, 'plain.yaml'),
      '--output',
      out,
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      `aorta-probe bundle: recipe ${join(root, 'plain.yaml')} has no redaction: block; using the identity redactor\n`,
    );
    const m = (
      JSON.parse(r.out) as {
        manifest: {
          redactor_kind: string;
          redaction_applied: boolean;
          files: { bytes_in: number; bytes_out: number }[];
        };
      }
    ).manifest;
    expect([m.redactor_kind, m.redaction_applied]).toEqual(['identity', false]);
    expect(m.files.every((f) => f.bytes_in === f.bytes_out)).toBe(true);
    expect(existsSync(out)).toBe(true);
  });
});
