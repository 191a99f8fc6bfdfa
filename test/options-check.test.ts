/**
 * Option objects checked at the front doors (src/text/options.ts): every public function that takes an options
 * object refuses a key it does not know — misspelt, or put at the wrong level — with an `OptionsError` naming the key
 * and the one most likely meant, and accepts every key of its table (and of a hand-written list, for the most-used
 * ones, so that a table that loses a key fails here too).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLASSIFY_LOG_OPTION_KEYS } from '../src/classifier/classify-log.js';
import { COMPILE_OPTION_KEYS } from '../src/condition/evaluate.js';
import { GPU_SAMPLER_OPTION_KEYS } from '../src/gpu/sampler.js';
import { OptionsError as RootOptionsError } from '../src/index.js';
import {
  aggregateResults,
  classifyLog,
  compileCondition,
  compileRegex,
  emitK8s,
  emitSlurm,
  formatReport,
  GpuSampler,
  HangMonitor,
  loadRecipe,
  loadRecipeCollecting,
  loadSweepPlan,
  matchAll,
  readResults,
  ready,
  recipeErrors,
  runSweep,
  runTrial,
  scanFile,
  scanLog,
  scanStream,
  searchRegex,
  testRegex,
  TextScrubber,
  TrialLogScanner,
  type ScanVars,
  type SweepPlan,
  type TrialOptions,
} from '../src/node.js';
import { LOAD_RECIPE_OPTION_KEYS } from '../src/recipe/types.js';
import { TEXT_SCRUB_OPTION_KEYS } from '../src/redact/text.js';
import { REGEX_COMPILE_OPTION_KEYS } from '../src/regex/compile.js';
import { READY_OPTION_KEYS } from '../src/regex/engine-loader.js';
import { MATCH_OPTION_KEYS } from '../src/regex/match.js';
import { AGGREGATE_OPTION_KEYS } from '../src/report/aggregate.js';
import { FORMAT_OPTION_KEYS } from '../src/report/index.js';
import { READ_RESULTS_OPTION_KEYS } from '../src/report/read-results.js';
import { SCAN_OPTION_KEYS } from '../src/scan/scan.js';
import { K8S_OPTION_KEYS, SLURM_OPTION_KEYS } from '../src/sweep/emit.js';
import { PLAN_OPTION_KEYS } from '../src/sweep/plan.js';
import { SWEEP_OPTION_KEYS } from '../src/sweep/run-sweep.js';
import {
  checkOptions,
  nested,
  OPTION,
  OptionsError,
  withoutKeys,
  type OptionKeys,
  type OptionTable,
} from '../src/text/options.js';
import { LOG_SCANNER_OPTION_KEYS } from '../src/trial/log-scanner.js';
import { TRIAL_OPTION_KEYS } from '../src/trial/run-trial.js';
import { HANG_MONITOR_OPTION_KEYS } from '../src/trial/tier2-hang.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-options-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const missing = join(root, 'missing');

const VARS: ScanVars = { exit_code: 0, walltime_sec: 1, peak_vram_mib: null };
const RECIPE = 'schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n';
const PLAN = { ticket: 'T-1', tasks: [] } as unknown as SweepPlan;
const PROBES = { ioTotal: async () => null, gpuUtilizationPct: () => null, now: () => 0 };

/** What `f` threw (or its promise rejected with), else null. */
async function errorOf(f: () => unknown): Promise<unknown> {
  try {
    const r = f();
    if (r instanceof Promise) await r;
    else if (r !== null && typeof r === 'object' && Symbol.iterator in r) [...(r as Iterable<unknown>)];
    return null;
  } catch (e) {
    return e;
  }
}

/** The message of the `OptionsError` `f` throws (failing when it throws anything else, or nothing). */
async function optionsMessage(f: () => unknown): Promise<string> {
  const e = await errorOf(f);
  expect(e).toBeInstanceOf(OptionsError);
  return (e as OptionsError).message;
}

const isObject = (o: unknown): o is object => typeof o === 'object' && o !== null && !Array.isArray(o);

/** Every key of a table, at every depth, with the value `undefined` (a key not given), nested tables as objects. */
function everyKey(keys: OptionKeys): Record<string, unknown> {
  return Object.fromEntries(Object.entries(keys).map(([k, e]) => [k, e === OPTION ? undefined : everyKey(e.keys)]));
}

/** Sets the dotted `path` of `o` (creating the objects on the way) to undefined. */
function withPath(path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let at = out;
  const parts = path.split('.');
  for (const p of parts.slice(0, -1)) at = at[p] = {} as Record<string, unknown>;
  at[parts[parts.length - 1]!] = undefined;
  return out;
}

interface FrontDoor {
  /** As the message names it. */
  readonly name: string;
  readonly keys: OptionKeys;
  /** Calls the function with `options`: cheaply (past the check it stops early, or runs on a tiny input). */
  readonly call: (options: unknown) => unknown;
  /** A misspelt or misplaced key, and the whole message it gets. */
  readonly wrong: Record<string, unknown>;
  readonly message: string;
}

const regex = compileRegex('a+');
afterAll(() => regex.dispose());

// Every public function of src/index.ts and src/node.ts that takes an options object.
const FRONT_DOORS: readonly FrontDoor[] = [
  {
    name: 'compileCondition',
    keys: COMPILE_OPTION_KEYS,
    call: (o) => compileCondition('exit_code == 0', o as never),
    wrong: { costbudget: 10 },
    message: "compileCondition(): unknown option 'costbudget' — did you mean 'costBudget'?",
  },
  {
    name: 'loadRecipe',
    keys: LOAD_RECIPE_OPTION_KEYS,
    call: (o) => loadRecipe(RECIPE, 'r.yaml', o as never),
    wrong: { mitigation: new Map() },
    message: "loadRecipe(): unknown option 'mitigation' — did you mean 'mitigations'?",
  },
  {
    name: 'loadRecipeCollecting',
    keys: LOAD_RECIPE_OPTION_KEYS,
    call: (o) => loadRecipeCollecting(RECIPE, 'r.yaml', o as never),
    wrong: { compileregex: () => {} },
    message: "loadRecipeCollecting(): unknown option 'compileregex' — did you mean 'compileRegex'?",
  },
  {
    name: 'recipeErrors',
    keys: LOAD_RECIPE_OPTION_KEYS,
    call: (o) => recipeErrors(RECIPE, 'r.yaml', o as never),
    wrong: { registry: new Map() },
    message: "recipeErrors(): unknown option 'registry'",
  },
  {
    name: 'classifyLog',
    keys: CLASSIFY_LOG_OPTION_KEYS,
    call: (o) => classifyLog(null, 'ok\n', VARS, o as never),
    wrong: { disableDetector: ['tier4'] },
    message: "classifyLog(): unknown option 'disableDetector' — did you mean 'disableDetectors'?",
  },
  {
    name: 'scanLog',
    keys: SCAN_OPTION_KEYS,
    call: (o) => scanLog(null, 'ok\n', VARS, o as never),
    wrong: { windowSize: 100 },
    message: "scanLog(): unknown option 'windowSize'",
  },
  {
    name: 'scanStream',
    keys: SCAN_OPTION_KEYS,
    call: (o) => scanStream(null, ['ok\n'], VARS, o as never),
    wrong: { disableDetectors: [] }, // classifyLog's, not the scan's
    message: "scanStream(): unknown option 'disableDetectors'",
  },
  {
    name: 'scanFile',
    keys: SCAN_OPTION_KEYS,
    call: (o) => scanFile(null, missing, VARS, o as never),
    wrong: { window_bytes: 100 },
    message: "scanFile(): unknown option 'window_bytes' — did you mean 'windowBytes'?",
  },
  {
    name: 'compileRegex',
    keys: REGEX_COMPILE_OPTION_KEYS,
    call: (o) => compileRegex('b+', '', o as never).dispose(),
    wrong: { engineVouch: true },
    message: "compileRegex(): unknown option 'engineVouch' — did you mean 'engineVouched'?",
  },
  {
    name: 'matchAll',
    keys: MATCH_OPTION_KEYS,
    call: (o) => matchAll(regex, 'aa b aaa', 0, o as never),
    wrong: { engine: 're2', wellformed: true },
    message: "matchAll(): unknown option 'wellformed' — did you mean 'wellFormed'?",
  },
  {
    name: 'searchRegex',
    keys: MATCH_OPTION_KEYS,
    call: (o) => searchRegex(regex, 'aa b aaa', 0, o as never),
    wrong: { maxSubject: 100 },
    message: "searchRegex(): unknown option 'maxSubject' — did you mean 'maxSubjectBytes'?",
  },
  {
    name: 'testRegex',
    keys: MATCH_OPTION_KEYS,
    call: (o) => testRegex(regex, 'aa b aaa', 0, o as never),
    wrong: { Engine: 're2' },
    message: "testRegex(): unknown option 'Engine' — did you mean 'engine'?",
  },
  {
    name: 'ready',
    keys: READY_OPTION_KEYS,
    call: (o) => ready(o as never),
    wrong: { re2wasm: 'https://example.invalid/re2.wasm' },
    message: "ready(): unknown option 're2wasm' — did you mean 're2Wasm'?",
  },
  {
    name: 'new TextScrubber',
    keys: TEXT_SCRUB_OPTION_KEYS,
    call: (o) => new TextScrubber(o as never).dispose(),
    wrong: { scrubPaths: true, scrubIpAddress: true, scrubSecrets: true },
    message: "new TextScrubber(): unknown option 'scrubIpAddress' — did you mean 'scrubIpAddresses'?",
  },
  {
    name: 'runTrial',
    keys: TRIAL_OPTION_KEYS,
    // An empty argv is refused right after the check: nothing runs.
    call: (o) => runTrial(null, [], o as never),
    wrong: { outDir: root, hangAction: 'kill' },
    message: "runTrial(): unknown option 'hangAction' — did you mean 'hang.hangAction'?",
  },
  {
    name: 'new TrialLogScanner',
    keys: LOG_SCANNER_OPTION_KEYS,
    call: (o) => new TrialLogScanner(null, o as never),
    wrong: { candidateBudget: { candidates: 10, unit: 100 } },
    message: "new TrialLogScanner(): unknown option 'candidateBudget.unit' — did you mean 'candidateBudget.units'?",
  },
  {
    name: 'new HangMonitor',
    keys: HANG_MONITOR_OPTION_KEYS,
    call: (o) => new HangMonitor(o as never),
    wrong: { windowSec: 60, graceSec: 0, progress: false, probes: PROBES, pollSecs: 1 },
    message: "new HangMonitor(): unknown option 'pollSecs' — did you mean 'pollSec'?",
  },
  {
    name: 'GpuSampler.create',
    keys: GPU_SAMPLER_OPTION_KEYS,
    // With tool 'none' (for options that are an object): no GPU tool is looked for.
    call: (o) => GpuSampler.create(isObject(o) ? { ...o, tool: 'none' } : (o as never)),
    wrong: { interval: 500 },
    message: "GpuSampler.create(): unknown option 'interval' — did you mean 'intervalMs'?",
  },
  {
    name: 'runSweep',
    keys: SWEEP_OPTION_KEYS,
    // An empty (or missing) argv is refused right after the check: nothing runs.
    call: (o) => runSweep(o as never),
    wrong: { plan: PLAN, argv: ['true'], outDir: root, gpuTool: 'none' },
    message: "runSweep(): unknown option 'gpuTool' — did you mean 'trial.gpuTool'?",
  },
  {
    name: 'loadSweepPlan',
    keys: PLAN_OPTION_KEYS,
    call: (o) => loadSweepPlan(missing, o as never),
    wrong: { trial: 3 },
    message: "loadSweepPlan(): unknown option 'trial' — did you mean 'trials'?",
  },
  {
    name: 'emitSlurm',
    keys: SLURM_OPTION_KEYS,
    call: (o) => emitSlurm(PLAN, o as never),
    wrong: { partition: 'gpu' },
    message: "emitSlurm(): unknown option 'partition'",
  },
  {
    name: 'emitK8s',
    keys: K8S_OPTION_KEYS,
    call: (o) => emitK8s(PLAN, o as never),
    wrong: { backoffLimit: 2 },
    message: "emitK8s(): unknown option 'backoffLimit' — did you mean 'backoffLimitPerIndex'?",
  },
  {
    name: 'readResults',
    keys: READ_RESULTS_OPTION_KEYS,
    call: (o) => readResults([], o as never),
    wrong: { runID: 'r' },
    message: "readResults(): unknown option 'runID' — did you mean 'runId'?",
  },
  {
    name: 'aggregateResults',
    keys: AGGREGATE_OPTION_KEYS,
    call: (o) => aggregateResults([], o as never),
    wrong: { example: false },
    message: "aggregateResults(): unknown option 'example' — did you mean 'examples'?",
  },
  {
    name: 'formatReport',
    keys: FORMAT_OPTION_KEYS,
    call: async (o) => formatReport('html', await aggregateResults([]), [], o as never),
    wrong: { linkbase: '.' },
    message: "formatReport(): unknown option 'linkbase' — did you mean 'linkBase'?",
  },
];

describe('every front door checks its options', () => {
  it.each(FRONT_DOORS)('$name: a misspelt or misplaced key is an OptionsError with the whole message', async (d) => {
    expect(await optionsMessage(() => d.call(d.wrong))).toBe(d.message);
  });

  it.each(FRONT_DOORS)('$name: every key of its table passes, at every depth', async (d) => {
    expect(await errorOf(() => d.call(everyKey(d.keys)))).not.toBeInstanceOf(OptionsError);
    for (const k of Object.keys(d.keys)) {
      expect(await errorOf(() => d.call({ [k]: undefined })), k).not.toBeInstanceOf(OptionsError);
    }
  });

  it.each(FRONT_DOORS)('$name: options that are not an object are an OptionsError', async (d) => {
    for (const [value, what] of [
      [null, 'null'],
      ['windowBytes', 'a string'],
      [[], 'an array'],
      [7, 'a number'],
    ] as const) {
      expect(await optionsMessage(() => d.call(value))).toBe(`${d.name}(): options must be an object, not ${what}`);
    }
  });

  it('the package root exports the error class', () => {
    expect(RootOptionsError).toBe(OptionsError);
    expect(new OptionsError('f', 'k', null, 'm')).toBeInstanceOf(TypeError);
  });
});

/**
 * The keys as the docs and the interfaces spell them, written out by hand (not read from the tables): a table that
 * loses one fails here, not only in `tsc`.
 */
const BY_HAND: Readonly<Record<string, readonly string[]>> = {
  runTrial: [
    'outDir',
    'timeoutSec',
    'killGraceMs',
    'echo',
    'gpuTool',
    'gpuIntervalMs',
    'gpuDevices',
    'gpuSamplerFactory',
    'env',
    'runnerEnv',
    'cwd',
    'signal',
    'forceKill',
    'onProgress',
    'scan',
    'scan.windowBytes',
    'scan.candidateBudget',
    'scan.candidateBudget.candidates',
    'scan.candidateBudget.units',
    'scan.spillDir',
    'onSpawn',
    'outDirShown',
    'disableDetectors',
    'hang',
    'hang.hangWindowSec',
    'hang.hangGracePeriodAtStart',
    'hang.progressRegex',
    'hang.hangAction',
    'onHang',
  ],
  runSweep: [
    'plan',
    'argv',
    'outDir',
    'parallel',
    'gpus',
    'gpus.devices',
    'gpus.perTrial',
    'gpus.envVars',
    'taskIndex',
    'env',
    'trial',
    'trial.timeoutSec',
    'trial.killGraceMs',
    'trial.gpuTool',
    'trial.gpuIntervalMs',
    'trial.gpuSamplerFactory',
    'trial.runnerEnv',
    'trial.cwd',
    'trial.scan.windowBytes',
    'trial.scan.candidateBudget.candidates',
    'trial.scan.candidateBudget.units',
    'trial.scan.spillDir',
    'trial.onSpawn',
    'trial.outDirShown',
    'trial.disableDetectors',
    'trial.hang.hangWindowSec',
    'trial.hang.hangGracePeriodAtStart',
    'trial.hang.progressRegex',
    'trial.hang.hangAction',
    'trial.onHang',
    'signal',
    'forceKill',
    'onEvent',
    'fresh',
    'recipeBytes',
    'onWarning',
    'sidecars',
  ],
  classifyLog: ['windowBytes', 'disableDetectors'],
  loadRecipe: ['compileRegex', 'mitigations'],
  compileCondition: ['heapLimitBytes', 'costBudget', 'reprLimit'],
};

describe('the most-used front doors take every key their docs name', () => {
  it.each(Object.entries(BY_HAND))('%s', async (name, paths) => {
    const door = FRONT_DOORS.find((d) => d.name === name)!;
    for (const path of paths)
      expect(await errorOf(() => door.call(withPath(path))), path).not.toBeInstanceOf(OptionsError);
  });

  it('the sweep refuses the runTrial options it sets itself, under trial', async () => {
    const sweep = FRONT_DOORS.find((d) => d.name === 'runSweep')!;
    for (const key of ['outDir', 'env', 'signal', 'forceKill', 'gpuDevices', 'echo', 'onProgress']) {
      const e = await errorOf(() => sweep.call({ trial: { [key]: undefined } }));
      expect(e, key).toBeInstanceOf(OptionsError);
      expect((e as OptionsError).key).toBe(`trial.${key}`);
    }
  });
});

describe('nested option objects', () => {
  const sweep = (extra: Record<string, unknown>): Promise<unknown> =>
    runSweep({ plan: PLAN, argv: [], outDir: root, ...extra } as never);
  const trial = (extra: Record<string, unknown>): Promise<unknown> =>
    runTrial(null, [], { outDir: root, ...extra } as TrialOptions);

  it('a key one level off is found where it belongs, with the path in the error', async () => {
    const e = await errorOf(() => sweep({ gpuTool: 'none' }));
    expect(e).toBeInstanceOf(OptionsError);
    expect(e).toMatchObject({
      name: 'OptionsError',
      functionName: 'runSweep',
      key: 'gpuTool',
      suggestion: 'trial.gpuTool',
    });
    expect(await optionsMessage(() => sweep({ devices: ['0'] }))).toBe(
      "runSweep(): unknown option 'devices' — did you mean 'gpus.devices'?",
    );
    expect(await optionsMessage(() => sweep({ trial: { parallel: 2 } }))).toBe(
      "runSweep(): unknown option 'trial.parallel' — did you mean 'parallel'?",
    );
    expect(await optionsMessage(() => trial({ windowBytes: 1024 }))).toBe(
      "runTrial(): unknown option 'windowBytes' — did you mean 'scan.windowBytes'?",
    );
  });

  it('a misspelt key inside a nested object, at any depth', async () => {
    expect(await optionsMessage(() => sweep({ trial: { gpuTol: 'none' } }))).toBe(
      "runSweep(): unknown option 'trial.gpuTol' — did you mean 'trial.gpuTool'?",
    );
    expect(await optionsMessage(() => sweep({ trial: { scan: { windowByte: 100 } } }))).toBe(
      "runSweep(): unknown option 'trial.scan.windowByte' — did you mean 'trial.scan.windowBytes'?",
    );
    expect(await optionsMessage(() => sweep({ gpus: { devices: ['0'], perTrail: 1 } }))).toBe(
      "runSweep(): unknown option 'gpus.perTrail' — did you mean 'gpus.perTrial'?",
    );
    expect(await optionsMessage(() => trial({ hang: { hangWindow: 5 } }))).toBe(
      "runTrial(): unknown option 'hang.hangWindow' — did you mean 'hang.hangWindowSec'?",
    );
    expect(await optionsMessage(() => trial({ scan: { candidateBudget: { candidate: 1, units: 1 } } }))).toBe(
      "runTrial(): unknown option 'scan.candidateBudget.candidate' — did you mean 'scan.candidateBudget.candidates'?",
    );
  });

  it('a nested value that is not an object; null only where the function takes it as not given', async () => {
    expect(await optionsMessage(() => sweep({ gpus: 2 }))).toBe(
      "runSweep(): option 'gpus' must be an object, not a number",
    );
    expect(await optionsMessage(() => sweep({ gpus: null }))).toBe(
      "runSweep(): option 'gpus' must be an object, not null",
    );
    expect(await optionsMessage(() => trial({ hang: null }))).toBe(
      "runTrial(): option 'hang' must be an object, not null",
    );
    expect(await optionsMessage(() => trial({ scan: [] }))).toBe(
      "runTrial(): option 'scan' must be an object, not an array",
    );
    // Spread or defaulted as nothing, as before: past the check, the empty argv is what is refused.
    for (const e of [
      await errorOf(() => sweep({ trial: null })),
      await errorOf(() => trial({ scan: null })),
      await errorOf(() => trial({ scan: { candidateBudget: null } })),
    ])
      expect(e).toMatchObject({ message: expect.stringMatching(/argv is empty/) });
  });
});

describe('what counts as an option', () => {
  const scan = (options: unknown) => scanLog(null, 'x\n'.repeat(100), VARS, options as never);

  it('a class instance: its own fields are options, its methods and accessors are not', async () => {
    class Options {
      windowBytes = 64 * 1024;
      get derived(): number {
        return this.windowBytes * 2;
      }
      describe(): string {
        return `window ${this.windowBytes}`;
      }
    }
    expect(scan(new Options()).detectors).toEqual(scan({ windowBytes: 64 * 1024 }).detectors);
    class Wrong {
      windowByte = 1;
    }
    expect(await optionsMessage(() => scan(new Wrong()))).toBe(
      "scanLog(): unknown option 'windowByte' — did you mean 'windowBytes'?",
    );
  });

  it('inherited keys are not options; a key without a prototype is one', async () => {
    expect(await errorOf(() => scan(Object.create({ bogus: true })))).toBe(null);
    const bare = Object.assign(Object.create(null) as object, { bogus: true });
    expect(await optionsMessage(() => scan(bare))).toBe("scanLog(): unknown option 'bogus'");
  });

  it('undefined is a valid key not given, but an unknown key is refused whatever its value', async () => {
    expect(await errorOf(() => scan({ windowBytes: undefined }))).toBe(null);
    expect(await optionsMessage(() => scan({ windowbytes: undefined }))).toBe(
      "scanLog(): unknown option 'windowbytes' — did you mean 'windowBytes'?",
    );
  });

  it('an odd key is quoted as JSON, so the message stays one readable line', async () => {
    expect(await optionsMessage(() => scan({ "it's\n": 1 }))).toBe('scanLog(): unknown option "it\'s\\n"');
  });

  it('the regex calls check options only when given (the scanner calls them per line without)', () => {
    expect(testRegex(regex, 'xaa')).toBe(true);
    expect(searchRegex(regex, 'xaa')?.index).toBe(1);
  });
});

describe('checkOptions and the tables', () => {
  const INNER = { depth: OPTION } as const;
  const TABLE: OptionKeys = { alpha: OPTION, inner: nested(INNER), loose: nested(INNER, { nullable: true }) };

  it('prefers the same name at another level, then the nearest here, then the nearest elsewhere', () => {
    const suggestion = (o: object): string | null => {
      try {
        checkOptions('f', o, TABLE);
        return 'passed';
      } catch (e) {
        return (e as OptionsError).suggestion;
      }
    };
    expect(suggestion({ depth: 1 })).toBe('inner.depth'); // the shallowest, first in table order
    expect(suggestion({ inner: { alpha: 1 } })).toBe('alpha');
    expect(suggestion({ alhpa: 1 })).toBe('alpha');
    expect(suggestion({ dept: 1 })).toBe('inner.depth');
    expect(suggestion({ zzz: 1 })).toBe(null);
    expect(suggestion({ alpha: 1, inner: { depth: 2 }, loose: null })).toBe('passed');
  });

  it('withoutKeys leaves out the keys a caller sets itself', () => {
    expect(Object.keys(withoutKeys(TABLE as OptionTable<{ alpha: 1; inner: 2; loose: 3 }>, ['inner']))).toEqual([
      'alpha',
      'loose',
    ]);
  });

  it('a table that leaves out a key, or names one the interface lacks, does not compile (tsc checks this file)', () => {
    interface Example {
      readonly a?: number;
      readonly b: string;
    }
    // @ts-expect-error — `b` is missing
    const short = { a: OPTION } satisfies OptionTable<Example>;
    // @ts-expect-error — `c` is not a key of Example
    const long = { a: OPTION, b: OPTION, c: OPTION } satisfies OptionTable<Example>;
    expect([Object.keys(short), Object.keys(long)]).toEqual([['a'], ['a', 'b', 'c']]);
  });
});
