import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileRegex, matchAll } from '../src/regex/index.js';
import {
  BUILTIN_PATTERN_VERSION,
  DEFAULT_WINDOW_BYTES,
  TIER4_PATTERNS,
  iterWindows,
  overlapFor,
  scanLog,
  scanTier4,
  tier4Regexes,
  windowedMatches,
  type ScanVars,
} from '../src/scan/index.js';
import { MISSING_PASS_SIGNAL, TIER1_EXIT_NONZERO } from '../src/detectors/ids.js';
import { classifyLog } from '../src/classifier/classify-log.js';
import { customPatternsRecipe as recipe } from './support/recipes.js';
import { failingIds, warningIds } from './support/scan-results.js';

const VARS: ScanVars = { exit_code: 0, walltime_sec: 1.0, peak_vram_mib: null };
const W100 = { windowBytes: 100 };

/** The Tier 4 hits of a scan without a recipe (every hit is `tier4`: they are all failures). */
function tier4(text: string, options = {}): string[] {
  return failingIds(scanLog(null, text, VARS, options));
}

const fixture = (name: string) => readFileSync(new URL(`../fixtures/logs/${name}.txt`, import.meta.url), 'utf8');

describe('Tier 4 catalogue (the original tier4_patterns.py (ROCm/aorta))', () => {
  it('BUILTIN_PATTERN_VERSION is the string "1"', () => {
    expect(BUILTIN_PATTERN_VERSION).toBe('1');
  });

  it('is exactly the notes table, in catalogue order', () => {
    expect(TIER4_PATTERNS.map((p) => [p.detectorId, p.description, p.regex, p.flags, p.sample])).toEqual([
      [
        'tier4:python_traceback',
        "Python traceback ('Traceback (most recent call last):')",
        '^Traceback \\(most recent call last\\):',
        'm',
        'Traceback (most recent call last):',
      ],
      [
        'tier4:hip_error',
        'HIP error code (hipError_* or HIP error: ...)',
        'hipError_[A-Za-z0-9_]+|HIP error:',
        '',
        'hipError_OutOfMemory',
      ],
      [
        'tier4:cuda_error',
        'CUDA error code (cudaError_* or CUDA error: ...)',
        'cudaError[A-Za-z0-9_]*|CUDA error:',
        '',
        'cudaErrorIllegalAddress',
      ],
      ['tier4:rocm_error', "ROCm error code marker ('Error code: <n>')", 'Error code: \\d+', '', 'Error code: 1'],
      [
        'tier4:nccl_rccl_error',
        'NCCL or RCCL collective error',
        'NCCL error|RCCL ERROR',
        '',
        'NCCL error: unhandled system error',
      ],
      [
        'tier4:collective_timeout',
        'Torch distributed watchdog collective-operation timeout',
        'Watchdog caught collective operation timeout',
        '',
        'Watchdog caught collective operation timeout: WorkNCCL ...',
      ],
      ['tier4:nan_signature', 'Training-loss NaN signature', 'loss(?: is)? NaN|loss=nan', 'i', 'loss is NaN'],
    ]);
    expect(TIER4_PATTERNS.map((p) => p.pythonFlags)).toEqual([['MULTILINE'], [], [], [], [], [], ['IGNORECASE']]);
  });

  it('every entry has a compiled regex, a tier4: id and a non-empty sample that fires exactly it', () => {
    const regexes = tier4Regexes();
    expect(regexes).toHaveLength(7);
    TIER4_PATTERNS.forEach((p, i) => {
      expect(regexes[i]!.disposed).toBe(false);
      expect(p.detectorId.startsWith('tier4:')).toBe(true);
      expect(p.sample.length).toBeGreaterThan(0);
      expect(tier4(p.sample)).toEqual([p.detectorId]);
    });
  });

  it.each(TIER4_PATTERNS.map((p) => p.detectorId))('fixture for %s fires exactly its detector', (id) => {
    const log = fixture(id.slice('tier4:'.length));
    const r = scanLog(null, log, VARS);
    expect(r.detectors.map((d) => [d.id, d.kind])).toEqual([[id, 'tier4']]);
    expect(failingIds(r)).toEqual([id]);
    // the verdict is the classifier's (exit code 0: no Tier 1)
    const c = classifyLog(null, log, VARS);
    expect(c.failure_detectors_fired).toEqual([id]);
    expect(c.verdict).toBe('fail');
  });

  it('the clean fixture fires nothing', () => {
    const r = scanLog(null, fixture('clean'), VARS);
    expect(failingIds(r)).toEqual([]);
    expect(warningIds(r)).toEqual([]);
    expect(r.capture).toEqual({});
    expect(classifyLog(null, fixture('clean'), VARS)).toMatchObject({
      verdict: 'pass',
      failure_detectors_fired: [],
      warn_detectors_fired: [],
      capture: {},
    });
  });

  it('empty and unrelated logs fire nothing', () => {
    expect(scanTier4('')).toEqual([]);
    expect(tier4('')).toEqual([]);
    expect(tier4('everything is fine\nstep 100/100 done')).toEqual([]);
  });

  it('multiple patterns in one log, in log order', () => {
    expect(tier4("Traceback (most recent call last):\n  File 'x.py'\nRuntimeError: hipError_OutOfMemory\n")).toEqual([
      'tier4:python_traceback',
      'tier4:hip_error',
    ]);
    // log order, not catalogue order
    expect(tier4('step 3 loss is nan\nNCCL error: x\nTraceback (most recent call last):\n')).toEqual([
      'tier4:nan_signature',
      'tier4:nccl_rccl_error',
      'tier4:python_traceback',
    ]);
  });

  it('MULTILINE ^: the traceback header must start a line; IGNORECASE for NaN only', () => {
    expect(tier4('x Traceback (most recent call last):')).toEqual([]);
    expect(tier4('x\nTraceback (most recent call last):')).toEqual(['tier4:python_traceback']);
    expect(tier4('LOSS=NAN')).toEqual(['tier4:nan_signature']);
    expect(tier4('nccl error')).toEqual([]);
  });

  it('each detector fires once however often it matches', () => {
    expect(tier4('hipError_A\nhipError_B\nHIP error: c\n'.repeat(50), W100)).toEqual(['tier4:hip_error']);
  });

  it('window overlap catches a straddling traceback header (window 100)', () => {
    const text =
      'x'.repeat(79) +
      '\n' +
      'Traceback (most recent call last):\n' +
      "  File 'x.py', line 1\n" +
      'RuntimeError: boom' +
      '\n' +
      'y'.repeat(79);
    expect(text.indexOf('Traceback')).toBe(80);
    expect(tier4(text, W100)).toEqual(['tier4:python_traceback']);
  });

  it('^ at a window seam sees the character before it (no false line start)', () => {
    // With window 100 and overlap 50, window 2 starts at 50: a header there is mid-line and must not fire.
    const text = 'x'.repeat(50) + 'Traceback (most recent call last):' + 'y'.repeat(100);
    expect(tier4(text, W100)).toEqual([]);
    const text2 = 'x'.repeat(49) + '\nTraceback (most recent call last):' + 'y'.repeat(100);
    expect(tier4(text2, W100)).toEqual(['tier4:python_traceback']);
  });
});

describe('Tier 5 custom patterns (the original tier5_custom.py (ROCm/aorta))', () => {
  it('simple match fires a fail detector', () => {
    const rc = recipe('{id: oom_killer, match: {regex: oom_killer triggered}}');
    const log = 'step 1\noom_killer triggered\nstep 2\n';
    const vars = { exit_code: 137, walltime_sec: 12.0, peak_vram_mib: null };
    const r = scanLog(rc, log, vars);
    expect(r.detectors.map((d) => [d.id, d.kind, d.line])).toEqual([['custom:oom_killer', 'fail', 2]]);
    expect(failingIds(r)).toEqual(['custom:oom_killer']);
    expect(warningIds(r)).toEqual([]);
    // classified, the non-zero exit code adds Tier 1 (listed first)
    expect(classifyLog(rc, log, vars)).toMatchObject({
      verdict: 'fail',
      failure_detectors_fired: [TIER1_EXIT_NONZERO, 'custom:oom_killer'],
      warn_detectors_fired: [],
    });
  });

  it('warn match does not fail', () => {
    const rc = recipe('{id: slow_iter, match: {regex: slow iteration}, on_match: warn}');
    const r = scanLog(rc, 'slow iteration detected\n', VARS);
    expect(r.detectors.map((d) => [d.id, d.kind])).toEqual([['custom:slow_iter', 'warn']]);
    expect(failingIds(r)).toEqual([]);
    expect(warningIds(r)).toEqual(['custom:slow_iter']);
    expect(classifyLog(rc, 'slow iteration detected\n', VARS)).toMatchObject({
      verdict: 'pass',
      failure_detectors_fired: [],
      warn_detectors_fired: ['custom:slow_iter'],
    });
  });

  it('info-only pattern populates capture and is listed nowhere', () => {
    const rc = recipe("{id: bw, match: {regex: 'effective bandwidth: (?P<bw>[0-9]+) GB/s'}, on_match: info}");
    const r = scanLog(rc, 'effective bandwidth: 240 GB/s\n', VARS);
    expect(r.detectors.map((d) => [d.id, d.kind])).toEqual([['custom:bw', 'info']]);
    expect(failingIds(r)).toEqual([]);
    expect(warningIds(r)).toEqual([]);
    expect(r.capture).toEqual({ bw: '240' });
    // the raw scan stage: no verdict, no id lists (classifyLog decides them)
    expect(Object.keys(r).sort()).toEqual([
      'capture',
      'condition_errors',
      'detectors',
      'engine_failures',
      'missing_required',
      'tier_durations_ms',
    ]);
    expect(classifyLog(rc, 'effective bandwidth: 240 GB/s\n', VARS)).toMatchObject({
      verdict: 'pass',
      failure_detectors_fired: [],
      warn_detectors_fired: [],
      error_detectors_fired: [],
    });
  });

  it('condition gates the match', () => {
    const rc = recipe("{id: oom_under_8gb, match: {regex: out of memory, condition: 'peak_vram_mib < 8000'}}");
    expect(failingIds(scanLog(rc, 'out of memory\n', { exit_code: 1, walltime_sec: 1, peak_vram_mib: 4000 }))).toEqual([
      'custom:oom_under_8gb',
    ]);
    expect(failingIds(scanLog(rc, 'out of memory\n', { exit_code: 1, walltime_sec: 1, peak_vram_mib: 64000 }))).toEqual(
      [],
    );
  });

  it('required_for_pass: fired → pass (the firing is the pass signal); not fired → meta:missing_pass_signal', () => {
    const rc = recipe("{id: ok, match: {regex: 'benchmark (?P<state>passed)'}, required_for_pass: true}");
    // the scan reports the hit (kind `required`) and what is missing; the classifier decides
    expect(scanLog(rc, 'benchmark passed\n', VARS)).toMatchObject({
      capture: { state: 'passed' },
      detectors: [{ id: 'custom:ok', kind: 'required', line: 1, match: 'benchmark passed' }],
      missing_required: [],
    });
    expect(scanLog(rc, 'other output\n', VARS)).toMatchObject({ detectors: [], missing_required: ['custom:ok'] });
    expect(classifyLog(rc, 'benchmark passed\n', VARS)).toMatchObject({
      verdict: 'pass',
      failure_detectors_fired: [],
      warn_detectors_fired: [],
      capture: { state: 'passed' },
      detectors: [{ id: 'custom:ok', kind: 'required', line: 1, match: 'benchmark passed' }],
    });
    expect(classifyLog(rc, 'other output\n', VARS)).toMatchObject({
      verdict: 'fail',
      failure_detectors_fired: [MISSING_PASS_SIGNAL],
      detectors: [],
    });
    // on_match: info with required_for_pass means the same: the line must appear
    const info = recipe('{id: ok, match: {regex: benchmark passed}, on_match: info, required_for_pass: true}');
    expect(classifyLog(info, 'benchmark passed\n', VARS).verdict).toBe('pass');
    expect(classifyLog(info, 'nothing\n', VARS).failure_detectors_fired).toEqual([MISSING_PASS_SIGNAL]);
  });

  it('missing_pass_signal when ANY required pattern did not fire; it comes last', () => {
    const rc = recipe(
      '{id: a, match: {regex: alpha}, required_for_pass: true}',
      '{id: b, match: {regex: beta}, required_for_pass: true}',
      '{id: bad, match: {regex: gamma}}',
    );
    expect(scanLog(rc, 'gamma alpha\n', VARS)).toMatchObject({ missing_required: ['custom:b'] });
    expect(classifyLog(rc, 'gamma alpha\n', VARS).failure_detectors_fired).toEqual(['custom:bad', MISSING_PASS_SIGNAL]);
    expect(scanLog(rc, 'beta alpha\n', VARS)).toMatchObject({ missing_required: [] });
    expect(classifyLog(rc, 'beta alpha\n', VARS)).toMatchObject({ verdict: 'pass', failure_detectors_fired: [] });
    // a required line does not excuse a failure elsewhere
    expect(classifyLog(rc, 'beta alpha gamma\n', VARS)).toMatchObject({
      verdict: 'fail',
      failure_detectors_fired: ['custom:bad'],
    });
  });

  it('no match, no capture', () => {
    const rc = recipe("{id: bw, match: {regex: 'effective bandwidth: (?P<bw>[0-9]+) GB/s'}, on_match: info}");
    const r = scanLog(rc, 'totally unrelated log\n', VARS);
    expect(r).toMatchObject({ detectors: [], capture: {} });
    expect(classifyLog(rc, 'totally unrelated log\n', VARS)).toMatchObject({
      verdict: 'pass',
      failure_detectors_fired: [],
      capture: {},
    });
  });

  it('a huge log (≈6 MiB) is scanned in windows and still fires', () => {
    const text = 'xx\n'.repeat(2 * 1024 * 1024) + 'FATAL: kaboom\n';
    const r = scanLog(
      recipe(
        "{id: fatal, match: {regex: 'FATAL: (?P<what>\\w+)'}}",
        "{id: dotall, match: {regex: '(?s)xx.FATAL'}, on_match: warn}",
      ),
      text,
      VARS,
    );
    expect(failingIds(r)).toEqual(['custom:fatal']);
    expect(warningIds(r)).toEqual(['custom:dotall']);
    expect(r.capture).toEqual({ what: 'kaboom' });
  });

  it('windows are measured in UTF-8 bytes: a 3.6 MiB single line of CJK is scanned without exceeding the cap', () => {
    const text = '中'.repeat(1_200_000) + 'FATAL here';
    const r = scanLog(
      recipe('{id: fatal, match: {regex: FATAL}}', "{id: any, match: {regex: '(?s).+'}, on_match: info}"),
      text,
      VARS,
    );
    expect(failingIds(r)).toEqual(['custom:fatal']);
  });

  it('window overlap catches a straddling match (window 100)', () => {
    const text = 'x'.repeat(80) + 'FATAL: payload boundary kaboom' + 'y'.repeat(80);
    const r = scanLog(recipe("{id: straddle, match: {regex: 'FATAL: payload boundary kaboom'}}"), text, VARS, W100);
    expect(failingIds(r)).toEqual(['custom:straddle']);
  });

  it('no patterns → empty Tier 5 result', () => {
    expect(scanLog({ customPatterns: [] }, 'anything', VARS)).toMatchObject({
      detectors: [],
      capture: {},
      engine_failures: [],
      missing_required: [],
    });
    expect(
      classifyLog(
        { customPatterns: [], disableDetectors: [], disableDetectorTiers: [], detectorCategories: new Map() },
        'anything',
        VARS,
      ),
    ).toMatchObject({
      verdict: 'pass',
      failure_detectors_fired: [],
      warn_detectors_fired: [],
      capture: {},
    });
    expect(scanLog(null, 'anything', VARS).tier_durations_ms).toEqual({
      tier4: expect.any(Number),
      tier5: expect.any(Number),
    });
  });

  it('empty log: still scanned by Tier 5 (a regex matching "" fires), Tier 4 fires nothing', () => {
    expect(failingIds(scanLog(recipe('{id: x, match: {regex: x}}'), '', VARS))).toEqual([]);
    const rc = recipe(
      "{id: empty, match: {regex: '^(?P<all>x*)$'}}",
      "{id: cond, match: {regex: '^$', condition: 'exit_code == 3'}, on_match: warn}",
    );
    const r = scanLog(rc, '', { ...VARS, exit_code: 3 });
    expect(r.detectors.map((d) => [d.id, d.kind])).toEqual([
      ['custom:empty', 'fail'],
      ['custom:cond', 'warn'],
    ]);
    expect(r.capture).toEqual({ all: '' });
    // classified, exit code 3 adds Tier 1 (listed first)
    expect(classifyLog(rc, '', { ...VARS, exit_code: 3 })).toMatchObject({
      verdict: 'fail',
      failure_detectors_fired: [TIER1_EXIT_NONZERO, 'custom:empty'],
      warn_detectors_fired: ['custom:cond'],
      capture: { all: '' },
    });
  });
});

describe('first match whose condition holds (our semantics)', () => {
  const vram = recipe(
    "{id: big, match: {regex: 'vram=(?P<used>[0-9]+)', condition: \"int(capture['used']) > 1000\"}, on_match: warn}",
  );

  it('a later match in the same window fires when the first one fails the condition', () => {
    // The original evaluated only the first match per window and would not fire here.
    const r = scanLog(vram, 'vram=10\nvram=20\nvram=2000\nvram=3000\n', VARS);
    expect(warningIds(r)).toEqual(['custom:big']);
    expect(r.capture).toEqual({ used: '2000' });
  });

  it('the firing match may be several windows in', () => {
    const text = Array.from({ length: 40 }, (_, i) => `vram=${i}\n`).join('') + 'vram=5000\nvram=6000\n';
    const r = scanLog(vram, text, VARS, W100);
    expect(r.capture).toEqual({ used: '5000' });
  });

  it('a condition error counts as false, and a later match can still fire', () => {
    const rc = recipe("{id: f, match: {regex: 'v=(?P<v>\\S+)', condition: \"float(capture['v']) > 1\"}}");
    const r = scanLog(rc, 'v=abc\nv=0.5\nv=2.5\n', VARS);
    expect(failingIds(r)).toEqual(['custom:f']);
    expect(r.capture).toEqual({ v: '2.5' });
  });

  it('worked example: a NaN loss after ordinary loss lines', () => {
    const rc = recipe(
      "{id: nan_loss, match: {regex: 'loss=(?P<loss>\\S+)', condition: \"math.isnan(float(capture['loss']))\"}}",
    );
    const log = 'step 1 loss=0.5\nstep 2 loss=0.5\nstep 3 loss=0.5\nstep 4 loss=nan\nstep 5 loss=0.4\n';
    const r = scanLog(rc, log, VARS);
    // tier4:nan_signature (`loss=nan`, IGNORECASE) fires at the same offset; Tier 4 ranks first.
    expect(failingIds(r)).toEqual(['tier4:nan_signature', 'custom:nan_loss']);
    expect(r.capture).toEqual({ loss: 'nan' });
    expect(classifyLog(rc, log, VARS)).toMatchObject({
      verdict: 'fail',
      failure_detectors_fired: ['tier4:nan_signature', 'custom:nan_loss'],
    });
    const clean = scanLog(rc, 'step 1 loss=0.5\nstep 2 loss=0.5\n', VARS);
    expect(clean).toMatchObject({ detectors: [], capture: {} });
    expect(classifyLog(rc, 'step 1 loss=0.5\nstep 2 loss=0.5\n', VARS)).toMatchObject({
      verdict: 'pass',
      failure_detectors_fired: [],
      capture: {},
    });
  });

  it("the condition sees only its own match, not other patterns' captures", () => {
    const rc = recipe(
      "{id: a, match: {regex: 'a=(?P<a>[0-9]+)'}, on_match: info}",
      '{id: b, match: {regex: \'b=(?P<b>[0-9]+)\', condition: "len(capture) == 1"}, on_match: warn}',
    );
    const r = scanLog(rc, 'a=1\nb=2\n', VARS);
    expect(warningIds(r)).toEqual(['custom:b']);
    expect(r.capture).toEqual({ a: '1', b: '2' });
  });

  it('only participating named groups are captured', () => {
    const rc = recipe("{id: g, match: {regex: '(?P<x>x)|(?P<y>y)'}, on_match: info}");
    expect(scanLog(rc, '..y..x', VARS).capture).toEqual({ y: 'y' });
  });
});

describe('ordering and capture collisions', () => {
  it('detectors are listed by the offset of their firing match; ties: Tier 4 then recipe order', () => {
    const rc = recipe(
      '{id: late, match: {regex: zzz}}',
      '{id: early, match: {regex: aaa}}',
      '{id: tb, match: {regex: Traceback}}',
      '{id: tb2, match: {regex: Trace}}',
    );
    const r = scanLog(rc, 'aaa\nhipError_X\nTraceback (most recent call last):\nzzz\n', VARS);
    expect(failingIds(r)).toEqual([
      'custom:early',
      'tier4:hip_error',
      'tier4:python_traceback',
      'custom:tb',
      'custom:tb2',
      'custom:late',
    ]);
  });

  it('warn detectors are ordered by offset too', () => {
    const rc = recipe('{id: w1, match: {regex: one}, on_match: warn}', '{id: w2, match: {regex: two}, on_match: warn}');
    expect(warningIds(scanLog(rc, 'two one', VARS))).toEqual(['custom:w2', 'custom:w1']);
  });

  it('a capture collision is won by the pattern whose firing match comes later in the log', () => {
    const rc = recipe(
      "{id: p1, match: {regex: 'late (?P<k>[a-z]+)'}, on_match: info}",
      "{id: p2, match: {regex: 'early (?P<k>[a-z]+)'}, on_match: warn}",
    );
    expect(scanLog(rc, 'early one\nlate two\n', VARS).capture).toEqual({ k: 'two' });
    expect(scanLog(rc, 'late two\nearly one\n', VARS).capture).toEqual({ k: 'one' });
  });

  it('at the same offset the later pattern in recipe order wins', () => {
    const rc = recipe(
      "{id: p1, match: {regex: '(?P<k>[a-z]+)=1'}, on_match: info}",
      "{id: p2, match: {regex: '(?P<k>[a-z])'}, on_match: info}",
    );
    expect(scanLog(rc, 'abc=1', VARS).capture).toEqual({ k: 'a' });
  });
});

describe('windows', () => {
  const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

  it('default window keeps every call under the regex module cap', () => {
    expect(DEFAULT_WINDOW_BYTES).toBeLessThan(1 << 20);
    expect(overlapFor(100)).toBe(50);
    expect(overlapFor(DEFAULT_WINDOW_BYTES)).toBe(4096);
  });

  it('a text that fits is one window (also "")', () => {
    expect([...iterWindows('', W100)]).toEqual([{ text: '', base: 0, from: 0, ownEnd: 0, last: true }]);
    expect([...iterWindows('a'.repeat(100), W100)]).toHaveLength(1);
    expect([...iterWindows('a'.repeat(101), W100)]).toHaveLength(2);
  });

  it('windows are cut on code points within the byte budget and own a partition of the text', () => {
    const text = 'ab😀c中d\u00e9'.repeat(40) + '\ud800x'; // astral, 3-byte, 2-byte and a lone surrogate
    for (const wb of [16, 17, 50, 100, 101]) {
      const ws = [...iterWindows(text, { windowBytes: wb })];
      let owned = 0;
      for (const w of ws) {
        expect(bytes(w.text)).toBeLessThanOrEqual(wb + 4);
        expect(w.text).toBe(text.slice(w.base, w.base + w.text.length));
        expect(w.base + w.from).toBe(owned);
        owned = w.base + w.ownEnd;
        const c = w.text.charCodeAt(0);
        expect(
          c >= 0xdc00 &&
            c <= 0xdfff &&
            w.base > 0 &&
            text.charCodeAt(w.base - 1) >= 0xd800 &&
            text.charCodeAt(w.base - 1) <= 0xdbff,
        ).toBe(false);
      }
      expect(owned).toBe(text.length);
      expect(ws.at(-1)!.last).toBe(true);
    }
  });

  it('`$`, `\b` and `z` at a window end do not match: a match ending there is owned only if longer than the overlap', () => {
    // Window 1 of 100 bytes ends exactly after "error" / "foo"; the whole text has neither match.
    const rc = recipe(
      "{id: eol, match: {regex: 'error$'}, on_match: fail}",
      "{id: word, match: {regex: 'foo\\b'}, on_match: fail}",
      "{id: tail, match: {regex: '(?P<tail>\\w+)\\Z'}, on_match: info}",
    );
    // Every window of the 'z z z …' run also ends right after a word: only the log's last word is at its end.
    for (const text of [
      '.'.repeat(95) + 'error' + ' happened ' + 'z '.repeat(80) + 'end',
      '.'.repeat(97) + 'foo' + 'bar ' + 'z '.repeat(80) + 'end',
    ]) {
      const r = scanLog(rc, text, VARS, W100);
      expect(failingIds(r)).toEqual([]);
      expect(r.capture).toEqual({ tail: 'end' });
    }
    // At the real end of the log both still match.
    expect(failingIds(scanLog(rc, '.'.repeat(150) + ' error', VARS, W100))).toEqual(['custom:eol']);
  });

  it('a match inside an overlap is reported once, at its absolute offset', () => {
    // window 1 = [0,100) owns [0,50); window 2 = [50,150): "FATAL" at 60 is in both.
    const text = 'x'.repeat(60) + 'FATAL' + 'y'.repeat(200);
    const re = compileRegex('FATAL');
    try {
      expect([...windowedMatches(re, text, W100)].map((m) => [m.index, m.end, m.match])).toEqual([[60, 65, 'FATAL']]);
    } finally {
      re.dispose();
    }
    const rc = recipe("{id: f, match: {regex: '(?P<w>FATAL)'}, on_match: info}");
    expect(scanLog(rc, text, VARS, W100).capture).toEqual({ w: 'FATAL' });
  });

  it('windowed matches equal matchAll over the whole text (short matches)', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ['a', 'b', '\n', ' ', '😀', '中', 'é', 'ab', 'ba'];
    const patterns: [string, string][] = [
      ['ab+', ''],
      ['^a', 'm'],
      ['b$', 'm'],
      ['\\bab\\b', ''],
      ['(?P<x>a)|(?P<y>😀)', ''],
      ['x*', ''],
      ['中.', 's'],
    ];
    for (let t = 0; t < 20; t++) {
      let text = '';
      while (text.length < 300 + t * 20) text += alphabet[rand(alphabet.length)];
      for (const [p, f] of patterns) {
        const re = compileRegex(p, f);
        try {
          const whole = [...matchAll(re, text)].map((m) => [m.index, m.end, m.match, m.named]);
          for (const wb of [16, 40, 100]) {
            const win = [...windowedMatches(re, text, { windowBytes: wb })].map((m) => [
              m.index,
              m.end,
              m.match,
              m.named,
            ]);
            expect(win, `${p} window ${wb}`).toEqual(whole);
          }
        } finally {
          re.dispose();
        }
      }
    }
  });

  it('astral characters: offsets are UTF-16 and ordering follows them', () => {
    const text = '😀'.repeat(60) + ' NCCL error ' + '😀'.repeat(10) + 'hipError_X ' + '𝔘'.repeat(80) + 'code=42 ';
    const rc = recipe(
      "{id: code, match: {regex: 'code=(?P<c>[0-9]+)'}}",
      "{id: emo, match: {regex: '(?P<e>😀+) NCCL'}, on_match: info}",
    );
    for (const options of [{}, W100]) {
      const r = scanLog(rc, text, VARS, options);
      expect(failingIds(r)).toEqual(['tier4:nccl_rccl_error', 'tier4:hip_error', 'custom:code']);
      expect(r.capture.c).toBe('42');
    }
    // Full-text semantics capture all 60 emoji; a 100-byte window sees at least overlap (50 bytes) after the start.
    expect(scanLog(rc, text, VARS).capture.e).toBe('😀'.repeat(60));
    const re = compileRegex('hipError_X');
    try {
      const [m] = [...windowedMatches(re, text, W100)];
      expect(m!.index).toBe(text.indexOf('hipError_X'));
      expect(m!.index).toBe(60 * 2 + 12 + 10 * 2);
    } finally {
      re.dispose();
    }
  });

  it('rejects a window size outside the supported range', () => {
    expect(() => [...iterWindows('abc', { windowBytes: 8 })]).toThrow(RangeError);
    expect(() => [...iterWindows('abc', { windowBytes: 1 << 20 })]).toThrow(RangeError);
  });
});
