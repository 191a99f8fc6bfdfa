// Issue 34: every front door classifies a log under a recipe the same way (src/classifier/classify-log.ts).
// Seeded cases of recipe × log × exit code — disables of every kind, required patterns, warn/info patterns,
// conditions that read exit_code or raise, category overrides, injected engine failures — go through `scan --json`
// (the CLI in-process), `classifyLog`, the self-test path, the playground's scan module and, for a subset, a real
// `run` whose command replays the log and exits with the code (result.json). All must agree on the verdict, the
// detector lists, the captures, the `detectors` records and the engine failures. `scanLog` is the scan stage (no
// verdict): where nothing is disabled and the exit is 0 its hits are the classification's, less the categories.
//
// The engine failure is injected as in test/containment-engine-failure.test.ts: `matchAll` aborts for a pattern
// containing BOOM over a window holding `<abort>`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cliInProcess } from './support/run-cli.js';
import { rng } from './support/rng.js';

vi.mock('../src/regex/index.js', async (importOriginal) =>
  (await import('./support/engine-abort.js')).withInjectedAbort(await importOriginal()),
);

const { classifyLog, scanLog, TIER4_PATTERNS } = await import('../src/index.js');
const { loadRecipe } = await import('../src/recipe/index.js');
const { runSelfTest } = await import('../src/classifier/self-test.js');
const { runTrial } = await import('../src/trial/index.js');
const { scanRecipeLog } = await import('../playground/src/scan-log.js');

const root = mkdtempSync(join(tmpdir(), 'aorta-classify-diff-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FAKE_KERNEL = join(dirname(fileURLToPath(import.meta.url)), 'support', 'fake-kernel-tools');

interface PatternSpec {
  readonly id: string;
  readonly regex: string;
  readonly condition: string | null;
  readonly lines: readonly string[];
}

const PATTERNS: readonly PatternSpec[] = [
  { id: 'bad', regex: 'BAD (?P<code>\\w+)', condition: null, lines: ['BAD x1', 'BAD y2'] },
  {
    id: 'slow',
    regex: 'slow step (?P<ms>\\d+)',
    condition: "int(capture['ms']) > 100",
    lines: ['slow step 50', 'slow step 500'],
  },
  { id: 'note', regex: 'note (?P<note>\\w+)', condition: null, lines: ['note hello'] },
  { id: 'done', regex: 'DONE!', condition: null, lines: ['DONE!'] },
  { id: 'hint', regex: 'hint (?P<h>\\w+)', condition: 'exit_code != 0', lines: ['hint oom'] },
  // Raises for a value that is not a number: "did not fire".
  { id: 'val', regex: 'val=(?P<v>\\S+)', condition: "float(capture['v']) > 1.5", lines: ['val=2.5', 'val=abc'] },
  // Raises (division by zero) at tick 5.
  {
    id: 'tick',
    regex: 'tick (?P<t>\\d+)',
    condition: "int(capture['t']) // (int(capture['t']) - 5) > 0",
    lines: ['tick 5', 'tick 7'],
  },
  { id: 'boom', regex: 'BOOM (?P<b>\\w+)', condition: null, lines: ['<abort> BOOM z'] },
];
const TIER4_LINES = TIER4_PATTERNS.map((p) => p.sample);
const EXIT_CODES = [0, 0, 0, 1, 2, 137, -6, -7, -9, -11];
const CATEGORIES = [null, 'rccl_hang', 'illegal_mem'];

interface Case {
  readonly n: number;
  readonly yaml: string;
  readonly log: string;
  readonly exitCode: number;
  /** Nothing disabled: scanLog's raw firings are then the classification, less the categories. */
  readonly noDisables: boolean;
}

function makeCase(n: number): Case {
  const r = rng(0x34_0000 + n);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  // A quiet case: an engine failure in a log where little else can fire, so that verdict `error` occurs.
  const quiet = r() < 0.15;
  let chosen = PATTERNS.filter((p) => r() < 0.6 || (quiet && p.id === 'boom'));
  if (chosen.length === 0) chosen = [pick(PATTERNS)];
  const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;
  const patterns = chosen.map((p) => {
    const category = pick(CATEGORIES);
    const onMatch = pick(['fail', 'fail', 'warn', 'info']);
    return [
      `  - id: ${p.id}`,
      '    match:',
      `      regex: ${q(p.regex)}`,
      ...(p.condition === null ? [] : [`      condition: ${JSON.stringify(p.condition)}`]),
      `    on_match: ${onMatch}`,
      // Only a fail pattern may be required (the loader rejects the others).
      ...(onMatch === 'fail' && r() < 0.35 ? ['    required_for_pass: true'] : []),
      ...(category === null ? [] : [`    category: ${category}`]),
    ].join('\n');
  });
  const tiers = ['tier1', 'tier3', 'tier4', 'tier5'].filter(() => r() < 0.1);
  const ids = [
    ...TIER4_PATTERNS.map((p) => p.detectorId).filter(() => r() < 0.1),
    ...chosen.map((p) => `custom:${p.id}`).filter(() => r() < 0.15),
    ...['meta:regex_engine_failure', 'meta:missing_pass_signal', 'tier1:exit_nonzero', 'tier1:sigabrt'].filter(
      () => r() < 0.12,
    ),
  ];
  const overrides = r() < 0.2 ? ['detector_categories:', '  tier4:hip_error: {who: user, transient: true}'] : [];
  const yaml = [
    'schema_version: 1',
    'mode: probe',
    'trials: 1',
    'mitigation_axis: [none]',
    'diagnostic_axis: [none]',
    'custom_patterns:',
    ...patterns,
    `disable_detectors: [${ids.join(', ')}]`,
    `disable_detector_tiers: [${tiers.join(', ')}]`,
    ...overrides,
  ].join('\n');
  const pool = quiet
    ? ['plain line', 'note hello', 'DONE!']
    : [...chosen.flatMap((p) => p.lines), ...TIER4_LINES, 'plain line', 'step 3 ok'];
  const lines = Array.from({ length: Math.floor(r() * 7) }, () => pick(pool));
  if (quiet) lines.splice(Math.floor(r() * (lines.length + 1)), 0, '<abort> BOOM z');
  const log = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  const exitCode = quiet ? 0 : pick(EXIT_CODES);
  return { n, yaml, log, exitCode, noDisables: tiers.length === 0 && ids.length === 0 };
}

/** The fields every front door reports, as `scan --json` names them. */
interface Seen {
  verdict: string;
  failure_detectors_fired: string[];
  error_detectors_fired: string[];
  warn_detectors_fired: string[];
  capture: Record<string, string>;
  detectors: unknown[];
  engine_failures: { pattern: string; line: number; message: string }[];
}

const seen = (r: Seen): Seen => ({
  verdict: r.verdict,
  failure_detectors_fired: r.failure_detectors_fired,
  error_detectors_fired: r.error_detectors_fired,
  warn_detectors_fired: r.warn_detectors_fired,
  capture: { ...r.capture },
  detectors: r.detectors,
  engine_failures: r.engine_failures.map((f) => ({ pattern: f.pattern, line: f.line, message: f.message })),
});

const VARS = (exitCode: number) => ({ exit_code: exitCode, walltime_sec: 0, peak_vram_mib: null });

interface Written {
  readonly recipePath: string;
  readonly logPath: string;
}

function write(c: Case): Written {
  const recipePath = join(root, `c${c.n}.yaml`);
  const logPath = join(root, `c${c.n}.log`);
  writeFileSync(recipePath, c.yaml);
  writeFileSync(logPath, c.log);
  return { recipePath, logPath };
}

const CASES = Array.from({ length: 220 }, (_, i) => makeCase(i));

describe('classify-differential: scan --json, classifyLog, self-tests, the playground and run agree', () => {
  it('the generated cases cover every kind of disable, exit code and outcome', () => {
    const all = CASES.map((c) => c.yaml).join('\n');
    for (const needle of ['tier1', 'tier4', 'tier5', 'tier4:', 'custom:', 'meta:regex_engine_failure'])
      expect(all).toContain(needle);
    expect(new Set(CASES.map((c) => c.exitCode))).toEqual(new Set(EXIT_CODES));
  });

  it('220 cases: scan --json = classifyLog = the self-test path = the playground; scanLog where nothing is disabled', async () => {
    const verdicts = new Map<string, number>();
    for (const c of CASES) {
      const { recipePath, logPath } = write(c);
      const recipe = loadRecipe(c.yaml, recipePath);
      const vars = VARS(c.exitCode);
      const cli = await cliInProcess([
        'scan',
        '--recipe',
        recipePath,
        logPath,
        '--exit-code',
        String(c.exitCode),
        '--json',
      ]);
      const json = JSON.parse(cli.out) as Seen;
      const want = seen(json);
      const label = `case ${c.n}: ${JSON.stringify(c.log)} exit ${c.exitCode}\n${c.yaml}`;
      expect(cli.code, label).toBe({ pass: 0, fail: 1, error: 3 }[json.verdict]);
      verdicts.set(json.verdict, (verdicts.get(json.verdict) ?? 0) + 1);
      if (json.engine_failures.length > 0) verdicts.set('engine failures', (verdicts.get('engine failures') ?? 0) + 1);

      const lib = classifyLog(recipe, c.log, vars);
      expect(seen(lib), label).toEqual(want);

      const sample = {
        name: 'x',
        log: c.log,
        exitCode: c.exitCode,
        walltimeSec: 0,
        peakVramMib: null,
        expectVerdict: 'pass' as const,
        expectDetectors: null,
        expectCapture: null,
        line: 1,
        col: 1,
      };
      const st = runSelfTest(recipe, sample).got;
      expect(st, label).toEqual({
        verdict: want.verdict,
        detectors: [...want.failure_detectors_fired, ...want.error_detectors_fired, ...want.warn_detectors_fired],
        capture: want.capture,
      });

      const pg = await scanRecipeLog(recipe, c.log, vars);
      expect(seen(pg), label).toEqual(want);

      if (c.noDisables && c.exitCode === 0) {
        const raw = scanLog(recipe, c.log, vars);
        const strip = (d: unknown): unknown => {
          const { who: _w, transient: _t, category: _c, ...rest } = d as Record<string, unknown>;
          return rest;
        };
        // The raw stage decides nothing: its hits, captures and engine failures are the classification's, and a
        // missed required pattern is what meta:missing_pass_signal says.
        expect(
          {
            capture: { ...raw.capture },
            detectors: raw.detectors,
            engine_failures: raw.engine_failures.map((f) => ({ pattern: f.pattern, line: f.line, message: f.message })),
            missing: raw.missing_required.length > 0,
          },
          label,
        ).toEqual({
          capture: want.capture,
          detectors: want.detectors.map(strip),
          engine_failures: want.engine_failures,
          missing: want.failure_detectors_fired.includes('meta:missing_pass_signal'),
        });
      }
    }
    // Every verdict occurs, and engine failures (the comparison is not over a single outcome).
    expect([...verdicts.keys()].sort()).toEqual(['engine failures', 'error', 'fail', 'pass']);
  }, 120_000);

  it("20 cases: run's result.json from a command that replays the log and exits with the code agrees", async () => {
    for (const c of CASES.filter((c) => c.exitCode !== 0 || c.n % 3 === 0).slice(0, 20)) {
      const { recipePath, logPath } = write(c);
      const recipe = loadRecipe(c.yaml, recipePath);
      const want = seen(classifyLog(recipe, c.log, VARS(c.exitCode)));
      const exit = c.exitCode < 0 ? `kill -${-c.exitCode} $$` : `exit ${c.exitCode}`;
      const { result } = await runTrial(recipe, ['sh', '-c', `ulimit -c 0; cat '${logPath}'; ${exit}`], {
        outDir: join(root, `run${c.n}`),
        gpuTool: 'none',
        killGraceMs: 500,
        // No kernel log to read: Tier 3 stays silent (and the host's kernel out of the comparison).
        runnerEnv: { PATH: `${FAKE_KERNEL}:/usr/bin:/bin`, FAKE_KERNEL_LOG: join(root, 'no-kernel-log') },
      });
      const label = `case ${c.n}: ${JSON.stringify(c.log)} exit ${c.exitCode}\n${c.yaml}`;
      expect(result.exit_code, label).toBe(c.exitCode);
      expect(seen(result as unknown as Seen), label).toEqual(want);
    }
  }, 60_000);
});
