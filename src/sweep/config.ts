/**
 * A sweep's configuration: the recipe's sweep keys (validated by the loader, src/recipe/sweep-keys.ts), with the
 * cells' bundles drawn from the mitigation registry (src/recipe/mitigation-registry.ts: the built-ins and every
 * `--mitigations-file`) and the recipe's own `mitigations:`.
 *
 * A `--mitigations-file` is either our flat map (`name: {VAR: value}`, YAML or JSON) or the original's sidecar
 * (`{"version": 1, "mitigations": {name: {VAR: value}}, "environments": {...}}`; `environments` is accepted and not
 * used: this project has no environment axis). A name another source already defines is an error naming both.
 */
import { basename } from 'node:path';
import { RecipeError, type EnvBundle, type Recipe, type SweepKeys } from '../recipe/index.js';
import type { KeyContext } from '../recipe/classifier-keys.js';
import type { FilePos } from '../recipe/errors.js';
import type { RegistryEntry } from '../recipe/mitigation-registry.js';
import { parseMitigationTable } from '../recipe/sweep-keys.js';
import { parseYaml, reprNode, spanPos, type PyNode } from '../recipe/tree.js';

/** The recipe's sweep keys, with `mitigations` the table the cells are built from (registry and recipe). */
export type SweepConfig = SweepKeys;

type Span = { readonly start: number; readonly end: number };

const SIDECAR_KEYS = ['environments', 'mitigations', 'version'];

/** Reads a `--mitigations-file` into `registry`; every problem is a `RecipeError` at its file:line:col. */
export function parseMitigationsFile(text: string, file: string, registry: Map<string, RegistryEntry>): void {
  const parsed = parseYaml(text, file.toLowerCase().endsWith('.json'));
  if (parsed.root === null) return;
  const pos = (at: Span): FilePos => spanPos(parsed.text, parsed.lineCounter, at.start, at.end);
  const ctx: KeyContext = {
    fail: (reason: string, at: Span, suggestion: string | null = null): never => {
      throw new RecipeError(reason, file, pos(at), parsed.text, suggestion);
    },
    pos,
  };
  const root = parsed.root;
  const entry = (key: string): PyNode | undefined =>
    root.entries?.find((e) => e.key.kind === 'str' && e.key.value === key)?.value;
  let table: Map<string, EnvBundle>;
  let source: string;
  // The original's sidecar is recognised by its `version` key; a flat map never has one (it would be a bundle).
  if (root.kind === 'dict' && entry('version') !== undefined) {
    source = `sidecar:${basename(file)}`;
    const bad = root.entries!.find((e) => !(e.key.kind === 'str' && SIDECAR_KEYS.includes(e.key.value as string)));
    if (bad !== undefined)
      ctx.fail(
        `${basename(file)}: unknown sidecar key ${reprNode(bad.key)} (a sidecar has version, mitigations, environments)`,
        bad.key,
      );
    const v = entry('version')!;
    if (v.kind !== 'int' || v.value !== 1n) ctx.fail(`${basename(file)}.version: must be 1, got ${reprNode(v)}`, v);
    const env = entry('environments');
    if (env !== undefined && env.kind !== 'dict' && env.kind !== 'NoneType')
      ctx.fail(`${basename(file)}.environments: must be a mapping, got ${env.typeName}`, env);
    const m = entry('mitigations');
    table =
      m === undefined || m.kind === 'NoneType'
        ? new Map()
        : parseMitigationTable(ctx, m, `${basename(file)}.mitigations`, registry, source);
  } else {
    source = `file:${file}`;
    table = parseMitigationTable(ctx, root, 'mitigations', registry, source);
  }
  for (const [name, env] of table) registry.set(name, { env, source });
}

/** `recipe`'s sweep keys; the cells' bundles come from `registry` (built-ins and files) and the recipe's own table. */
export function readSweepConfig(recipe: Recipe, registry: ReadonlyMap<string, RegistryEntry>): SweepConfig {
  const mitigations = new Map<string, EnvBundle>();
  for (const [name, e] of registry) mitigations.set(name, e.env);
  for (const [name, bundle] of recipe.mitigations) mitigations.set(name, bundle);
  return { mitigations, stopAfter: recipe.stopAfter, retain: recipe.retain, retry: recipe.retry };
}
