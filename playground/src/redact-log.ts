/**
 * The Redact view's engine side: which `redaction:` block applies, decided as `aorta-probe bundle --redaction-from
 * RECIPE` decides it (src/bundle/bundle.ts `redactionOfFile`: only the block is read, through the recipe loader's
 * own rules inside a minimal probe recipe, so the rest of the recipe need not load), then the pasted log scrubbed as
 * the bundle scrubs a log file (one `TextScrubber`, the text through `lineWindows`). No worker globals: the worker
 * posts what this returns, and tests drive it in Node.
 */
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import { lineWindows, loadRedactionBlock, TextScrubber, type Recipe } from '../../src/index.js';
import { highlightScrubbed } from './redact-html.js';
import type { RedactionSettings, RedactOut } from './protocol.js';

type RedactionKeys = NonNullable<Recipe['redaction']>;

/** The block of a recipe, or why `bundle` would refuse it. */
export type BlockOf =
  | { readonly kind: 'recipe'; readonly settings: RedactionSettings }
  | { readonly kind: 'none' }
  | { readonly kind: 'error'; readonly error: string };

/** The block's keys as plain JSON data (a non-string key stays distinguishable, so the unknown-key check fires). */
function toPlain(node: unknown, doc: Document): unknown {
  if (isAlias(node)) return toPlain(node.resolve(doc), doc);
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'bigint') return Number(v);
    if (v instanceof Date) return String(node.source ?? v.toISOString());
    return v;
  }
  if (isSeq(node)) return node.items.map((i) => toPlain(i, doc));
  if (isMap(node)) {
    const o: Record<string, unknown> = {};
    for (const p of node.items) {
      const k = isScalar(p.key) && typeof p.key.value === 'string' ? p.key.value : `<key ${String(p.key)}>`;
      Object.defineProperty(o, k, { value: toPlain(p.value, doc), enumerable: true });
    }
    return o;
  }
  return node ?? null;
}

const settingsOf = (r: RedactionKeys): RedactionSettings => ({
  scrubEnvKeys: [...r.scrubEnvKeys],
  scrubPaths: r.scrubPaths,
  scrubIpAddresses: r.scrubIpAddresses,
  scrubSecrets: r.scrubSecrets,
  extraPatterns: [...r.extraPatterns],
});

let defaults: RedactionSettings | null = null;
/** What a `redaction: {}` block does, as the loader reads it (secrets on; paths and IPs off, as in the original). */
export function defaultBlockSettings(): RedactionSettings {
  defaults ??= settingsOf(loadRedactionBlock('{}', 'recipe.yaml'));
  return defaults;
}

/** The recipe's `redaction:` block as `bundle --redaction-from` reads it. */
export function redactionBlockOf(recipeText: string): BlockOf {
  const doc = parseDocument(recipeText, { version: '1.1', prettyErrors: false });
  if (doc.errors.length > 0) return { kind: 'error', error: `the recipe is not YAML: ${doc.errors[0]!.message}` };
  const root = doc.contents;
  if (!isMap(root)) {
    const got = root === null ? 'NoneType' : isSeq(root) ? 'list' : 'str';
    return {
      kind: 'error',
      error: `expected a top-level mapping, got ${got}; refusing to fall back to no redaction`,
    };
  }
  const entry = root.items.find((p) => isScalar(p.key) && p.key.value === 'redaction');
  if (entry === undefined) return { kind: 'none' };
  try {
    return {
      kind: 'recipe',
      settings: settingsOf(loadRedactionBlock(JSON.stringify(toPlain(entry.value, doc)), 'recipe.yaml')),
    };
  } catch (e) {
    return { kind: 'error', error: (e as { reason?: string }).reason ?? (e as Error).message };
  }
}

/** The log scrubbed as `bundle` scrubs a log file, with the first `previewChars` of the output as highlighted HTML. */
export function redactLog(recipeText: string, log: string, previewChars: number): RedactOut {
  const t0 = performance.now();
  const block = redactionBlockOf(recipeText);
  const counts = { pathsRewritten: 0, ipsRewritten: 0, secretsRedacted: 0, patternsRedacted: 0 };
  const base = { inputChars: log.length, counts };
  if (block.kind === 'error')
    return {
      ...base,
      block: 'error',
      error: block.error,
      settings: null,
      text: '',
      html: '',
      shownChars: 0,
      totalChars: 0,
      ms: performance.now() - t0,
    };
  const settings = block.kind === 'recipe' ? block.settings : defaultBlockSettings();
  const scrubber = new TextScrubber({
    scrubPaths: settings.scrubPaths,
    scrubIpAddresses: settings.scrubIpAddresses,
    scrubSecrets: settings.scrubSecrets,
    extraPatterns: settings.extraPatterns,
  });
  let text: string;
  try {
    text = lineWindows(log)
      .map((w) => scrubber.scrub(w))
      .join('');
    Object.assign(counts, scrubber.counts);
  } catch (e) {
    return {
      ...base,
      block: block.kind,
      error: `the redactor failed: ${(e as Error).message}`,
      settings,
      text: '',
      html: '',
      shownChars: 0,
      totalChars: 0,
      ms: performance.now() - t0,
    };
  } finally {
    scrubber.dispose();
  }
  const { html, shownChars } = highlightScrubbed(text, previewChars);
  return {
    ...base,
    block: block.kind,
    error: null,
    settings,
    text,
    html,
    shownChars,
    totalChars: text.length,
    ms: performance.now() - t0,
  };
}
