/**
 * `createBundle`: a sweep's run directory as a `.tar.gz` to hand to a vendor, every text artifact scrubbed per the
 * recipe's `redaction:` block (src/redact/), with a manifest of what was changed — the original's `aorta bundle`
 * (upstream-probe-runs.md §2): its redaction resolution, its errors, its archive layout and manifest, plus ours
 * (`secrets_redacted`, credentials scrubbed by default).
 *
 * Trust: the run directory was written by trials, so nothing in it is trusted. A file or link that resolves outside
 * the run directory is refused (nothing is written); a FIFO or device is never opened; the archive goes to
 * `<output>.partial` and is renamed into place only when complete.
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { parse as parseYamlDoc, stringify } from 'yaml';
import { loadRecipe, type RedactionKeys } from '../recipe/index.js';
import { parseYaml, reprNode } from '../recipe/tree.js';
import { documentKind, RedactionError, scrubDocument, type DocumentKind } from '../redact/json.js';
import { TextScrubber } from '../redact/text.js';
import { lineWindows } from '../redact/windows.js';
import { fnmatchcase } from '../text/fnmatch.js';
import { packageInfo } from '../trial/package-info.js';
import { tarGz, type TarEntry } from './tar.js';

export const MANIFEST = 'manifest.json';
export const MANIFEST_SCHEMA_VERSION = 1;
const NO_TICKET = '_no_ticket_';
const SKIPPED_TOP = new Set(['.aorta-probe.lock', MANIFEST, '.aorta-probe-tmp']);
const TEXT_NAMES = new Set([
  'probe.env',
  'stdout.log',
  'stderr.log',
  'output.log',
  'matrix.md',
  'recipe.resolved.yaml',
]);
const TEXT_SUFFIXES = ['.log', '.md', '.yaml', '.yml', '.json', '.txt', '.env'];
/** Larger files are copied by the windows (text) or byte for byte; a record over this is not parsed as JSON. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** Why a bundle was not written: the CLI prints the message, exit 1 (2 for a run directory that is not one). */
export class BundleError extends Error {
  override name = 'BundleError';
  constructor(
    message: string,
    readonly kind: 'not-found' | 'no-ticket' | 'empty' | 'aborted' | 'io' | 'unsafe-link' | 'redaction' | 'recipe',
  ) {
    super(message);
  }
}

export interface ManifestFile {
  readonly path: string;
  readonly env_keys_removed: number;
  readonly paths_rewritten: number;
  readonly ips_rewritten: number;
  readonly bytes_in: number;
  readonly bytes_out: number;
  readonly secrets_redacted: number;
}

export interface Manifest {
  readonly schema_version: 1;
  readonly ticket: string;
  readonly created_at: string;
  readonly aorta_version: string;
  readonly source_run_dir: string;
  readonly redaction_applied: boolean;
  readonly redactor_kind: 'identity' | 'probe.v1';
  readonly files: readonly ManifestFile[];
}

export interface BundleOptions {
  readonly runDir: string;
  readonly ticket?: string;
  /** A file or an existing directory (the default name inside it); default: the current directory. */
  readonly output?: string;
  /** A recipe whose `redaction:` block is used (authoritative, as the original's `--redaction-from`). */
  readonly redactionFrom?: string;
  /** Called with the manifest before anything is written; false: nothing is written (`BundleError` aborted). */
  readonly review?: (manifest: Manifest) => Promise<boolean>;
  /** The original's log lines (which redaction block was used). */
  readonly log?: (line: string) => void;
  readonly now?: Date;
}

export interface BundleResult {
  readonly path: string;
  readonly manifest: Manifest;
}

/** The original's `safe_slug`: `[^A-Za-z0-9_.-]` → `_`; empty, `.` and `..` → `_`. */
export function safeSlug(s: string): string {
  const out = s.replace(/[^A-Za-z0-9_.-]/g, '_');
  return out === '' || out === '.' || out === '..' ? '_' : out;
}

/** The redaction block of a YAML/JSON mapping file, parsed by the recipe loader's rules for that block only. */
function redactionOfFile(path: string): { found: boolean; block: RedactionKeys | null } {
  let text: string;
  try {
    text = readFileText(path);
  } catch (err) {
    throw new BundleError(
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'recipe',
    );
  }
  const parsed = parseYaml(text, path.toLowerCase().endsWith('.json'));
  const root = parsed.root;
  if (root === null || root.kind !== 'dict')
    throw new BundleError(
      `recipe ${path}: expected a top-level mapping, got ${root === null ? 'NoneType' : root.typeName}; refusing to fall back to no redaction`,
      'recipe',
    );
  const entry = root.entries!.find((e) => e.key.kind === 'str' && e.key.value === 'redaction');
  if (entry === undefined) return { found: false, block: null };
  // Only the block, through the loader's own rules (a minimal probe recipe around it): an axis name only a sidecar
  // defines does not stop a bundle (the original's test_fallback_redaction_resolves_despite_unresolvable_axis).
  try {
    const wrapper = `schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\nredaction: ${JSON.stringify(toPlain(entry.value))}\n`;
    return { found: true, block: loadRecipe(wrapper, path).redaction };
  } catch (err) {
    throw new BundleError(`${path}: ${(err as { reason?: string }).reason ?? (err as Error).message}`, 'recipe');
  }
}

/** A YAML node as plain JSON data for re-checking (a value JSON cannot say keeps its repr as a string). */
function toPlain(n: ReturnType<typeof parseYaml>['root'] & object): unknown {
  switch (n.kind) {
    case 'NoneType':
    case 'bool':
    case 'str':
      return n.value;
    case 'int':
      return Number(n.value as bigint);
    case 'float':
      return n.value;
    case 'list':
      return n.items!.map((i) => toPlain(i));
    case 'dict': {
      const o: Record<string, unknown> = {};
      for (const e of n.entries!) {
        // A non-string key cannot survive JSON: keep it distinguishable so the block's unknown-key check fires.
        const k = e.key.kind === 'str' ? (e.key.value as string) : `<key ${reprNode(e.key)}>`;
        Object.defineProperty(o, k, { value: toPlain(e.value), enumerable: true });
      }
      return o;
    }
    default:
      return reprNode(n);
  }
}

function readFileText(path: string): string {
  return Buffer.from(readRegular(path)).toString('utf8');
}

function readRegular(path: string): Buffer {
  const st = statSync(path);
  if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, buf.length - off, null);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** The redaction the bundle applies, found as the original finds it (§2.1). */
function resolveRedaction(runDir: string, from: string | undefined, log: (l: string) => void): RedactionKeys | null {
  if (from !== undefined) {
    const r = redactionOfFile(from);
    if (!r.found) log(`aorta-probe bundle: recipe ${from} has no redaction: block; using the identity redactor`);
    return r.block;
  }
  for (const name of ['recipe.resolved.yaml', 'matrix.json']) {
    const p = join(runDir, name);
    if (!existsSync(p)) continue;
    const r = redactionOfFile(p);
    if (r.found) {
      log(`aorta-probe bundle: using redaction block from ${p}`);
      return r.block;
    }
  }
  log(`aorta-probe bundle: no redaction: block found under ${runDir}; using the identity redactor`);
  return null;
}

/** Every regular file under `root`, relative, sorted; a link resolving outside is an error, one inside is followed. */
function walk(root: string, realRoot: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir)) {
      const r = rel === '' ? name : `${rel}/${name}`;
      if (rel === '' && SKIPPED_TOP.has(name)) continue;
      const p = join(dir, name);
      let real: string;
      try {
        real = realpathSync(p);
      } catch {
        throw new BundleError(`${r}: a link that resolves nowhere; refusing to bundle`, 'unsafe-link');
      }
      if (real !== realRoot && !real.startsWith(realRoot + sep))
        throw new BundleError(`${r} resolves outside the run directory (${real}); refusing to bundle`, 'unsafe-link');
      const st = statSync(p);
      if (st.isDirectory()) {
        if (lstatSync(p).isSymbolicLink()) visit(real, r);
        else visit(p, r);
      } else if (st.isFile()) out.push(r);
    }
  };
  visit(root, '');
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function isText(rel: string): boolean {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  return TEXT_NAMES.has(base) || TEXT_SUFFIXES.some((s) => base.toLowerCase().endsWith(s));
}

interface Scrubbed {
  readonly data: Uint8Array;
  readonly envKeysRemoved: number;
}

/** One file through the redactor (§1.5's dispatch order). */
function scrubFile(
  rel: string,
  bytes: Buffer,
  redaction: RedactionKeys | null,
  scrubber: TextScrubber | null,
): Scrubbed {
  if (redaction === null || scrubber === null || !isText(rel)) return { data: bytes, envKeysRemoved: 0 };
  const globs = redaction.scrubEnvKeys;
  const text = bytes.toString('utf8'); // invalid UTF-8 becomes U+FFFD: scrubbing never switches off
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  if (base === 'probe.env') {
    let removed = 0;
    const kept = new Map<string, string>();
    for (const line of text.split('\n')) {
      const l = line.replace(/\r$/, '');
      if (l === '' || l.startsWith('#') || !l.includes('=')) continue;
      const k = l.slice(0, l.indexOf('='));
      if (globs.some((g) => fnmatchcase(k, g))) {
        removed++;
        continue;
      }
      kept.set(scrubber.scrub(k), scrubber.scrub(l.slice(l.indexOf('=') + 1)));
    }
    const lines = [...kept].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`);
    return { data: Buffer.from(lines.length === 0 ? '' : `${lines.join('\n')}\n`), envKeysRemoved: removed };
  }
  const kind: DocumentKind | null = documentKind(rel);
  if (kind === 'recipe') {
    let doc: unknown;
    try {
      doc = parseYamlDoc(text, { version: '1.1', maxAliasCount: 10_000 });
    } catch (err) {
      throw new BundleError(
        `${rel}: not YAML (${(err as Error).message}); refusing to copy it unscrubbed`,
        'redaction',
      );
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      throw new BundleError(`${rel}: recipe.resolved.yaml must contain a top-level mapping`, 'redaction');
    const r = scrubDocument(JSON.parse(JSON.stringify(doc)) as never, 'recipe', scrubber, globs);
    return { data: Buffer.from(stringify(r.doc, { lineWidth: 0 })), envKeysRemoved: r.envKeysRemoved };
  }
  if (kind !== null && bytes.length <= MAX_JSON_BYTES) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      // A schema-owned document that does not parse fails closed; other JSON is scrubbed as text.
      if (kind !== 'json')
        throw new BundleError(`${rel}: ${kind} JSON does not parse (${(err as Error).message})`, 'redaction');
      return {
        data: Buffer.from(
          lineWindows(text)
            .map((w) => scrubber.scrub(w))
            .join(''),
        ),
        envKeysRemoved: 0,
      };
    }
    if (kind !== 'json' && (doc === null || typeof doc !== 'object' || Array.isArray(doc)))
      throw new BundleError(`${rel}: ${kind} JSON must contain a top-level object`, 'redaction');
    const r = scrubDocument(doc as never, kind, scrubber, globs);
    return { data: Buffer.from(`${JSON.stringify(r.doc, null, 2)}\n`), envKeysRemoved: r.envKeysRemoved };
  }
  return {
    data: Buffer.from(
      lineWindows(text)
        .map((w) => scrubber.scrub(w))
        .join(''),
    ),
    envKeysRemoved: 0,
  };
}

function stamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}T${p(d.getUTCHours())}-${p(d.getUTCMinutes())}-${p(d.getUTCSeconds())}-${p(d.getUTCMilliseconds(), 3)}`;
}

export async function createBundle(o: BundleOptions): Promise<BundleResult> {
  const log = o.log ?? (() => {});
  const now = o.now ?? new Date();
  const runDir = resolve(o.runDir);
  if (!existsSync(runDir) || !statSync(runDir).isDirectory())
    throw new BundleError(`run dir ${o.runDir} does not exist or is not a directory`, 'not-found');
  const leaf = basename(runDir);
  const ticket = o.ticket?.trim() || (leaf === NO_TICKET ? null : leaf);
  if (ticket === null)
    throw new BundleError(
      `run dir ${o.runDir} has no ticket (${NO_TICKET}): give --ticket TICKET (or sweep with --ticket)`,
      'no-ticket',
    );
  if (o.ticket !== undefined && safeSlug(ticket) !== leaf)
    log(`aorta-probe bundle: warning: --ticket ${ticket} does not match the run dir's name ${leaf}`);
  const realRoot = realpathSync(runDir);
  const files = walk(runDir, realRoot);
  if (!files.some((f) => /^[^/]+\/trial_\d+\/result\.json$/.test(f)))
    throw new BundleError(
      `run dir ${o.runDir} contains no 'trial_*/result.json' artifacts. Did you forget to include the per-ticket segment, or run before any probe trial finished?`,
      'empty',
    );
  const redaction = resolveRedaction(runDir, o.redactionFrom, log);
  const name = `${safeSlug(ticket)}-${stamp(now)}`;
  const entries: TarEntry[] = [];
  const listed: ManifestFile[] = [];
  try {
    for (const rel of files) {
      const p = join(runDir, ...rel.split('/'));
      const bytes = readRegular(p);
      // One scrubber per file: placeholders are numbered per file, as the original's newest indexes are.
      const own =
        redaction === null
          ? null
          : new TextScrubber({
              scrubPaths: redaction!.scrubPaths,
              scrubIpAddresses: redaction!.scrubIpAddresses,
              scrubSecrets: redaction!.scrubSecrets,
              extraPatterns: redaction!.extraPatterns,
            });
      let out: Scrubbed;
      try {
        out = scrubFile(rel, bytes, redaction, own);
      } finally {
        own?.dispose();
      }
      entries.push({ name: `${name}/${rel}`, mode: statSync(p).mode & 0o777, data: out.data });
      listed.push({
        path: rel,
        env_keys_removed: out.envKeysRemoved,
        paths_rewritten: own?.counts.pathsRewritten ?? 0,
        ips_rewritten: own?.counts.ipsRewritten ?? 0,
        bytes_in: bytes.length,
        bytes_out: out.data.length,
        secrets_redacted: (own?.counts.secretsRedacted ?? 0) + (own?.counts.patternsRedacted ?? 0),
      });
    }
  } catch (err) {
    if (err instanceof BundleError) throw err;
    if (err instanceof RedactionError) throw new BundleError(err.message, 'redaction');
    throw err;
  }
  const manifest: Manifest = {
    schema_version: MANIFEST_SCHEMA_VERSION,
    ticket,
    created_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    aorta_version: packageInfo().version,
    source_run_dir: leaf,
    redaction_applied: listed.some(
      (f) => f.env_keys_removed + f.paths_rewritten + f.ips_rewritten + f.secrets_redacted > 0,
    ),
    redactor_kind: redaction === null ? 'identity' : 'probe.v1',
    files: listed,
  };
  if (o.review !== undefined && !(await o.review(manifest)))
    throw new BundleError('aorta-probe bundle: aborted at review; nothing was written', 'aborted');
  entries.push({
    name: `${name}/${MANIFEST}`,
    mode: 0o644,
    data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`),
  });
  const target =
    o.output === undefined
      ? resolve(`${name}.tar.gz`)
      : existsSync(o.output) && statSync(o.output).isDirectory()
        ? join(resolve(o.output), `${name}.tar.gz`)
        : resolve(o.output);
  const partial = `${target}.partial`;
  try {
    rmSync(partial, { force: true });
    const fd = openSync(partial, 'wx', 0o644);
    try {
      writeSync(fd, tarGz(entries));
    } finally {
      closeSync(fd);
    }
    renameSync(partial, target);
  } catch (err) {
    rmSync(partial, { force: true });
    throw new BundleError(
      `cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'io',
    );
  }
  return { path: target, manifest };
}
