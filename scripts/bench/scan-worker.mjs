// One scanning engine in its own process, so its peak RSS (maxRSS at exit) is its own.
// argv[2]: JSON { engine, file, repeats, patterns: 'workload' | 'everyline' }.
// Prints JSON { timesMs[], fired[], maxRssKiB }. Every timing is end to end from the (page-cached)
// file: read + decode + scan, as a user of each engine would run it.
import { readFileSync } from 'node:fs';
import { classifyLogScan, compileCondition, loadRecipe, planLogScan, scanFile } from '../../dist/src/node.js';
import { WindowedMatcher } from '../../dist/src/scan/index.js';
import {
  CUSTOM_PATTERNS,
  EVERY_LINE_PATTERN,
  SCAN_VARS,
  logFailures,
  recipeYaml,
  tier4Sources,
  toJsRegExp,
} from './patterns.mjs';

const spec = JSON.parse(process.argv[2]);
const custom = spec.patterns === 'everyline' ? [EVERY_LINE_PATTERN] : CUSTOM_PATTERNS;
const tier4 = spec.patterns === 'everyline' ? [] : tier4Sources();

/**
 * Ours: the public streaming API (`scanFile` = `scanStream` over a reused read buffer) and the classification of
 * what it found, as `aorta-probe scan` runs them.
 */
async function ours() {
  const plan = planLogScan(loadRecipe(recipeYaml(custom), 'bench.yaml'));
  // scanLog/scanStream always run Tier 4; for the every-line case the Tier 4 patterns ride along
  // (they never match the clean log), so that row measures the full cost a user would see.
  const r = classifyLogScan(plan, await scanFile(plan.scanRecipe, spec.file, SCAN_VARS), SCAN_VARS);
  return logFailures(r.detectors);
}

/** The condition, when a peer finds a match (our VM: the peers differ in regex engine only). */
function conditionOf(p) {
  if (!p.condition) return () => true;
  const c = compileCondition(p.condition);
  return (named) => c.evaluate({ capture: named, ...SCAN_VARS });
}

/** V8 irregexp over the whole text: first match, or the first whose condition holds. */
function v8() {
  const text = readFileSync(spec.file, 'utf8');
  const fired = [];
  for (const p of tier4) if (toJsRegExp(p.regex, p.pythonFlags).test(text)) fired.push(p.id);
  for (const p of custom) {
    const re = toJsRegExp(p.regex, [], 'g');
    const cond = conditionOf(p);
    for (const m of text.matchAll(re)) {
      if (cond({ ...m.groups })) {
        fired.push(`custom:${p.id}`);
        break;
      }
    }
  }
  return fired.sort();
}

/**
 * Naive re2-wasm: what a user gets from `new RE2(src, 'gu')` alone — the original's windowing
 * (first match per window, overlap 4096) but over 1 MiB windows, the most its 16 MiB heap takes
 * with room to spare.
 */
async function re2Naive() {
  const { RE2 } = await import('re2-wasm');
  const text = readFileSync(spec.file, 'utf8');
  const W = 1 << 20;
  const OVERLAP = 4096;
  const pats = [
    ...tier4.map((p) => ({
      id: p.id,
      re: new RE2(
        p.regex,
        `gu${p.pythonFlags.includes('MULTILINE') ? 'm' : ''}${p.pythonFlags.includes('IGNORECASE') ? 'i' : ''}`,
      ),
      cond: () => true,
    })),
    ...custom.map((p) => ({ id: `custom:${p.id}`, re: new RE2(p.regex, 'gu'), cond: conditionOf(p) })),
  ];
  const fired = new Set();
  for (let start = 0; ; ) {
    const end = Math.min(start + W, text.length);
    const win = text.slice(start, end);
    for (const p of pats) {
      if (fired.has(p.id)) continue;
      p.re.lastIndex = 0;
      const m = p.re.exec(win);
      if (m !== null && p.cond({ ...m.groups })) fired.add(p.id);
    }
    if (fired.size === pats.length || end === text.length) break;
    start = end - OVERLAP;
  }
  return [...fired].sort();
}

const engines = {
  ours,
  'ours-noprefilter': () => {
    // The static switch in src/scan/windows.ts, reached through dist; fail loudly if it moved
    // (setting a missing static would silently measure the prefiltered scanner).
    if (typeof WindowedMatcher?.prefilter !== 'boolean') throw new Error('WindowedMatcher.prefilter not found in dist');
    WindowedMatcher.prefilter = false;
    return ours();
  },
  v8,
  're2-naive': re2Naive,
};

const timesMs = [];
let fired = [];
// The JIT-compiled engines (ours, V8) get one untimed pass first, as the condition benchmark warms every engine
// up: the first pass also pays for tiering up and for faulting in fresh heap pages. The slow engines (seconds
// per pass) are timed from their first pass.
if (spec.engine === 'ours' || spec.engine === 'v8') await engines[spec.engine]();
for (let i = 0; i < spec.repeats; i++) {
  const t0 = performance.now();
  fired = await engines[spec.engine]();
  timesMs.push(performance.now() - t0);
}
process.stdout.write(JSON.stringify({ result: { timesMs, fired }, maxRssKiB: process.resourceUsage().maxRSS }));
