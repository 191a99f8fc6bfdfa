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
} from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { parse as parseYamlDoc, stringify } from 'yaml';
import { loadRedactionBlock, type RedactionKeys } from '../recipe/index.js';
import { parseYaml, reprNode } from '../recipe/tree.js';
import { documentKind, RedactionError, scrubDocument } from '../redact/json.js';
import { TextScrubber } from '../redact/text.js';
import { lineWindows } from '../redact/windows.js';
import { scrubbedText } from './text-stream.js';
import { fnmatchcase } from '../text/fnmatch.js';
import { packageInfo } from '../trial/package-info.js';
import { openRegularFile, readRegularFile } from '../trial/safe-read.js';
import { TarGzWriter } from './tar.js';

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
  // A path the user typed, or a run file: a link is followed, a FIFO or a device is not opened.
  const read = readRegularFile(path, { maxBytes: MAX_JSON_BYTES, over: 'reject', follow: true });
  if ('reason' in read) throw new BundleError(`cannot read ${path}: ${read.reason}`, 'recipe');
  const text = read.bytes.toString('utf8');
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
    return { found: true, block: loadRedactionBlock(JSON.stringify(toPlain(entry.value)), path) };
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

interface Listed {
  readonly rel: string;
  /** The resolved path: what is opened (the link was checked at the walk). */
  readonly real: string;
  readonly dev: number;
  readonly ino: number;
  readonly mode: number;
  readonly size: number;
}

/**
 * Every regular file under `root`, sorted by relative path; a link resolving outside is an error, one inside is
 * followed (a directory seen twice through links is walked once). Anything else — a FIFO, a socket, a device — is
 * left out with a log line, never opened.
 */
function walk(realRoot: string, log: (l: string) => void): Listed[] {
  const out: Listed[] = [];
  // The directories on the path being walked: a link back to one of them is a cycle, walked once.
  const ancestors = new Set<string>();
  const visit = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const r = rel === '' ? name : `${rel}/${name}`;
      if (rel === '' && SKIPPED_TOP.has(name)) continue;
      const p = join(dir, name);
      // `dir` is already resolved: only a link needs resolving (realpath of every entry costs an lstat per
      // component, which a run directory of 100,000 files feels).
      let real = p;
      const lst = lstatSync(p);
      if (lst.isSymbolicLink()) {
        try {
          real = realpathSync(p);
        } catch {
          throw new BundleError(`${r}: a link that resolves nowhere; refusing to bundle`, 'unsafe-link');
        }
        if (real !== realRoot && !real.startsWith(realRoot + sep))
          throw new BundleError(`${r} resolves outside the run directory (${real}); refusing to bundle`, 'unsafe-link');
      }
      const st = lst.isSymbolicLink() ? statSync(real) : lst;
      if (st.isDirectory()) {
        const id = `${st.dev}:${st.ino}`;
        if (ancestors.has(id)) {
          log(`aorta-probe bundle: skipping ${r}: a link back to a directory that holds it`);
          continue;
        }
        ancestors.add(id);
        visit(real, r);
        ancestors.delete(id);
      } else if (st.isFile())
        out.push({ rel: r, real, dev: st.dev, ino: st.ino, mode: st.mode & 0o777, size: st.size });
      else log(`aorta-probe bundle: skipping ${r}: not a regular file`);
    }
  };
  const top = statSync(realRoot);
  ancestors.add(`${top.dev}:${top.ino}`);
  visit(realRoot, '');
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

function isText(rel: string): boolean {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  return TEXT_NAMES.has(base) || TEXT_SUFFIXES.some((s) => base.toLowerCase().endsWith(s));
}

interface Scrubbed {
  readonly data: Uint8Array;
  readonly envKeysRemoved: number;
}

/** One file through the redactor (§1.5's dispatch order): how its output is produced. */
function handling(rel: string, size: number, redaction: RedactionKeys | null): 'copy' | 'document' | 'text' {
  if (redaction === null || !isText(rel)) return 'copy';
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  const kind = documentKind(rel);
  if (base === 'probe.env' || kind === 'recipe') return 'document';
  if (kind !== null && size <= MAX_JSON_BYTES) return 'document';
  return 'text';
}

/** A document read whole and rewritten: probe.env, recipe.resolved.yaml, the JSON kinds (§1.5 steps 1–4). */
function scrubDocumentFile(rel: string, bytes: Buffer, globs: readonly string[], scrubber: TextScrubber): Scrubbed {
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
  const kind = documentKind(rel)!;
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
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // A schema-owned document that does not parse fails closed; other JSON is scrubbed as text.
    if (kind !== 'json')
      throw new BundleError(`${rel}: ${kind} JSON does not parse (${(err as Error).message})`, 'redaction');
    const pieces: string[] = [];
    for (const w of lineWindows(text)) scrubber.scrubTo(w, (p) => pieces.push(p));
    return { data: Buffer.from(pieces.join('')), envKeysRemoved: 0 };
  }
  if (kind !== 'json' && (doc === null || typeof doc !== 'object' || Array.isArray(doc)))
    throw new BundleError(`${rel}: ${kind} JSON must contain a top-level object`, 'redaction');
  const r = scrubDocument(doc as never, kind, scrubber, globs);
  return { data: Buffer.from(`${JSON.stringify(r.doc, null, 2)}\n`), envKeysRemoved: r.envKeysRemoved };
}

const READ_CHUNK = 4 * 1024 * 1024;
/** A file's scrubbed output up to this size is held until its header is written; a larger one is scrubbed twice. */
const HELD_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Exactly `size` bytes of `fd`, in chunks (a file that grew since it was listed is taken as it was listed). */
function* chunksOf(fd: number, size: number, rel: string): Generator<Buffer> {
  let at = 0;
  while (at < size) {
    // A fresh buffer each time: the archive's gzip stream may still hold the last one.
    const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, size - at));
    const n = readSync(fd, buf, 0, buf.length, at);
    if (n === 0) throw new BundleError(`${rel} shrank while it was being bundled; nothing was written`, 'io');
    at += n;
    yield buf.subarray(0, n);
  }
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
  const files = walk(realRoot, log);
  if (!files.some((f) => /^[^/]+\/trial_\d+\/result\.json$/.test(f.rel)))
    throw new BundleError(
      `run dir ${o.runDir} contains no 'trial_*/result.json' artifacts. Did you forget to include the per-ticket segment, or run before any probe trial finished?`,
      'empty',
    );
  const redaction = resolveRedaction(runDir, o.redactionFrom, log);
  const name = `${safeSlug(ticket)}-${stamp(now)}`;
  const target =
    o.output === undefined
      ? resolve(`${name}.tar.gz`)
      : existsSync(o.output) && statSync(o.output).isDirectory()
        ? join(resolve(o.output), `${name}.tar.gz`)
        : resolve(o.output);
  // Written member by member to `<target>.partial` (a file's output is held, never the archive), renamed into
  // place when complete; on any failure or a "no" at review the partial file is removed: nothing is written.
  const partial = `${target}.partial`;
  let fd: number;
  try {
    rmSync(partial, { force: true });
    fd = openSync(partial, 'wx', 0o644);
  } catch (err) {
    throw new BundleError(
      `cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'io',
    );
  }
  const tar = new TarGzWriter(fd);
  let complete = false;
  try {
    const listed: ManifestFile[] = [];
    for (const f of files) listed.push(await bundleFile(f, `${name}/${f.rel}`, redaction, tar));
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
    const json = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    await tar.add(`${name}/${MANIFEST}`, 0o644, json.length);
    await tar.data(json);
    await tar.end();
    closeSync(fd);
    renameSync(partial, target);
    complete = true;
    return { path: target, manifest };
  } catch (err) {
    if (err instanceof BundleError) throw err;
    if (err instanceof RedactionError) throw new BundleError(err.message, 'redaction');
    throw new BundleError(
      `cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      'io',
    );
  } finally {
    if (!complete) {
      await tar.abort();
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      rmSync(partial, { force: true });
    }
  }
}

/** One listed file into the archive: its member, and its manifest row. */
async function bundleFile(
  f: Listed,
  member: string,
  redaction: RedactionKeys | null,
  tar: TarGzWriter,
): Promise<ManifestFile> {
  const opened = openRegularFile(f.real);
  if ('reason' in opened) throw new BundleError(`${f.rel}: ${opened.reason} while bundling; nothing was written`, 'io');
  const { fd } = opened;
  // The file the walk listed, not one put in its place since.
  if (opened.stats.dev !== f.dev || opened.stats.ino !== f.ino) {
    closeSync(fd);
    throw new BundleError(`${f.rel}: replaced by another file while bundling; nothing was written`, 'io');
  }
  // One scrubber per file: placeholders are numbered per file, as the original's newest indexes are.
  const scrubber = (): TextScrubber =>
    new TextScrubber({
      scrubPaths: redaction!.scrubPaths,
      scrubIpAddresses: redaction!.scrubIpAddresses,
      scrubSecrets: redaction!.scrubSecrets,
      extraPatterns: redaction!.extraPatterns,
    });
  const row = (bytesOut: number, envKeysRemoved: number, s: TextScrubber | null): ManifestFile => ({
    path: f.rel,
    env_keys_removed: envKeysRemoved,
    paths_rewritten: s?.counts.pathsRewritten ?? 0,
    ips_rewritten: s?.counts.ipsRewritten ?? 0,
    bytes_in: f.size,
    bytes_out: bytesOut,
    secrets_redacted: (s?.counts.secretsRedacted ?? 0) + (s?.counts.patternsRedacted ?? 0),
  });
  try {
    const how = handling(f.rel, f.size, redaction);
    if (how === 'copy') {
      await tar.add(member, f.mode, f.size);
      for (const c of chunksOf(fd, f.size, f.rel)) await tar.data(c);
      return row(f.size, 0, null);
    }
    if (how === 'document') {
      if (f.size > MAX_JSON_BYTES)
        throw new BundleError(`${f.rel}: over ${MAX_JSON_BYTES} bytes; refusing to copy it unscrubbed`, 'redaction');
      const bytes = Buffer.concat([...chunksOf(fd, f.size, f.rel)]);
      const s = scrubber();
      try {
        const out = scrubDocumentFile(f.rel, bytes, redaction!.scrubEnvKeys, s);
        await tar.add(member, f.mode, out.data.length);
        await tar.data(out.data);
        return row(out.data.length, out.envKeysRemoved, s);
      } finally {
        s.dispose();
      }
    }
    // Text: held while it fits, else measured in a first pass and written in a second (same bytes, same counts).
    const first = scrubber();
    let held: Buffer[] | null = [];
    let size = 0;
    try {
      for (const p of scrubbedText(chunksOf(fd, f.size, f.rel), first, f.size)) {
        // Encoded once while it is held; past the bound only its length is needed.
        if (held === null) {
          size += Buffer.byteLength(p, 'utf8');
          continue;
        }
        const b = Buffer.from(p, 'utf8');
        size += b.length;
        if (size > HELD_OUTPUT_BYTES) held = null;
        else held.push(b);
      }
    } finally {
      first.dispose();
    }
    await tar.add(member, f.mode, size);
    if (held !== null) for (const b of held) await tar.data(b);
    else {
      const second = scrubber();
      try {
        let again = 0;
        for (const p of scrubbedText(chunksOf(fd, f.size, f.rel), second, f.size)) {
          const b = Buffer.from(p, 'utf8');
          again += b.length;
          if (again > size) break;
          await tar.data(b);
        }
        if (again !== size || JSON.stringify(second.counts) !== JSON.stringify(first.counts))
          throw new BundleError(`${f.rel} changed while it was being bundled; nothing was written`, 'io');
      } finally {
        second.dispose();
      }
    }
    return row(size, 0, first);
  } finally {
    closeSync(fd);
  }
}
