/**
 * Scrubbing a run's JSON documents as the original's `RedactingRedactor` does (upstream-probe-runs.md §1.2, §1.5):
 * the document's kind comes from its path in the run directory; in the env mappings that kind's schema names, keys
 * matching `redaction.scrub_env_keys` (fnmatchcase) are removed; every other string — keys and values, anywhere —
 * goes through the file's `TextScrubber` (paths, IPs, credentials). A key that collapses onto another after
 * scrubbing fails closed (`duplicate JSON object keys`), never silently merges. Non-string values in an env
 * mapping match as `""` and keep their type; `null` stays `null`.
 *
 * Ours on top of the original's locations: a sweep record's `cell_env`, and run.json's `identity.cells[*].env`.
 */
import { fnmatchcase } from '../text/fnmatch.js';
import type { TextScrubber } from './text.js';

export type DocumentKind = 'result' | 'snapshot' | 'matrix' | 'sidecar' | 'recipe' | 'run' | 'json';

/** The redaction failed closed: the file is not written. */
export class RedactionError extends Error {
  override name = 'RedactionError';
}

const TRIAL = /^trial_\d+$/;

/** The kind of a file by its path relative to the run directory (`/`-separated); `json` for other JSON files. */
export function documentKind(rel: string): DocumentKind | null {
  const parts = rel.split('/');
  if (parts.length === 3 && TRIAL.test(parts[1]!) && parts[2] === 'result.json') return 'result';
  if (rel === 'host_env.json' || (parts.length === 3 && parts[0] === 'environments' && parts[2] === 'env.json'))
    return 'snapshot';
  if (rel === 'matrix.json') return 'matrix';
  if (rel === 'recipe.resolved.yaml') return 'recipe';
  if (rel === 'run.json') return 'run';
  if (rel === 'inline_environments.sidecar.json' || (parts.length === 2 && parts[0] === 'sidecars')) return 'sidecar';
  return rel.toLowerCase().endsWith('.json') ? 'json' : null;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The env mappings of `doc` for its kind: the objects whose keys are environment variable names. */
function envMaps(doc: Json, kind: DocumentKind): Obj[] {
  if (!isObj(doc)) return [];
  const out: Obj[] = [];
  const add = (v: Json | undefined): void => {
    if (!isObj(v)) return;
    // An EnvSnapshot ({env_vars: {...}, ...}) in a place that may also hold a flat map.
    if (isObj(v.env_vars)) out.push(v.env_vars);
    else out.push(v);
  };
  const at = (v: Json | undefined, ...path: string[]): Json | undefined => {
    let cur: Json | undefined = v;
    for (const p of path) cur = isObj(cur) ? cur[p] : undefined;
    return cur;
  };
  const each = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : isObj(v) ? Object.values(v) : []);
  switch (kind) {
    case 'snapshot':
      add(doc.env_vars);
      for (const block of Object.values(doc)) if (isObj(block)) add(block.env_overrides);
      add(doc.env);
      add(at(doc, 'descriptor', 'env'));
      break;
    case 'result':
      add(doc.env);
      add(at(doc, 'execution_env', 'env'));
      add(at(doc, 'config', '_aorta_environment', 'env'));
      add(at(doc, 'config', '_aorta_probe_extras', 'cell_env_vars'));
      add(doc.cell_env);
      break;
    case 'matrix':
      for (const c of each(doc.cells)) {
        add(at(c, 'resolved_env_vars'));
        add(at(c, 'extra_env'));
        add(at(c, 'resolved_environment', 'env'));
      }
      break;
    case 'sidecar':
      for (const e of each(doc.environments)) add(at(e, 'env'));
      for (const m of each(doc.mitigations)) add(m);
      break;
    case 'recipe':
      add(doc.extra_env);
      for (const c of each(doc.cells)) {
        add(at(c, 'extra_env'));
        add(at(c, 'environment', 'env'));
      }
      break;
    case 'run':
      for (const c of each(at(doc, 'identity', 'cells'))) add(at(c, 'env'));
      break;
    case 'json':
      break;
  }
  return out;
}

/**
 * Scrubs `doc` (parsed JSON, or a recipe mapping) in place of a copy: env keys removed where the kind says, every
 * string key and value scrubbed. Returns the new document and how many env keys were removed.
 */
export function scrubDocument(
  doc: Json,
  kind: DocumentKind,
  scrubber: TextScrubber,
  envGlobs: readonly string[],
): { readonly doc: Json; readonly envKeysRemoved: number } {
  // A copy through JSON: JSON.parse makes a `__proto__` key an own property, where a spread or an assignment would
  // set the prototype instead.
  const copy = JSON.parse(JSON.stringify(doc)) as Json;
  let removed = 0;
  if (envGlobs.length > 0) {
    for (const map of envMaps(copy, kind)) {
      for (const key of Object.keys(map)) {
        if (envGlobs.some((g) => fnmatchcase(key, g))) {
          delete map[key];
          removed++;
        }
      }
    }
  }
  const walk = (v: Json): Json => {
    if (typeof v === 'string') return scrubber.scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (isObj(v)) {
      const out: Obj = {};
      for (const [k, val] of Object.entries(v)) {
        const nk = scrubber.scrub(k);
        if (Object.hasOwn(out, nk)) throw new RedactionError('redaction produced duplicate JSON object keys');
        Object.defineProperty(out, nk, { value: walk(val), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return v;
  };
  return { doc: walk(copy), envKeysRemoved: removed };
}
