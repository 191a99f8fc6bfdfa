/** The playground page: two editors, results, scratchpad, catalogue; the engine runs in two workers. */
import { basicSetup, EditorView } from 'codemirror';
import { yaml } from '@codemirror/lang-yaml';
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { StateEffect, StateField, type Text } from '@codemirror/state';
import { Decoration, type DecorationSet } from '@codemirror/view';
import { CancelledError, EngineClient } from './engine-client.js';
import { EXAMPLES, type Example } from './examples.js';
import { mountRedactView, type RedactView } from './redact-view.js';
import type {
  CatalogueEntry,
  Diagnostic,
  FiringOut,
  MatchOut,
  PatternInfo,
  Response,
  ScanOut,
  ScratchOut,
  SelfTestOut,
  ValueOut,
  Vars,
} from './protocol.js';
import {
  loadSession,
  MAX_LINK_STATE_BYTES,
  MAX_LOG_IN_HASH,
  readHash,
  saveSession,
  ShareLinkTooLarge,
  writeHash,
  type PageState,
} from './state.js';
import { h } from './dom.js';

// ------------------------------------------------------------------------------------------------ helpers

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`missing #${id}`);
  return el as T;
};

const mib = (n: number): string => `${(n / (1 << 20)).toFixed(1)} MiB`;

/** UTF-16 offset in `doc` of 1-based line `line`, 1-based code-point column `col` (clamped to the document). */
function docPos(doc: Text, line: number, col: number): number {
  if (line > doc.lines) return doc.length;
  const l = doc.line(Math.max(1, line));
  let units = 0;
  let cps = 1;
  while (cps < col && units < l.length) {
    const c = l.text.charCodeAt(units);
    units += c >= 0xd800 && c <= 0xdbff && units + 1 < l.length ? 2 : 1;
    cps++;
  }
  return l.from + units;
}

// ------------------------------------------------------------------------------------------------ state

const errors: string[] = [];
/** Requests answered so far (edits are coalesced: at most one request of a kind is in flight). */
const stats = { checks: 0, scans: 0, scratches: 0 };
function reportError(msg: string): void {
  errors.push(msg);
  console.warn(msg); // a warning, not an error: the tests treat console errors as failures of the page itself
  $('engine-status').textContent = msg;
}

const checker = new EngineClient('checker');
const scanner = new EngineClient('scanner');
checker.onError = reportError;
scanner.onError = reportError;
type LogSource = { kind: 'text' } | { kind: 'file'; file: File };
let logSource: LogSource = { kind: 'text' };

let recipeView!: EditorView;
let logView!: EditorView;
let redactView!: RedactView;

let lastCheck: Extract<Response, { kind: 'check' }> | null = null;
let lastScan: Extract<Response, { kind: 'scan' }> | null = null;
let lastScratch: ScratchOut | null = null;
let patternInfos: PatternInfo[] | null = null;

// ------------------------------------------------------------------------------------------------ editors

/** The span of the log that a clicked detector or match points at, marked in the log editor. */
const setHit = StateEffect.define<{ from: number; to: number } | null>();
const hitMark = Decoration.mark({ class: 'cm-hit' });
const hitField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setHit)) continue;
      marks =
        e.value === null || e.value.to <= e.value.from
          ? Decoration.none
          : Decoration.set([hitMark.range(e.value.from, e.value.to)]);
    }
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/**
 * Scrolls the log editor to a match and marks it: `offset` is a UTF-16 offset in the editor text, `length` the
 * matched text's length (0: unknown). Logs scanned from a file are not in the editor: nothing to show.
 */
function revealInLog(offset: number, length: number): void {
  if (logSource.kind !== 'text') return;
  const doc = logView.state.doc;
  const from = Math.min(Math.max(0, offset), doc.length);
  const line = doc.lineAt(from);
  // A firing whose matched text is not known is marked from where it starts to the end of its line.
  const to = length > 0 ? Math.min(doc.length, from + length) : Math.max(line.to, Math.min(doc.length, from + 1));
  logView.dispatch({
    selection: { anchor: from },
    effects: [setHit.of({ from, to }), EditorView.scrollIntoView(from, { y: 'center' })],
  });
  $('log-editor').dataset.hit = `${line.number}:${from}-${to}`;
}

function applyDiagnostics(diags: Diagnostic[]): void {
  const doc = recipeView.state.doc;
  const cm: CmDiagnostic[] = diags.map((d) => {
    const from = docPos(doc, d.line, d.col);
    let to = docPos(doc, d.endLine, d.endCol);
    if (to <= from) to = Math.min(doc.length, from + 1);
    const suggestion = d.suggestion;
    return {
      from,
      to,
      severity: d.severity,
      source: d.source === 'sandbox' ? 'condition sandbox' : d.source === 'lint' ? 'lint' : 'recipe loader',
      message: d.hint !== undefined ? `${d.message}\nhint: ${d.hint}` : d.message,
      ...(suggestion !== undefined
        ? {
            actions: [
              {
                name: `Replace with ${suggestion}`,
                apply: (view: EditorView, f: number, t: number) =>
                  view.dispatch({ changes: { from: f, to: t, insert: suggestion } }),
              },
            ],
          }
        : {}),
    };
  });
  recipeView.dispatch(setDiagnostics(recipeView.state, cm));
  const list = $('diagnostics');
  list.replaceChildren(
    ...diags.map((d) =>
      h(
        'li',
        {
          class: `diag ${d.severity}`,
          'data-line': String(d.line),
          'data-col': String(d.col),
          'data-node': d.node ?? '',
          'data-code': d.code ?? '',
        },
        h('span', { class: 'where' }, `line ${d.line}, col ${d.col}`),
        ' ',
        h('span', { class: 'msg' }, d.message),
        excerptOf(d) !== '' ? h('pre', {}, excerptOf(d)) : null,
        hintNode(d),
      ),
    ),
  );
  list.dataset.count = String(diags.length);
}

/**
 * The caret excerpt of a diagnostic's positioned message, without its first line: that line is
 * `recipe.yaml:L:C: <reason>`, which the list already shows as "line L, col C <reason>".
 */
function excerptOf(d: Diagnostic): string {
  if (!d.detail || d.detail === d.message) return '';
  const nl = d.detail.indexOf('\n');
  const first = nl < 0 ? d.detail : d.detail.slice(0, nl);
  if (!first.includes(d.message) && !/^\S+:\d+:\d+: /.test(first)) return d.detail;
  return nl < 0 ? '' : d.detail.slice(nl + 1).replace(/^\n+|\s+$/g, '');
}

/** A rejected condition's hint (what to write instead) as its own line, after the excerpt. */
function hintNode(d: Diagnostic): HTMLElement | null {
  return d.hint === undefined ? null : h('div', { class: 'hint' }, `hint: ${d.hint}`);
}

function readVars(prefix: 'var' | 'scratch'): Vars {
  const num = (id: string, fallback: number): number => {
    const v = ($(id) as HTMLInputElement).valueAsNumber;
    return Number.isFinite(v) ? v : fallback;
  };
  const vram = ($(`${prefix}-vram`) as HTMLInputElement).value.trim();
  const vramNum = Number(vram);
  return {
    exit_code: Math.trunc(num(`${prefix}-exit`, 0)),
    walltime_sec: num(`${prefix}-wall`, 0),
    peak_vram_mib: vram === '' || !Number.isFinite(vramNum) ? null : Math.trunc(vramNum),
  };
}

function writeVars(prefix: 'var' | 'scratch', v: Vars): void {
  ($(`${prefix}-exit`) as HTMLInputElement).value = String(v.exit_code);
  ($(`${prefix}-wall`) as HTMLInputElement).value = String(v.walltime_sec);
  ($(`${prefix}-vram`) as HTMLInputElement).value = v.peak_vram_mib === null ? '' : String(v.peak_vram_mib);
}

function parseCaptures(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    const name = (eq < 0 ? line : line.slice(0, eq)).trim();
    if (name === '') continue;
    Object.defineProperty(out, name, {
      value: eq < 0 ? '' : line.slice(eq + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ scheduling

/** Coalescing: at most one request of a kind in flight; the latest edit is sent when it answers. */
const waiters: (() => void)[] = [];
let checkInFlight = false;
let checkDirty = false;
let scanInFlight: { started: number; big: boolean } | null = null;
let scanDirty = false;
let scratchInFlight = false;
let scratchDirty = false;

function isIdle(): boolean {
  return (
    !checkInFlight &&
    !checkDirty &&
    scanInFlight === null &&
    !scanDirty &&
    !scratchInFlight &&
    !scratchDirty &&
    (redactView === undefined || redactView.isIdle())
  );
}

function settle(): void {
  if (!isIdle()) return;
  for (const w of waiters.splice(0)) w();
}

function idle(): Promise<void> {
  return new Promise((resolve) => {
    waiters.push(resolve);
    queueMicrotask(settle);
  });
}

function scheduleCheck(): void {
  checkDirty = true;
  if (!checkInFlight) void runCheck();
}

async function runCheck(): Promise<void> {
  checkDirty = false;
  checkInFlight = true;
  const doc = recipeView.state.doc;
  try {
    const r = await checker.request({ kind: 'check', recipe: doc.toString() });
    if (r.kind === 'check') {
      stats.checks++;
      lastCheck = r;
      if (recipeView.state.doc === doc) {
        applyDiagnostics(r.diagnostics);
        patternInfos = r.patterns;
        renderSelfTests(r.selfTests);
      }
    } else if (r.kind === 'fatal') reportError(`check: ${r.error}`);
  } catch (e) {
    if (!(e instanceof CancelledError)) reportError(`check: ${String(e)}`);
  } finally {
    checkInFlight = false;
    if (checkDirty) void runCheck();
    else settle();
  }
}

function scheduleScan(): void {
  scanDirty = true;
  if (scanInFlight === null) {
    void runScan();
    return;
  }
  // A long scan is stale now: cancel it (the worker cannot be interrupted) and start the new one. Short scans are
  // left to finish (restarting a worker costs more than they do).
  if (scanInFlight.big || performance.now() - scanInFlight.started > 3000) scanner.restart();
}

async function runScan(): Promise<void> {
  scanDirty = false;
  const log: string | Blob = logSource.kind === 'file' ? logSource.file : logView.state.doc.toString();
  const total = typeof log === 'string' ? log.length : log.size;
  scanInFlight = { started: performance.now(), big: typeof log !== 'string' || total > 2_000_000 };
  const started = scanInFlight.started;
  const recipe = recipeView.state.doc.toString();
  const progress = $('scan-progress') as HTMLProgressElement;
  const progressText = $('scan-progress-text');
  const cancel = $('cancel');
  const showProgress = scanInFlight.big;
  progress.hidden = !showProgress;
  cancel.hidden = !showProgress;
  progress.value = 0;
  progressText.textContent = showProgress ? `scanning ${typeof log === 'string' ? mib(total * 1) : mib(total)}…` : '';
  $('results').dataset.state = 'scanning';
  try {
    const r = await scanner.request({ kind: 'scan', recipe, log, vars: readVars('var') }, (done, all) => {
      progress.value = all === 0 ? 1 : done / all;
      const pct = all === 0 ? 100 : Math.floor((done / all) * 100);
      progressText.textContent = `scanning… ${pct}% (${((performance.now() - started) / 1000).toFixed(1)} s)`;
      progressText.dataset.pct = String(pct);
    });
    if (r.kind === 'scan') {
      stats.scans++;
      lastScan = r;
      renderScan(r);
      const secs = ((performance.now() - started) / 1000).toFixed(2);
      const size = typeof log === 'string' ? `${total.toLocaleString()} characters` : mib(total);
      progressText.textContent = r.ok
        ? `scanned ${size} in ${secs} s (tier 4 ${r.result.tier_durations_ms.tier4.toFixed(1)} ms, tier 5 ${r.result.tier_durations_ms.tier5.toFixed(1)} ms)`
        : '';
      progressText.dataset.pct = '100';
      if (logSource.kind === 'file' && logSource.file === log) {
        const f = logSource.file;
        showFileBanner(
          f,
          r.ok ? `Scanned the file ${f.name} (${mib(f.size)}) in ${secs} s` : `Could not scan the file ${f.name}`,
        );
      }
    } else if (r.kind === 'fatal') reportError(`scan: ${r.error}`);
  } catch (e) {
    if (e instanceof CancelledError) {
      if (!scanDirty) {
        progressText.textContent = 'scan cancelled';
        $('verdict').textContent = 'cancelled';
        $('verdict').dataset.verdict = 'cancelled';
      }
    } else reportError(`scan: ${String(e)}`);
  } finally {
    scanInFlight = null;
    progress.hidden = true;
    cancel.hidden = true;
    $('results').dataset.state = 'done';
    if (scanDirty) void runScan();
    else settle();
  }
}

function scheduleScratch(): void {
  scratchDirty = true;
  if (!scratchInFlight) void runScratch();
}

async function runScratch(): Promise<void> {
  scratchDirty = false;
  scratchInFlight = true;
  const expr = ($('scratch-expr') as HTMLInputElement).value;
  try {
    const r = await checker.request({
      kind: 'scratch',
      expr,
      vars: readVars('scratch'),
      capture: parseCaptures(($('scratch-capture') as HTMLTextAreaElement).value),
    });
    if (r.kind === 'scratch') {
      stats.scratches++;
      lastScratch = r.result;
      if (!scratchDirty) renderScratch(expr, r.result);
    } else if (r.kind === 'fatal') reportError(`scratchpad: ${r.error}`);
  } catch (e) {
    if (!(e instanceof CancelledError)) reportError(`scratchpad: ${String(e)}`);
  } finally {
    scratchInFlight = false;
    if (scratchDirty) void runScratch();
    else settle();
  }
}

// ------------------------------------------------------------------------------------------------ rendering

function valueNode(v: ValueOut | null, showFires = true): HTMLElement {
  if (v === null) return h('span', { class: 'muted' }, 'no condition');
  if (v.error !== undefined)
    return h(
      'span',
      { class: 'value exc' },
      `raises ${v.error}`,
      showFires && h('span', { class: 'fires no' }, ' → does not fire'),
    );
  return h(
    'span',
    { class: 'value' },
    h('code', { class: 'repr' }, v.repr ?? '<repr raises ValueError>'),
    h('span', { class: 'type' }, ` (${v.type})`),
    showFires && h('span', { class: `fires ${v.fired ? 'yes' : 'no'}` }, v.fired ? ' → fires' : ' → does not fire'),
  );
}

function captureTable(cap: Record<string, string>): HTMLElement {
  const keys = Object.keys(cap);
  if (keys.length === 0) return h('span', { class: 'muted' }, 'no named groups');
  return h(
    'table',
    { class: 'cap' },
    ...keys.map((k) => h('tr', {}, h('th', {}, k), h('td', {}, h('code', {}, JSON.stringify(cap[k]))))),
  );
}

/** who · transient (· the pattern's category): how a retry system would treat this detector. */
function categoryBadge(f: FiringOut): HTMLElement {
  const text = [f.who, f.transient ? 'transient' : 'not transient', ...(f.category !== null ? [f.category] : [])].join(
    ' · ',
  );
  return h(
    'span',
    {
      class: 'category',
      'data-who': f.who,
      'data-transient': String(f.transient),
      title: 'category: who, transient, pattern category',
    },
    text,
  );
}

/** Where a match or firing is, as a person reads a log: its line (or, for a file not counted in lines, its byte). */
const whereText = (line: number | null, offset: number): string => (line !== null ? `line ${line}` : `byte ${offset}`);

/** The matched text's length in the log (the shown text is cut at 400 characters with an ellipsis). */
const matchLength = (m: MatchOut): number => (m.text.endsWith('…') && m.text.length === 401 ? 400 : m.text.length);

/** A button that scrolls the log editor to a spot in the log and marks it. */
function lineButton(line: number | null, offset: number, length: number): HTMLElement {
  const b = h(
    'button',
    {
      type: 'button',
      class: 'where-link',
      'data-offset': String(offset),
      ...(line !== null ? { 'data-line': String(line) } : {}),
    },
    whereText(line, offset),
  );
  b.addEventListener('click', () => revealInLog(offset, length));
  if (logSource.kind !== 'text') b.setAttribute('disabled', '');
  return b;
}

/** Loads a match into the scratchpad: its captures, the scan's variables and the pattern's condition. */
function tryInScratchpad(m: MatchOut, condition: string | null): void {
  if (condition !== null) ($('scratch-expr') as HTMLInputElement).value = condition;
  writeVars('scratch', readVars('var'));
  ($('scratch-capture') as HTMLTextAreaElement).value = Object.entries(m.capture)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  scheduleScratch();
  saveHashSoon();
  $('scratch-expr').focus();
}

function matchNode(label: string, m: MatchOut, condition: string | null): HTMLElement {
  const tryIt = h('button', { type: 'button', class: 'try' }, 'try in scratchpad');
  tryIt.addEventListener('click', () => tryInScratchpad(m, condition));
  return h(
    'div',
    { class: 'match' },
    h(
      'div',
      {},
      h('b', {}, label),
      ' ',
      lineButton(m.line, m.offset, matchLength(m)),
      m.text ? h('code', { class: 'mtext' }, m.text) : null,
      ' ',
      tryIt,
    ),
    captureTable(m.capture),
    h('div', { class: 'cond' }, 'condition → ', valueNode(m.condition)),
  );
}

function renderScan(r: Extract<Response, { kind: 'scan' }>): void {
  const verdict = $('verdict');
  const detectors = $('detectors');
  const patterns = $('patterns');
  const captures = $('captures');
  // After a rejection there are no captures or patterns to show: their headings go too.
  $('captures-box').hidden = !r.ok;
  $('patterns-box').hidden = !r.ok;
  if (!r.ok) {
    verdict.textContent = r.error === null ? 'recipe rejected' : 'error';
    verdict.dataset.verdict = 'invalid';
    detectors.replaceChildren(
      h('p', { class: 'muted' }, r.error ?? 'Fix the recipe error marked in the editor to scan the log.'),
    );
    captures.replaceChildren();
    patterns.replaceChildren();
    return;
  }
  const s: ScanOut = r.result;
  verdict.textContent = s.verdict;
  verdict.dataset.verdict = s.verdict;
  const list = (title: string, items: HTMLElement[]): HTMLElement =>
    h(
      'div',
      { class: 'tier' },
      h('h3', {}, title),
      items.length ? h('ul', {}, ...items) : h('span', { class: 'muted' }, 'none'),
    );
  const missing = s.failure_detectors_fired.includes('meta:missing_pass_signal');
  // A Tier 5 firing's match is the pattern's firing match: its length marks the span in the log.
  const firingLength = new Map(
    s.patterns.flatMap((p) => (p.firing ? [[p.detectorId, matchLength(p.firing)] as const] : [])),
  );
  const firingItem = (f: FiringOut, cls: string, extra: string): HTMLElement =>
    h(
      'li',
      { class: cls, 'data-detector': f.detectorId },
      h('code', {}, f.detectorId),
      extra ? h('small', {}, ` ${extra}`) : null,
      ' ',
      lineButton(f.line, f.offset, firingLength.get(f.detectorId) ?? 0),
      ' ',
      categoryBadge(f),
    );
  // Tier 1 has no place in the log: what the exit code fired, as `run` would for a trial that exited with it.
  const tier1 = [...s.failure_detectors_fired, ...s.error_detectors_fired].filter((id) => id.startsWith('tier1:'));
  detectors.replaceChildren(
    tier1.length > 0
      ? list(
          'Tier 1 (exit code)',
          tier1.map((id) => h('li', { class: 'fail', 'data-detector': id }, h('code', {}, id))),
        )
      : '',
    list(
      'Tier 4 (built-in)',
      s.tier4.map((f) => firingItem(f, 'fail', '')),
    ),
    list(
      'Tier 5 (custom_patterns)',
      s.tier5.map((f) => firingItem(f, f.kind, f.kind)),
    ),
    missing ? h('p', { class: 'fail' }, 'meta:missing_pass_signal — a required_for_pass pattern did not fire') : '',
    ...s.engine_failures.map((f) =>
      h('p', { class: 'fail', 'data-engine-failure': f.pattern }, `meta:regex_engine_failure — ${f.message}`),
    ),
    ...s.condition_errors.map((e) => h('p', { class: 'warn', 'data-condition-errors': e.pattern }, e.text)),
  );
  captures.replaceChildren(
    ...Object.keys(s.capture).map((k) =>
      h('tr', { 'data-capture': k }, h('th', {}, k), h('td', {}, h('code', {}, JSON.stringify(s.capture[k])))),
    ),
  );
  if (Object.keys(s.capture).length === 0) captures.replaceChildren(h('tr', {}, h('td', { class: 'muted' }, 'none')));
  const infos = new Map((patternInfos ?? []).map((p) => [p.detectorId, p]));
  patterns.replaceChildren(
    ...s.patterns.map((p) => {
      const info = infos.get(p.detectorId);
      return h(
        'div',
        { class: 'pattern', 'data-detector': p.detectorId },
        h(
          'div',
          { class: 'phead' },
          h('b', {}, p.detectorId),
          info
            ? h('small', {}, ` on_match: ${info.onMatch}${info.requiredForPass ? ', required_for_pass' : ''}`)
            : null,
          h('span', { class: `badge ${p.firing ? 'fired' : 'quiet'}` }, p.firing ? 'fired' : 'did not fire'),
        ),
        info
          ? h(
              'div',
              { class: 'small' },
              'regex ',
              h('code', {}, info.regex),
              info.condition ? h('span', {}, ' · condition ', h('code', {}, info.condition)) : null,
            )
          : null,
        p.first
          ? matchNode('first match:', p.first, info?.condition ?? null)
          : h('div', { class: 'muted' }, 'no match in the log'),
        p.firing && p.first && p.firing.offset !== p.first.offset
          ? matchNode('fired at:', p.firing, info?.condition ?? null)
          : null,
      );
    }),
  );
  if (s.patterns.length === 0)
    patterns.replaceChildren(h('p', { class: 'muted' }, 'The recipe has no custom_patterns.'));
}

function renderScratch(_expr: string, r: ScratchOut): void {
  const out = $('scratch-out');
  if (!r.ok) {
    out.dataset.state = 'rejected';
    const excerpt = excerptOf(r.diagnostic);
    out.replaceChildren(
      h(
        'div',
        { class: 'diag error', 'data-node': r.diagnostic.node ?? '' },
        h('b', {}, 'rejected: '),
        r.diagnostic.message,
        excerpt !== '' ? h('pre', {}, excerpt) : null,
        hintNode(r.diagnostic),
      ),
    );
    return;
  }
  out.dataset.state = r.value.error !== undefined ? 'raised' : r.value.fired ? 'fired' : 'quiet';
  out.replaceChildren(
    h(
      'table',
      { class: 'steps' },
      ...r.steps.map((s, i) => {
        const final = i === r.steps.length - 1;
        return h(
          'tr',
          { class: final ? 'final' : 'step' },
          h('td', {}, h('code', {}, s.source)),
          h('td', { class: 'val' }, valueNode(s.value, final)),
        );
      }),
    ),
  );
}

/** The recipe's `tests:` samples with pass/fail; a click puts the cursor on the sample in the recipe. */
function renderSelfTests(tests: SelfTestOut[]): void {
  const box = $('selftests-box');
  box.hidden = tests.length === 0;
  $('selftests').replaceChildren(
    ...tests.map((t) => {
      const go = h('button', { type: 'button', class: 'where-link', 'data-line': String(t.line) }, `line ${t.line}`);
      go.addEventListener('click', () => {
        const pos = docPos(recipeView.state.doc, t.line, t.col);
        recipeView.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
        recipeView.focus();
      });
      return h(
        'li',
        { class: t.passed ? 'pass' : 'fail', 'data-test': t.name },
        t.passed ? '✓ ' : '✗ ',
        h('b', {}, t.name),
        ' ',
        go,
        t.passed ? null : h('div', { class: 'small' }, t.mismatches.join('; ')),
        ...(t.passed ? [] : t.fired).map((f) => h('div', { class: 'small muted' }, `fired: ${f}`)),
        ...t.raised.map((r) => h('div', { class: 'small warn' }, `raised: ${r}`)),
      );
    }),
  );
}

function renderCatalogue(cat: CatalogueEntry[]): void {
  $('catalogue').replaceChildren(
    h(
      'tr',
      {},
      h('th', {}, 'detector'),
      h('th', {}, 'description'),
      h('th', {}, 'regex (Python re)'),
      h('th', {}, 'flags'),
      h('th', {}, 'example'),
    ),
    ...cat.map((p) =>
      h(
        'tr',
        { 'data-detector': p.detectorId },
        h('td', {}, h('code', {}, p.detectorId)),
        h('td', {}, p.description),
        h('td', {}, h('code', {}, p.regex)),
        h('td', {}, p.pythonFlags.join(', ') || '—'),
        h('td', {}, h('code', {}, p.sample)),
      ),
    ),
  );
}

// ------------------------------------------------------------------------------------------------ page state

let hashTimer: ReturnType<typeof setTimeout> | undefined;
function saveHashSoon(): void {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => void saveHash(), 400);
}

function currentState(): PageState {
  return {
    recipe: recipeView.state.doc.toString(),
    log: logSource.kind === 'text' ? logView.state.doc.toString() : '',
    vars: readVars('var'),
    expr: ($('scratch-expr') as HTMLInputElement).value,
    scratchVars: readVars('scratch'),
    capture: ($('scratch-capture') as HTMLTextAreaElement).value,
  };
}

/** Keeps the address bar's link up to date; false when the state is too large for a link (the link is removed). */
async function saveHash(): Promise<boolean> {
  const state = currentState();
  const hash = await writeHash(state);
  // A stale link would open an older state: none is better.
  history.replaceState(null, '', hash ?? `${location.pathname}${location.search}`);
  saveSession(state);
  return hash !== null;
}

/**
 * The state of the link the page was opened with, or null; a link that cannot be opened says why in the banner
 * above the editors (the page then opens the last session or the first example).
 */
async function openLink(): Promise<PageState | null> {
  try {
    return await readHash(location.hash);
  } catch (e) {
    const banner = $('link-banner');
    banner.textContent =
      e instanceof ShareLinkTooLarge
        ? e.message
        : 'This share link was not opened: it is damaged or incomplete (was it cut short when copied?).';
    banner.hidden = false;
    return null;
  }
}

function setDoc(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

function applyState(s: PageState): void {
  setDoc(recipeView, s.recipe);
  useTextLog();
  setDoc(logView, s.log);
  writeVars('var', s.vars);
  ($('scratch-expr') as HTMLInputElement).value = s.expr;
  writeVars('scratch', s.scratchVars);
  ($('scratch-capture') as HTMLTextAreaElement).value = s.capture;
  scheduleCheck();
  scheduleScan();
  scheduleScratch();
}

function exampleState(e: Example): PageState {
  return {
    recipe: e.recipe,
    log: e.log,
    vars: e.vars,
    expr: e.expr,
    scratchVars: e.vars,
    capture: Object.entries(e.capture)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  };
}

/** The banner above the log editor while a file is the log: what is being (or was) scanned, and the way back. */
function showFileBanner(file: File, text: string): void {
  const banner = $('log-file-banner');
  banner.hidden = false;
  const back = h('button', { type: 'button', id: 'use-editor-log' }, 'Use the editor text instead');
  back.addEventListener('click', () => {
    useTextLog();
    scheduleScan();
  });
  banner.replaceChildren(`${text}; it is not shown in the editor. `, back);
  banner.dataset.file = file.name;
}

/** The Example menu names an example only while the recipe is that example's, untouched. */
function syncExampleChoice(): void {
  const select = $('example') as HTMLSelectElement;
  const e = EXAMPLES.find((x) => x.id === select.value);
  if (e !== undefined && recipeView.state.doc.toString() !== e.recipe) select.value = '';
}

function useTextLog(): void {
  if (logSource.kind === 'text') return;
  logSource = { kind: 'text' };
  $('log-file-banner').hidden = true;
  ($('log-file') as HTMLInputElement).value = '';
}

// ------------------------------------------------------------------------------------------------ start

const t0 = performance.now();
const timings: Record<string, number> = {};

function mount(): void {
  const onChange = (f: () => void) =>
    EditorView.updateListener.of((u) => {
      if (u.docChanged) f();
    });
  const label = (name: string) => EditorView.contentAttributes.of({ 'aria-label': name });
  recipeView = new EditorView({
    parent: $('recipe-editor'),
    extensions: [
      basicSetup,
      yaml(),
      lintGutter(),
      EditorView.lineWrapping,
      label('Recipe (YAML)'),
      onChange(() => {
        syncExampleChoice();
        scheduleCheck();
        scheduleScan();
        redactView.recipeChanged();
        saveHashSoon();
      }),
    ],
  });
  logView = new EditorView({
    parent: $('log-editor'),
    extensions: [
      basicSetup,
      hitField,
      label('Sample log'),
      onChange(() => {
        useTextLog();
        scheduleScan();
        saveHashSoon();
      }),
    ],
  });
  redactView = mountRedactView({ recipeText: () => recipeView.state.doc.toString(), settle, reportError });
  const select = $('example') as HTMLSelectElement;
  select.append(
    h('option', { value: '' }, '— your own recipe —'),
    ...EXAMPLES.map((e) => h('option', { value: e.id }, e.title)),
  );
  select.addEventListener('change', () => {
    const e = EXAMPLES.find((x) => x.id === select.value);
    if (e) applyState(exampleState(e));
    saveHashSoon();
  });
  for (const id of ['var-exit', 'var-wall', 'var-vram'])
    $(id).addEventListener('input', () => {
      scheduleScan();
      saveHashSoon();
    });
  for (const id of ['scratch-expr', 'scratch-exit', 'scratch-wall', 'scratch-vram', 'scratch-capture']) {
    $(id).addEventListener('input', () => {
      scheduleScratch();
      saveHashSoon();
    });
  }
  $('load-log').addEventListener('click', () => $('log-file').click());
  $('log-file').addEventListener('change', () => {
    const file = ($('log-file') as HTMLInputElement).files?.[0];
    if (!file) return;
    logSource = { kind: 'file', file };
    showFileBanner(file, `Scanning the file ${file.name} (${mib(file.size)})…`);
    scheduleScan();
  });
  $('download-recipe').addEventListener('click', () => {
    const url = URL.createObjectURL(new Blob([recipeView.state.doc.toString()], { type: 'application/yaml' }));
    const a = h('a', { href: url, download: 'recipe.yaml' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  $('cancel').addEventListener('click', () => scanner.restart());
  $('share').addEventListener('click', () => {
    void saveHash().then(async (linked) => {
      if (!linked) {
        $('share').textContent = `No link: the recipe is over ${MAX_LINK_STATE_BYTES / 1048576} MiB`;
        setTimeout(() => ($('share').textContent = 'Copy share link'), 2000);
        return;
      }
      try {
        await navigator.clipboard.writeText(location.href);
        $('share').textContent = 'Link copied';
      } catch {
        $('share').textContent = 'Link is in the address bar';
      }
      const s = currentState();
      if (logSource.kind === 'file') $('share').textContent += ' (a log file is not in links)';
      else if (s.log.length > MAX_LOG_IN_HASH)
        $('share').textContent += ` (the log is over ${MAX_LOG_IN_HASH / 1024} KiB: not in the link)`;
      setTimeout(() => ($('share').textContent = 'Copy share link'), 2000);
    });
  });
}

async function start(): Promise<void> {
  mount();
  // A shared link wins; then the last session in this browser; then the first example.
  const fromHash = await openLink();
  const restored = fromHash ?? loadSession();
  applyState(restored ?? exampleState(EXAMPLES[0]!));
  const select = $('example') as HTMLSelectElement;
  select.value = EXAMPLES.find((e) => e.recipe === recipeView.state.doc.toString())?.id ?? '';
  if (fromHash === null && restored !== null) $('engine-status').dataset.restored = 'true';
  timings.editorsMs = performance.now() - t0;
  const [c] = await Promise.all([checker.ready, scanner.ready]);
  timings.enginesReadyMs = performance.now() - t0;
  timings.workerInitMs = c.ms;
  timings.workerReadySinceStartMs = c.sinceStartMs;
  timings.re2LoadMs = c.re2LoadMs;
  renderCatalogue(c.catalogue);
  $('engine-status').textContent =
    `engine ready in ${Math.round(timings.enginesReadyMs)} ms (re2-wasm + condition VM in workers)`;
  await idle();
  timings.interactiveMs = performance.now() - t0;
  document.body.dataset.ready = 'true';
}

const api = {
  ready: start(),
  idle,
  timings,
  errors,
  stats,
  get lastCheck() {
    return lastCheck;
  },
  get lastScan() {
    return lastScan;
  },
  get lastScratch() {
    return lastScratch;
  },
  get lastRedact() {
    return redactView.last;
  },
  /** Opens the Redact view (true) or the result view. */
  showRedact: (open: boolean) => redactView.show(open),
  setRedactLog: (text: string) => redactView.setLog(text),
  setRecipe: (text: string) => setDoc(recipeView, text),
  setLog: (text: string) => {
    useTextLog();
    setDoc(logView, text);
  },
  recipeText: () => recipeView.state.doc.toString(),
  /** Selects the first occurrence of `text` in the recipe editor and focuses it (tests then type over it). */
  selectInRecipe: (text: string) => {
    const from = recipeView.state.doc.toString().indexOf(text);
    if (from < 0) throw new Error(`not in the recipe: ${text}`);
    recipeView.dispatch({ selection: { anchor: from, head: from + text.length }, scrollIntoView: true });
    recipeView.focus();
  },
  heap: async () => ({
    checker: await checker.request({ kind: 'heap' }),
    scanner: await scanner.request({ kind: 'heap' }),
  }),
  restarts: () => ({ checker: checker.restarts, scanner: scanner.restarts }),
};
(window as unknown as { __playground: typeof api }).__playground = api;
api.ready.catch((e: unknown) => reportError(`startup: ${String(e)}`));
