/**
 * Issue 37's property: for random run directories with planted secrets of every kind in every text file type and
 * JSON location, no planted value survives in the bundle (the unpacked bytes are searched), every count in the
 * manifest equals what was planted, and bundling the unpacked bundle again changes nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBundle, type Manifest } from '../src/bundle/index.js';
import { rng } from './support/rng.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-bundle-prop-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Counts {
  paths: number;
  ips: number;
  secrets: number;
  env: number;
}

/** One run directory's planting: every value that must not survive, and per file what was planted. */
class Planter {
  readonly values: string[] = [];
  readonly perFile = new Map<string, Counts>();
  private n = 0;
  constructor(private readonly r: () => number) {}

  private rand(len: number, alphabet = 'abcdefghijkmnpqrstuvwxyz23456789'): string {
    let s = '';
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(this.r() * alphabet.length)];
    return s;
  }
  /** A value unique to this planting (never a prefix of another). */
  private unique(len: number): string {
    return `${this.rand(len - 3)}${(this.n++).toString(36).padStart(3, 'z')}`;
  }
  private count(file: string): Counts {
    let c = this.perFile.get(file);
    if (c === undefined) this.perFile.set(file, (c = { paths: 0, ips: 0, secrets: 0, env: 0 }));
    return c;
  }

  /** Filler words: no digit, dot, slash, colon or keyword a rule could take. */
  filler(words: number): string {
    const out: string[] = [];
    for (let i = 0; i < words; i++) out.push(this.rand(3 + Math.floor(this.r() * 5), 'bcdfghjklmnqvwxz'));
    return out.join(' ');
  }

  /** A secret of a random kind, as it would appear in a log line; single-line ones only when `oneLine`. */
  secret(file: string, oneLine = false): string {
    const kinds = oneLine ? 11 : 12;
    const k = Math.floor(this.r() * kinds);
    const plant = (v: string): string => {
      this.values.push(v);
      this.count(file).secrets++;
      return v;
    };
    switch (k) {
      case 0:
        return `Authorization: Bearer ${plant(this.unique(28))}`;
      case 1: {
        const user = this.unique(8);
        const pass = this.unique(12);
        this.values.push(user, pass);
        this.count(file).secrets++;
        return `fetch https://${user}:${pass}@mirror.example.com now`;
      }
      case 2:
        return `key ${plant(`AKIA${this.unique(16).toUpperCase()}`)} used`;
      case 3:
        return `aws_secret_access_key = ${plant(this.unique(40))}`;
      case 4:
        return `gh ${plant(`ghp_${this.unique(36)}`)} ok`;
      case 5:
        return `gl ${plant(`glpat-${this.unique(24)}`)}`;
      case 6:
        return `sl ${plant(`xoxb-${this.unique(20)}`)}`;
      case 7:
        return `hub ${plant(`hf_${this.unique(34)}`)}`;
      case 8:
        return `oa ${plant(`sk-proj-${this.unique(30)}`)}`;
      case 9:
        return `jwt ${plant(`eyJ${this.unique(12)}.eyJ${this.unique(12)}.${this.unique(20)}`)}`;
      case 10:
        return `db password=${plant(this.unique(14))}`;
      default:
        return `${plant(`-----BEGIN RSA PRIVATE KEY-----\n${this.unique(40)}\n${this.unique(40)}\n-----END RSA PRIVATE KEY-----`)}`;
    }
  }

  path(file: string): string {
    const p = `/home/${this.unique(8)}/data/${this.unique(10)}.bin`;
    this.values.push(p);
    this.count(file).paths++;
    return p;
  }

  ip(file: string): string {
    const v4 = this.r() < 0.5;
    const ip = v4
      ? `10.${1 + Math.floor(this.r() * 254)}.${1 + Math.floor(this.r() * 254)}.${1 + Math.floor(this.r() * 254)}`
      : `2001:db8:${Math.floor(this.r() * 0xffff).toString(16)}::${Math.floor(this.r() * 0xffff).toString(16)}`;
    this.count(file).ips++;
    // An address may repeat across plantings; it must still be gone.
    this.values.push(ip);
    return ip;
  }

  /** Any planted thing, for free text. */
  any(file: string, oneLine = false): string {
    const x = this.r();
    return x < 0.5 ? this.secret(file, oneLine) : x < 0.75 ? this.path(file) : this.ip(file);
  }

  envKey(file: string): string {
    this.count(file).env++;
    return `PLANT_${this.rand(6, 'ABCDEFGHJKLMNPQRSTUVWXYZ')}`;
  }
  envValue(): string {
    const v = this.unique(16);
    this.values.push(v);
    return v;
  }
}

function textFile(p: Planter, file: string, lines: number, crlf: boolean): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(`${p.filler(4)} ${p.any(file)} ${p.filler(2)}`);
  return out.join(crlf ? '\r\n' : '\n') + '\n';
}

/** A JSON value with planted strings as values, array items and keys, nested. */
function jsonValue(p: Planter, file: string, depth: number, r: () => number): unknown {
  if (depth === 0 || r() < 0.3) return `${p.filler(1)} ${p.any(file)}`;
  if (r() < 0.5) return [jsonValue(p, file, depth - 1, r), 7, null, jsonValue(p, file, depth - 1, r)];
  return { [p.filler(1)]: jsonValue(p, file, depth - 1, r), [p.secret(file, true)]: true, n: 1.5 };
}

function envMap(p: Planter, file: string, r: () => number): Record<string, unknown> {
  const env: Record<string, unknown> = { KEEP_PATH: p.path(file) };
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) env[p.envKey(file)] = p.envValue();
  return env;
}

function plantRun(dir: string, seed: number): Planter {
  const r = rng(seed);
  const p = new Planter(r);
  const write = (rel: string, text: string | Buffer): void => {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  const trial = 'none-none/trial_0';
  write(`${trial}/output.log`, textFile(p, `${trial}/output.log`, 20, r() < 0.5));
  write(`${trial}/stderr.log`, textFile(p, `${trial}/stderr.log`, 5, false));
  write(
    `${trial}/result.json`,
    JSON.stringify({
      verdict: 'fail',
      notes: jsonValue(p, `${trial}/result.json`, 3, r),
      cell_env: envMap(p, `${trial}/result.json`, r),
      env: envMap(p, `${trial}/result.json`, r),
    }),
  );
  write(
    'host_env.json',
    JSON.stringify({ env_vars: envMap(p, 'host_env.json', r), host: jsonValue(p, 'host_env.json', 2, r) }),
  );
  write('matrix.md', textFile(p, 'matrix.md', 4, false));
  write('notes.txt', textFile(p, 'notes.txt', 6, true));
  write('extra.yaml', textFile(p, 'extra.yaml', 3, false));
  write('collector.json', JSON.stringify(jsonValue(p, 'collector.json', 4, r)));
  write('sidecars/s.json', JSON.stringify({ environments: { a: { env: envMap(p, 'sidecars/s.json', r) } } }));
  const envLines = ['# planted'];
  for (let i = 0; i < 4; i++) envLines.push(`${p.envKey(`${trial}/probe.env`)}=${p.envValue()}`);
  envLines.push(`KEEP_A=${p.any(`${trial}/probe.env`, true)}`, `KEEP_B=${p.path(`${trial}/probe.env`)}`);
  write(`${trial}/probe.env`, `${envLines.join('\n')}\n`);
  // JSON is YAML: the resolved recipe, with its block and an env location.
  write(
    'recipe.resolved.yaml',
    JSON.stringify({
      schema_version: 1,
      mode: 'probe',
      redaction: { scrub_env_keys: ['PLANT_*'], scrub_paths: true, scrub_ip_addresses: true },
      extra_env: envMap(p, 'recipe.resolved.yaml', r),
      description: `${p.filler(2)} ${p.any('recipe.resolved.yaml', true)}`,
    }),
  );
  // Not a text artifact: copied byte for byte, as the original does.
  write('core.bin', Buffer.from([0, 1, 2, 255, 254]));
  return p;
}

function unpack(archive: string, into: string): string {
  mkdirSync(into, { recursive: true });
  const t = spawnSync('tar', ['-xzf', archive, '-C', into], { encoding: 'utf8' });
  expect(t.status, t.stderr).toBe(0);
  const [top] = readdirSync(into);
  return join(into, top!);
}

function filesUnder(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel)).flatMap((name) => {
    const r = rel === '' ? name : `${rel}/${name}`;
    return statSync(join(dir, r)).isDirectory() ? filesUnder(dir, r) : [r];
  });
}

describe('bundle property: planted secrets never survive, counts are exact, a second pass changes nothing', () => {
  it.each([1, 2, 3, 4, 5, 6])('seed %i', async (seed) => {
    const run = join(root, `s${seed}`, `TICKET-${seed}`);
    const p = plantRun(run, seed);
    const first = await createBundle({ runDir: run, output: join(root, `s${seed}`), now: new Date(0) });
    const out = unpack(first.path, join(root, `s${seed}`, 'u1'));
    const bytes = filesUnder(out)
      .map((f) => readFileSync(join(out, f), 'latin1'))
      .join('\n');
    expect(p.values.filter((v) => bytes.includes(v))).toEqual([]);
    const m: Manifest = first.manifest;
    const got = new Map(
      m.files.map((f) => [
        f.path,
        { paths: f.paths_rewritten, ips: f.ips_rewritten, secrets: f.secrets_redacted, env: f.env_keys_removed },
      ]),
    );
    for (const [file, want] of p.perFile) expect({ file, ...got.get(file) }).toEqual({ file, ...want });
    expect(got.get('core.bin')).toEqual({ paths: 0, ips: 0, secrets: 0, env: 0 });

    // The unpacked bundle is a run directory: bundled again, nothing changes and nothing is counted.
    const second = await createBundle({ runDir: out, output: join(root, `s${seed}`), now: new Date(1000) });
    const again = unpack(second.path, join(root, `s${seed}`, 'u2'));
    // (The manifest is the first bundle's, a file of the second run directory like any other.)
    for (const f of filesUnder(out).filter((f) => f !== 'manifest.json'))
      expect([f, readFileSync(join(again, f), 'latin1')]).toEqual([f, readFileSync(join(out, f), 'latin1')]);
    expect(second.manifest.redaction_applied).toBe(false);
  });
});
