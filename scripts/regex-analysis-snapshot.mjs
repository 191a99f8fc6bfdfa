/**
 * Snapshot of the regex analyses' decisions (prefilter literal sets, fast-path eligibility and its JS source)
 * over every pattern we have: the differential corpus (fixtures/regex/golden-corpus.jsonl), the built-in
 * catalogues (tier 4, tier 3 AMD) and every recipe under fixtures/. Used to show that a refactor of the
 * analyses changes no decision (or only improves one):
 *
 *   npm run build:ts && node scripts/regex-analysis-snapshot.mjs > before.json
 *   … change …
 *   npm run build:ts && node scripts/regex-analysis-snapshot.mjs > after.json
 *   node scripts/regex-analysis-snapshot.mjs --diff before.json after.json
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A literal set as comparable text: case-insensitive strings lower-cased (their spelling does not matter). */
const folded = (set) =>
  set === null ? null : set.clauses.map((c) => c.map((s) => (set.caseInsensitive ? s.toLowerCase() : s)));

/**
 * Whether `after` filters at least as much as `before`: each clause of `before` is implied by one of `after`
 * (every string of that clause contains a string of the old one), compared case-insensitively unless `after`
 * is case-sensitive (a case-sensitive check skips more windows).
 */
function atLeastAsStrong(before, after) {
  if (before === null) return true;
  if (after === null) return false;
  if (after.caseInsensitive && !before.caseInsensitive) return false;
  const fold = (s) => (before.caseInsensitive ? s.toLowerCase() : s);
  return before.clauses.every((old) =>
    after.clauses.some((clause) => clause.every((s) => old.some((o) => fold(s).includes(fold(o))))),
  );
}

function diff(beforeFile, afterFile) {
  const load = (f) => new Map(JSON.parse(readFileSync(f, 'utf8')).map((r) => [`${r.flags}\u0000${r.pattern}`, r]));
  const before = load(beforeFile);
  const after = load(afterFile);
  const counts = { patterns: before.size, missing: 0, literals: {}, fast: {} };
  const count = (what, kind) => {
    counts[what][kind] = (counts[what][kind] ?? 0) + 1;
  };
  for (const [key, b] of before) {
    const a = after.get(key);
    if (a === undefined) {
      counts.missing++;
      continue;
    }
    if (JSON.stringify(a.error) !== JSON.stringify(b.error)) count('fast', 'error changed');
    if (JSON.stringify(a.literals) !== JSON.stringify(b.literals)) {
      const kind =
        JSON.stringify(folded(a.literals)) === JSON.stringify(folded(b.literals)) &&
        a.literals.caseInsensitive === b.literals.caseInsensitive
          ? 'same modulo case'
          : b.literals === null
            ? 'new (was none)'
            : atLeastAsStrong(b.literals, a.literals)
              ? 'stronger'
              : 'WEAKER';
      count('literals', kind);
      if (kind !== 'same modulo case')
        console.log(JSON.stringify({ kind, ...b, literals: undefined, before: b.literals, after: a.literals }));
    }
    if (a.fast !== b.fast) {
      const kind = b.fast === null ? 'now eligible' : a.fast === null ? 'NO LONGER ELIGIBLE' : 'JS SOURCE CHANGED';
      count('fast', kind);
      console.log(JSON.stringify({ kind, pattern: b.pattern, flags: b.flags, before: b.fast, after: a.fast }));
    }
  }
  console.log(JSON.stringify(counts));
}

async function snapshot() {
  const dist = new URL('../dist/src/', import.meta.url);
  const regex = await import(new URL('regex/index.js', dist).href);
  const compileMod = await import(new URL('regex/compile.js', dist).href);
  const { TIER4_PATTERNS } = await import(new URL('scan/tier4.js', dist).href);
  const { AMD_KERNEL_PATTERNS } = await import(new URL('detectors/tier3.js', dist).href);
  const { loadRecipe } = await import(new URL('recipe/load.js', dist).href);
  await (await import(new URL('regex/engine-loader.js', dist).href)).ready();

  const seen = new Map();
  const record = (pattern, flags) => {
    const key = `${flags}\u0000${pattern}`;
    if (!seen.has(key)) seen.set(key, { pattern, flags });
  };
  // Recipes compile their patterns while loading: record every compile.
  const original = compileMod.RegexCache.prototype.compile;
  compileMod.RegexCache.prototype.compile = function (pattern, flags = '') {
    if (typeof pattern === 'string') record(pattern, flags);
    return original.call(this, pattern, flags);
  };
  const root = new URL('../fixtures/', import.meta.url).pathname;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ya?ml$/.test(name)) {
        try {
          loadRecipe(readFileSync(path), path);
        } catch {
          // not a recipe, or an invalid one: its patterns that compiled are recorded all the same
        }
      }
    }
  };
  walk(root);
  compileMod.RegexCache.prototype.compile = original;
  for (const p of TIER4_PATTERNS) record(p.regex, p.flags);
  for (const p of AMD_KERNEL_PATTERNS) record(p.regex, regex.flagsFromPython(p.pythonFlags));
  for (const line of readFileSync(join(root, 'regex/golden-corpus.jsonl'), 'utf8').split('\n')) {
    if (line === '') continue;
    const row = JSON.parse(line);
    if (typeof row.p === 'string') record(row.p, row.f ?? '');
  }

  const out = [];
  for (const { pattern, flags } of seen.values()) {
    let h;
    try {
      h = regex.compileRegex(pattern, flags);
    } catch (e) {
      out.push({ pattern, flags, error: e.kind ?? String(e) });
      continue;
    }
    const literals = 'literals' in h ? h.literals : regex.requiredLiterals(h.source, h.flags);
    out.push({ pattern, flags, literals, fast: h.fast?.source ?? null });
    h.dispose();
  }
  console.log(JSON.stringify(out));
}

if (process.argv[2] === '--diff') diff(process.argv[3], process.argv[4]);
else await snapshot();
