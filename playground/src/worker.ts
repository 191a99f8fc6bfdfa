/**
 * The playground's engine worker (a classic worker, bundled as an IIFE): the recipe loader, the condition sandbox
 * and VM, re2-wasm and the scanner, exactly the modules the CLI runs. The page starts two of these: one answers
 * `check` and `scratch` (fast, on every keystroke), the other runs `scan` (possibly long; the page cancels it by
 * terminating the worker and starting a fresh one). A third, started when the Redact view is first opened, answers
 * `redact` (a pasted log through the recipe's `redaction:` block; restarted like the scanner when a long one is stale).
 */
import {
  compileCondition,
  runSelfTests,
  lintRecipe,
  loadRecipeCollecting,
  ready,
  TIER4_PATTERNS,
  type CompiledCondition,
  type Recipe,
  type RecipeCollected,
} from '../../src/index.js';
// Beyond the public API: the playground shows the engine's inner workings (AST node spans, scan windows, heap).
import { walk, type Loc, type Node } from '../../src/condition/ast.js';
import { defaultRegexCache, heapProbe } from '../../src/regex/index.js';
import { conditionErrorsLine, iterWindows, ScanSession } from '../../src/scan/index.js';
import { errorText, toDiagnostic } from './diagnostic.js';
import { redactLog } from './redact-log.js';
import { scanRecipeLog, valueOut } from './scan-log.js';
import type {
  CatalogueEntry,
  Diagnostic,
  SelfTestOut,
  PatternInfo,
  Request,
  Response,
  ScratchOut,
  ScratchStep,
  Vars,
} from './protocol.js';

const RECIPE_FILE = 'recipe.yaml';

const post = (msg: Response): void => (self as unknown as { postMessage(m: Response): void }).postMessage(msg);

function lintDiagnostics(recipe: Recipe, text: string): Diagnostic[] {
  try {
    return lintRecipe(recipe, text).map((w) => ({
      severity: 'warning',
      source: 'lint',
      line: w.line,
      col: w.col,
      endLine: w.endLine ?? w.line,
      endCol: w.endCol ?? w.col + 1,
      message: `${w.message} [${w.code}]`,
      node: null,
      detail: [w.excerpt, w.suggestion ? `suggestion: ${w.suggestion}` : ''].filter(Boolean).join('\n'),
      code: w.code,
      ...(w.suggestion ? { suggestion: w.suggestion } : {}),
    }));
  } catch (e) {
    return [
      {
        severity: 'warning',
        source: 'internal',
        line: 1,
        col: 1,
        endLine: 1,
        endCol: 2,
        message: `linter failed: ${errorText(e)}`,
        node: null,
        detail: errorText(e),
      },
    ];
  }
}

function patternInfo(recipe: Recipe): PatternInfo[] {
  return recipe.customPatterns.map((p) => ({
    id: p.id,
    detectorId: p.detectorId,
    regex: p.regex,
    flags: p.flags,
    condition: p.condition?.source ?? null,
    onMatch: p.onMatch,
    requiredForPass: p.requiredForPass,
    category: p.category,
    line: p.line,
  }));
}

type Loaded = { ok: true; recipe: Recipe; diagnostics: Diagnostic[] } | { ok: false; diagnostics: Diagnostic[] };

/** Loads the recipe; an invalid one gives a diagnostic per independent error, as `aorta-probe check` lists them. */
function load(text: string): Loaded {
  let loaded: RecipeCollected;
  try {
    loaded = loadRecipeCollecting(text, RECIPE_FILE);
  } catch (e) {
    return { ok: false, diagnostics: [toDiagnostic(e)] };
  }
  const { recipe, errors } = loaded;
  if (recipe === null) return { ok: false, diagnostics: errors.map(toDiagnostic) };
  return { ok: true, recipe, diagnostics: lintDiagnostics(recipe, text) };
}

/** The recipe's `tests:` samples, as `aorta-probe check` runs them. */
function selfTests(recipe: Recipe): SelfTestOut[] {
  return runSelfTests(recipe).map((t) => ({
    name: t.name,
    line: t.line,
    col: t.col,
    passed: t.passed,
    mismatches: [...t.mismatches],
    fired: [...t.fired],
    raised: t.conditionErrors.map((e) => conditionErrorsLine(e, 'log')),
  }));
}

// ---------------------------------------------------------------------------------------------- scratchpad

/** Source text of a node (lines and code-point columns, 1-based, endCol exclusive). */
function sliceLoc(source: string, loc: Loc): string {
  const lines = source.split(/\r\n|\r|\n/).map((l) => Array.from(l));
  if (loc.line === loc.endLine) return (lines[loc.line - 1] ?? []).slice(loc.col - 1, loc.endCol - 1).join('');
  const parts = [(lines[loc.line - 1] ?? []).slice(loc.col - 1).join('')];
  for (let l = loc.line + 1; l < loc.endLine; l++) parts.push((lines[l - 1] ?? []).join(''));
  parts.push((lines[loc.endLine - 1] ?? []).slice(0, loc.endCol - 1).join(''));
  return parts.join('\n');
}

/**
 * Every sub-expression gets a step, except literals (their value is their text), called functions' names, and
 * pieces that are not conditions on their own (a keyword argument: it fails to compile and is skipped). At most
 * MAX_STEPS, innermost first.
 */
const NO_STEP = new Set(['Constant', 'Expression']);
const MAX_STEPS = 64;

function scratch(expr: string, vars: Vars, capture: Record<string, string>): ScratchOut {
  let c: CompiledCondition;
  try {
    c = compileCondition(expr);
  } catch (e) {
    return { ok: false, diagnostic: toDiagnostic(e) };
  }
  const all = { capture, ...vars };
  const value = valueOut(c.evaluateDetailed(all));
  // Intermediate values, innermost first: every call, subscript, comparison, operation inside the condition.
  const body = (c.tree as unknown as { body: Node }).body;
  const nodes: Node[] = [];
  // A called function's name (`math.isnan`, `float`) is not a value an author asks about.
  const callees = new Set<Node>();
  for (const n of walk(body)) if (n.type === 'Call') for (const c of walk(n.func)) callees.add(c);
  for (const n of walk(body))
    if (n !== body && !NO_STEP.has(n.type) && !callees.has(n) && (n as { loc?: Loc | null }).loc) nodes.push(n);
  const key = (l: Loc): number => l.endLine * 1e6 + l.endCol;
  nodes.sort((a, b) => {
    const la = (a as { loc: Loc }).loc;
    const lb = (b as { loc: Loc }).loc;
    return key(la) - key(lb) || lb.line * 1e6 + lb.col - (la.line * 1e6 + la.col);
  });
  const steps: ScratchStep[] = [];
  const seen = new Set<string>();
  for (const n of nodes) {
    const src = sliceLoc(c.source, (n as { loc: Loc }).loc);
    if (seen.has(src)) continue;
    seen.add(src);
    if (steps.length >= MAX_STEPS) break;
    try {
      steps.push({ source: src, value: valueOut(compileCondition(src).evaluateDetailed(all)) });
    } catch {
      // a fragment that is not a condition on its own (cannot happen for these node types); skip it
    }
  }
  steps.push({ source: c.source, value });
  return { ok: true, value, steps };
}

// ---------------------------------------------------------------------------------------------- scanning

const ASYNC_YIELD_MS = 40;

async function scan(seq: number, recipeText: string, log: string | Blob, vars: Vars): Promise<Response> {
  const loaded = load(recipeText);
  if (!loaded.ok) return { kind: 'scan', seq, ok: false, diagnostics: loaded.diagnostics, error: null };
  let lastPost = performance.now();
  const progress = (done: number, total: number): void => {
    const now = performance.now();
    if (done < total && now - lastPost < ASYNC_YIELD_MS) return;
    lastPost = now;
    post({ kind: 'progress', seq, done, total });
  };
  try {
    const result = await scanRecipeLog(loaded.recipe, log, vars, progress);
    return { kind: 'scan', seq, ok: true, result, diagnostics: loaded.diagnostics };
  } catch (e) {
    return { kind: 'scan', seq, ok: false, diagnostics: loaded.diagnostics, error: errorText(e) };
  }
}

// ---------------------------------------------------------------------------------------------- dispatch

function catalogue(): CatalogueEntry[] {
  return TIER4_PATTERNS.map((p) => ({
    detectorId: p.detectorId,
    description: p.description,
    regex: p.regex,
    pythonFlags: [...p.pythonFlags],
    sample: p.sample,
  }));
}

async function handle(req: Request): Promise<Response> {
  switch (req.kind) {
    case 'check': {
      const t0 = performance.now();
      const loaded = load(req.recipe);
      return {
        kind: 'check',
        seq: req.seq,
        diagnostics: loaded.diagnostics,
        patterns: loaded.ok ? patternInfo(loaded.recipe) : null,
        selfTests: loaded.ok ? selfTests(loaded.recipe) : [],
        ms: performance.now() - t0,
      };
    }
    case 'scratch': {
      const t0 = performance.now();
      return {
        kind: 'scratch',
        seq: req.seq,
        result: scratch(req.expr, req.vars, req.capture),
        ms: performance.now() - t0,
      };
    }
    case 'scan':
      return scan(req.seq, req.recipe, req.log, req.vars);
    case 'heap':
      return { kind: 'heap', seq: req.seq, heap: { ...heapProbe(), regexCache: defaultRegexCache.stats() } };
    case 'redact':
      return { kind: 'redact', seq: req.seq, result: redactLog(req.recipe, req.log, req.previewChars) };
  }
}

// Requests are handled one at a time, in order (a scan of a Blob awaits its reads), after the engine loaded.
let queue: Promise<void> = warmUp();
self.onmessage = (ev: MessageEvent<Request>) => {
  const req = ev.data;
  queue = queue.then(async () => {
    try {
      post(await handle(req));
    } catch (e) {
      post({ kind: 'fatal', seq: req.seq, error: errorText(e) });
    }
  });
};

/** Loads the engine now (re2-wasm, the Tier 4 programs, the condition VM) so the first request is fast. */
async function warmUp(): Promise<void> {
  const t0 = performance.now();
  let cat: CatalogueEntry[] = [];
  let re2LoadMs = -1;
  try {
    await ready();
    re2LoadMs = performance.now() - t0;
    cat = catalogue();
    compileCondition('exit_code == 0').evaluate({ capture: {}, exit_code: 0, walltime_sec: 0, peak_vram_mib: null });
    scanTier4Warmup();
  } catch (e) {
    post({ kind: 'fatal', seq: 0, error: errorText(e) });
  }
  post({ kind: 'ready', ms: performance.now() - t0, sinceStartMs: performance.now(), re2LoadMs, catalogue: cat });
}

function scanTier4Warmup(): void {
  const s = new ScanSession(null, { exit_code: 0, walltime_sec: 0, peak_vram_mib: null });
  try {
    for (const w of iterWindows('warm-up line\n')) s.feed(w);
  } finally {
    s.dispose();
  }
}
