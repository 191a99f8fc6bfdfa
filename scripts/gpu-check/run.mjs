/**
 * The real-GPU check of issue 40 (docs/gpu.md, "Checking against a real GPU"): real trials through the built CLI
 * (`dist/src/cli/main.cjs run` / `sweep`, `--gpu-tool nvidia-smi`), one `ok` / `SHORT` line per check on stdout,
 * a JSON record of every figure. Builds nothing; needs `dist/`, python3 with PyTorch, and nvidia-smi on PATH.
 * Started by scripts/gpu-check/run.sh; test/gpu-check.test.ts runs it against a fake nvidia-smi and a fake torch.
 *
 *   node scripts/gpu-check/run.mjs [--json FILE]
 *
 * Exit status: 0 every check ok, 1 some check SHORT, 2 the script could not start (a `SHORT preflight` line).
 * Progress goes to stderr; every setting is an environment variable (CONFIG below).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const CLI = join(ROOT, 'dist/src/cli/main.cjs');
const TRIAL = join(HERE, 'gpu_trial.py');
const RUSAGE = join(HERE, 'rusage.py');
const SHIM_DIR = join(HERE, 'shim');

const env = process.env;
const num = (name, fallback) => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0, not '${v}'`);
  return n;
};
const list = (name, fallback) =>
  (env[name] ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** Every setting, from the environment (the defaults are the real run's). */
const CONFIG = {
  python: env.GPU_CHECK_PYTHON ?? 'python3',
  sizes_gib: list('GPU_CHECK_SIZES_GIB', '4,16,40').map(Number),
  hold_sec: num('GPU_CHECK_HOLD_SEC', 3),
  interval_sec: num('GPU_CHECK_INTERVAL_SEC', 0.2),
  vram_tolerance_pct: num('GPU_CHECK_VRAM_TOLERANCE_PCT', 3),
  silent_sec: num('GPU_CHECK_SILENT_SEC', 40),
  hang_window_sec: num('GPU_CHECK_HANG_WINDOW_SEC', 10),
  /**
   * Longer than the start (import torch, CUDA init) plus the window: a silent start with an idle GPU would be a
   * hang too, and at the end of the grace every signal of the sleeping trial has held for the window.
   */
  hang_grace_sec: num('GPU_CHECK_HANG_GRACE_SEC', 30),
  sleep_gib: num('GPU_CHECK_SLEEP_GIB', 1),
  load_delay_sec: num('GPU_CHECK_LOAD_DELAY_SEC', 5),
  cost_sec: num('GPU_CHECK_COST_SEC', 8),
  max_slowdown_pct: num('GPU_CHECK_MAX_SLOWDOWN_PCT', 5),
  degrade_gib: num('GPU_CHECK_DEGRADE_GIB', 1),
  degrade_reject: list('GPU_CHECK_DEGRADE_REJECT', 'utilization.gpu,clocks_event_reasons_counters'),
  gpus: env.GPU_CHECK_GPUS ?? '0',
  sweep_hold_sec: num('GPU_CHECK_SWEEP_HOLD_SEC', 2),
  sweep_gib: num('GPU_CHECK_SWEEP_GIB', 1),
  trial_timeout_sec: num('GPU_CHECK_TRIAL_TIMEOUT_SEC', 120),
  /** The query fields aorta-probe itself sends (src/gpu/nvidia-smi.ts): a rejected one loses a signal. */
  used_fields: list(
    'GPU_CHECK_USED_FIELDS',
    'index,uuid,memory.used,memory.total,driver_version,utilization.gpu,' +
      'clocks_event_reasons_counters.sw_thermal_slowdown,clocks_event_reasons_counters.hw_thermal_slowdown',
  ),
  /** Asked for the record only: related fields a future reading might use. */
  extra_fields: list(
    'GPU_CHECK_EXTRA_FIELDS',
    'utilization.memory,temperature.gpu,clocks_event_reasons.active,clocks_event_reasons.sw_thermal_slowdown,' +
      'clocks_event_reasons.hw_thermal_slowdown,clocks_throttle_reasons.active',
  ),
  app_fields: list('GPU_CHECK_APP_FIELDS', 'pid,gpu_uuid,used_memory'),
};

function parseArgs(argv) {
  let json = env.GPU_CHECK_JSON;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json' && i + 1 < argv.length) json = argv[++i];
    else {
      process.stderr.write(`usage: run.mjs [--json FILE]\n`);
      process.exit(2);
    }
  }
  json ??= env.OUT ? join(env.OUT, 'gpu-check.json') : resolve('gpu-check.json');
  return { json: resolve(json) };
}

const { json: JSON_PATH } = parseArgs(process.argv.slice(2));
const WORK = resolve(
  env.GPU_CHECK_WORK ?? (env.OUT ? join(env.OUT, 'gpu-check-runs') : mkdtempSync(join(tmpdir(), 'aorta-gpu-check-'))),
);
mkdirSync(WORK, { recursive: true });
mkdirSync(dirname(JSON_PATH), { recursive: true });

const started = Date.now();
const record = {
  schema: 'aorta-probe-gpu-check/1',
  started_at: new Date(started).toISOString(),
  finished_at: null,
  duration_sec: null,
  ok: null,
  work_dir: WORK,
  versions: { node: process.version, aorta_probe: null, python: null },
  device: null,
  torch: null,
  context: null,
  config: CONFIG,
  fields: null,
  checks: [],
};

const log = (msg) => process.stderr.write(`gpu-check: ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, digits) => (x === null || x === undefined ? null : Number(x.toFixed(digits)));
const save = () => writeFileSync(JSON_PATH, `${JSON.stringify(record, null, 2)}\n`);

/** One check: its line on stdout now, its record in the JSON. */
function report(name, ok, text, data = {}) {
  const line = `${ok ? 'ok' : 'SHORT'} ${name}: ${text}`;
  process.stdout.write(`${line}\n`);
  record.checks.push({ name, ok, line, ...data });
  save();
}

/** The absolute path of `name` on PATH, or null. */
function which(name, path = env.PATH ?? '') {
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {}
  }
  return null;
}

/** The hang checks' flags: the configured window and grace, and what to do on a hang. */
const hangFlags = (action) => [
  '--hang-window',
  String(CONFIG.hang_window_sec),
  '--hang-grace',
  String(CONFIG.hang_grace_sec),
  '--hang-action',
  action,
];

/** One nvidia-smi query, as the sampler would make it: {ok, lines, exit_code, message}. */
function smi(arg) {
  const r = spawnSync('nvidia-smi', [arg, '--format=csv,noheader,nounits'], { encoding: 'utf8', timeout: 15000 });
  const lines = (r.stdout ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const first = (t) => (t ?? '').split('\n').find((l) => l.trim() !== '') ?? null;
  return {
    ok: r.status === 0,
    lines,
    exit_code: r.status,
    message: r.status === 0 ? null : (first(r.stderr) ?? first(r.stdout) ?? (r.error?.message || `signal ${r.signal}`)),
  };
}

/** `GPU_CHECK {json}` lines of a trial's log, by phase. */
function marks(logPath) {
  const out = {};
  let text = '';
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const m = /^GPU_CHECK (\{.*\})\s*$/.exec(line);
    if (m === null) continue;
    try {
      const o = JSON.parse(m[1]);
      out[o.phase] = o;
    } catch {}
  }
  return out;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

const trialEnv = (extra = {}) => ({ ...env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', ...extra });

/**
 * `aorta-probe run` of one trial program in WORK/<name> (emptied first): resolves with {status, result (its
 * result.json), marks, stderr, dir}. `onStart(dir)` is called once the CLI has been started; `wrap` is a command
 * prefix (rusage.py).
 */
function cliRun(name, trialArgs, { cli = [], tool = 'nvidia-smi', runEnv, wrap = null, onStart } = {}) {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  const argv = [
    CLI,
    'run',
    '--out',
    dir,
    '--json',
    '--quiet',
    '--gpu-tool',
    tool,
    '--gpu-interval',
    String(CONFIG.interval_sec),
    '--timeout',
    String(CONFIG.trial_timeout_sec),
    ...cli,
    '--',
    ...trialArgs,
  ];
  const [cmd, args] =
    wrap === null ? [process.execPath, argv] : [wrap[0], [...wrap.slice(1), process.execPath, ...argv]];
  log(`${name}: ${trialArgs.slice(1).join(' ')}`);
  return new Promise((done) => {
    const child = spawn(cmd, args, { env: runEnv ?? trialEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    onStart?.(dir);
    child.on('close', (status) => {
      done({ status, result: readJson(join(dir, 'result.json')), marks: marks(join(dir, 'output.log')), stderr, dir });
    });
  });
}

const trial = (...args) => [CONFIG.python, TRIAL, ...args.map(String)];
const detectors = (r) => [...(r?.failure_detectors_fired ?? []), ...(r?.error_detectors_fired ?? [])];
const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

function preflight() {
  const problems = [];
  if (!existsSync(CLI)) problems.push(`${CLI} is missing (build first: npm run build:ts)`);
  const smiPath = which('nvidia-smi');
  if (smiPath === null) problems.push('nvidia-smi is not on PATH');
  const py = spawnSync(
    CONFIG.python,
    ['-c', 'import sys, torch; print(sys.version.split()[0], torch.__version__, torch.cuda.is_available())'],
    { encoding: 'utf8', timeout: 120000, env: trialEnv() },
  );
  const words = (py.stdout ?? '').trim().split(/\s+/);
  if (py.status !== 0) {
    problems.push(
      `${CONFIG.python} cannot import torch: ${(py.stderr || py.error?.message || '').trim().split('\n').pop()}`,
    );
  } else {
    record.versions.python = words[0];
    if (words[2] !== 'True') problems.push(`torch ${words[1]} sees no CUDA device`);
  }
  record.versions.aorta_probe = readJson(join(ROOT, 'package.json'))?.version ?? null;
  return { problems, smiPath };
}

function deviceInfo() {
  const r = smi('--query-gpu=index,name,uuid,memory.total,driver_version');
  if (!r.ok) return { error: r.message };
  return r.lines.map((l) => {
    const [index, name, uuid, total, driver] = l.split(',').map((s) => s.trim());
    return { index, name, uuid, memory_total_mib: Number(total), driver_version: driver };
  });
}

/** Each field on its own: accepted or the reason, and its value(s). */
function queryFields(phase) {
  const out = {};
  for (const f of [...CONFIG.used_fields, ...CONFIG.extra_fields]) {
    const r = smi(`--query-gpu=${f}`);
    out[`gpu:${f}`] = r.ok ? { accepted: true, value: r.lines.join(' | ') } : { accepted: false, reason: r.message };
  }
  for (const f of CONFIG.app_fields) {
    const r = smi(`--query-compute-apps=${f}`);
    out[`apps:${f}`] = r.ok ? { accepted: true, rows: r.lines.length } : { accepted: false, reason: r.message };
  }
  log(`fields queried (${phase})`);
  return out;
}

async function checkContext() {
  const run = await cliRun('context', trial('context', CONFIG.hold_sec));
  const m = run.marks.context;
  record.torch = m ? { version: m.torch, cuda: m.cuda, device_name: m.device_name } : null;
  record.context =
    m === undefined
      ? { error: `the context trial gave no measurement (exit ${run.result?.exit_code ?? run.status})` }
      : {
          context_mib: round(m.context_mib, 1),
          device_used_before_mib: m.device_used_before_mib,
          device_used_after_mib: m.device_used_after_mib,
          reserved_mib: m.reserved_mib,
          process_used_mib: m.process_used_mib,
          sampler_peak_vram_mib: run.result?.peak_vram_mib ?? null,
          attribution: run.result?.gpu?.attribution ?? null,
        };
  save();
  return m?.context_mib ?? null;
}

async function checkVram(contextMib) {
  for (const gib of CONFIG.sizes_gib) {
    const run = await cliRun(`vram-${gib}gib`, trial('hold', gib, CONFIG.hold_sec));
    const held = run.marks.holding;
    const r = run.result;
    const peak = r?.peak_vram_mib ?? null;
    const data = {
      gib,
      verdict: r?.verdict ?? null,
      peak_vram_mib: peak,
      max_reserved_mib: held?.max_reserved_mib ?? null,
      context_mib: contextMib === null ? null : round(contextMib, 1),
      attribution: r?.gpu?.attribution ?? null,
      samples: r?.gpu?.samples ?? null,
      warnings: r?.gpu?.warnings ?? null,
    };
    if (held === undefined || contextMib === null || peak === null || r?.verdict !== 'pass') {
      const why =
        held === undefined
          ? `the trial did not hold the memory (verdict ${r?.verdict ?? 'none'}, exit ${r?.exit_code ?? run.status}; ${detectors(r).join(', ') || 'no detector'})`
          : contextMib === null
            ? 'the CUDA context size is unknown (the context trial failed)'
            : peak === null
              ? `no VRAM sample (${(r?.gpu?.warnings ?? []).join('; ') || 'no warning'})`
              : `verdict ${r?.verdict} (${detectors(r).join(', ')})`;
      report(`vram ${gib} GiB`, false, why, data);
      continue;
    }
    const expected = held.max_reserved_mib + contextMib;
    const errorPct = ((peak - expected) / expected) * 100;
    data.expected_mib = round(expected, 1);
    data.error_pct = round(errorPct, 2);
    report(
      `vram ${gib} GiB`,
      Math.abs(errorPct) <= CONFIG.vram_tolerance_pct,
      `peak ${peak} MiB, expected ${fmt(expected)} MiB (max reserved ${fmt(held.max_reserved_mib)} + context ${fmt(contextMib)}), ` +
        `off by ${errorPct.toFixed(2)}% (${data.attribution})`,
      data,
    );
  }
}

const signalText = (s) =>
  s === null || s === undefined
    ? 'no signals'
    : [
        s.output_silent ? 'output silent' : 'output seen',
        s.io_idle ? 'I/O idle' : 'I/O active',
        s.gpu_idle ? 'GPU idle' : 'GPU not idle',
      ].join(', ');

/** The silent compute (a busy GPU is not a hang) and, while it runs, the field queries under load. */
async function checkSilentCompute() {
  let loadFields = null;
  let watching = true;
  const watcher = async (dir) => {
    while (watching) {
      if (marks(join(dir, 'output.log'))['compute-start'] !== undefined) {
        await sleep(CONFIG.load_delay_sec * 1000);
        if (watching) loadFields = queryFields('load');
        return;
      }
      await sleep(100);
    }
  };
  let watch;
  const run = await cliRun('hang-silent-compute', trial('compute', CONFIG.silent_sec), {
    cli: hangFlags('record'),
    onStart: (dir) => (watch = watcher(dir)),
  });
  watching = false;
  await watch;
  const r = run.result;
  const hang = r?.hang ?? null;
  const computed = run.marks['compute-end'] !== undefined;
  const data = {
    verdict: r?.verdict ?? null,
    exit_code: r?.exit_code ?? null,
    computed,
    hang_detected: hang?.detected ?? null,
    hang_signals: hang?.signals ?? null,
    hang_reconciled: hang?.reconciled ?? null,
    gpu_readable: hang?.gpu_readable ?? null,
    detected_after_sec: hang?.detected_after_sec ?? null,
    detectors: detectors(r),
  };
  const what = `${fmt(CONFIG.silent_sec)} s of silent GPU compute`;
  if (!computed || r === null) {
    report(
      'hang silent-compute',
      false,
      `the trial did not compute (verdict ${r?.verdict ?? 'none'}, exit ${r?.exit_code ?? run.status}; ${detectors(r).join(', ') || 'no detector'})`,
      data,
    );
  } else if (hang?.detected) {
    report(
      'hang silent-compute',
      false,
      `${what} was called a hang (${signalText(hang.signals)})${hang.reconciled ? ', dropped at exit 0 (reconciled)' : ''}`,
      data,
    );
  } else {
    report(
      'hang silent-compute',
      r.verdict === 'pass',
      `${what}: no hang, verdict ${r.verdict}${hang?.gpu_readable ? '' : ' (no GPU utilization reading)'}`,
      data,
    );
  }
  return loadFields;
}

function checkFields(idle, load) {
  const fields = {};
  for (const [key, i] of Object.entries(idle)) fields[key] = { ...i, load: load?.[key] ?? null };
  record.fields = fields;
  const rows = Object.entries(fields).map(([key, f]) => ({
    key,
    accepted: f.accepted && (f.load === null || f.load.accepted),
    reason: f.accepted ? (f.load?.accepted === false ? f.load.reason : null) : f.reason,
  }));
  const used = new Set([...CONFIG.used_fields.map((f) => `gpu:${f}`), ...CONFIG.app_fields.map((f) => `apps:${f}`)]);
  const rejectedUsed = rows.filter((r) => used.has(r.key) && !r.accepted).map((r) => r.key);
  const rejectedOther = rows.filter((r) => !used.has(r.key) && !r.accepted).map((r) => r.key);
  const accepted = rows.filter((r) => r.accepted).length;
  report(
    'fields',
    rejectedUsed.length === 0 && load !== null,
    `${accepted} of ${rows.length} accepted` +
      (rejectedUsed.length > 0 ? `; rejected, used by aorta-probe: ${rejectedUsed.join(', ')}` : '') +
      (rejectedOther.length > 0 ? `; rejected, not used: ${rejectedOther.join(', ')}` : '') +
      (load === null ? '; no reading under load (the compute trial never started computing)' : ''),
    { accepted, queried: rows.length, rejected_used: rejectedUsed, rejected_other: rejectedOther },
  );
  const pct = (f) => (f?.accepted ? Number(f.value.split('|')[0]) : null);
  const util = fields['gpu:utilization.gpu'];
  const idlePct = pct(util);
  const loadPct = pct(util?.load);
  const thermal = ['sw', 'hw'].map((k) => {
    const f = fields[`gpu:clocks_event_reasons_counters.${k}_thermal_slowdown`];
    return `${k} ${f?.accepted ? f.value : 'rejected'} -> ${f?.load?.accepted ? f.load.value : 'n/a'}`;
  });
  report(
    'utilization',
    idlePct !== null && loadPct !== null && idlePct < 5 && loadPct >= 5,
    `utilization.gpu idle ${idlePct ?? 'n/a'}%, under load ${loadPct ?? 'n/a'}% (GPU idle means < 5%); ` +
      `thermal counters idle -> load (us): ${thermal.join(', ')}`,
    { idle_pct: idlePct, load_pct: loadPct },
  );
}

async function checkSilentSleep() {
  const run = await cliRun('hang-silent-sleep', trial('sleep', CONFIG.silent_sec, CONFIG.sleep_gib), {
    cli: hangFlags('kill'),
  });
  const r = run.result;
  const hang = r?.hang ?? null;
  const data = {
    verdict: r?.verdict ?? null,
    exit_code: r?.exit_code ?? null,
    held: run.marks.holding !== undefined,
    hang_detected: hang?.detected ?? null,
    hang_signals: hang?.signals ?? null,
    killed: hang?.killed ?? null,
    detected_after_sec: hang?.detected_after_sec ?? null,
    detectors: detectors(r),
  };
  const ok = data.held && hang?.detected === true && hang.killed === true && detectors(r).includes('tier2:hang');
  report(
    'hang silent-sleep',
    ok,
    hang?.detected
      ? `tier2:hang (${signalText(hang.signals)}), the trial ${hang.killed ? 'was stopped' : 'ran on'}, verdict ${r.verdict}`
      : `no hang detected in a silent sleep with ${fmt(CONFIG.sleep_gib)} GiB held (verdict ${r?.verdict ?? 'none'}, ${detectors(r).join(', ') || 'no detector'})`,
    data,
  );
}

const RECIPE = `# Written by scripts/gpu-check/run.mjs: the custom patterns of its oom and nan checks.
custom_patterns:
  - id: cuda_oom
    match: {regex: 'OutOfMemoryError: CUDA out of memory'}
    on_match: fail
    category: oom_fragment
  - id: nan_loss
    match:
      regex: 'step (?P<step>\\d+) loss=(?P<loss>[^ \\n]+)'
      condition: "math.isnan(float(capture['loss']))"
    on_match: fail
    category: numeric_silent
`;

async function checkClassified(recipe, name, mode, want) {
  const run = await cliRun(name, trial(mode), { cli: ['--recipe', recipe] });
  const r = run.result;
  const fired = r?.failure_detectors_fired ?? [];
  const data = {
    verdict: r?.verdict ?? null,
    exit_code: r?.exit_code ?? null,
    failure_detectors_fired: fired,
    error_detectors_fired: r?.error_detectors_fired ?? [],
    capture: r?.capture ?? null,
  };
  if (mode === 'oom') data.raised = run.marks.oom ?? null;
  const missing = want.filter((d) => !fired.includes(d));
  let ok = r?.verdict === 'fail' && missing.length === 0;
  let extra = '';
  if (mode === 'oom') {
    ok &&= run.marks.oom?.is_cuda_oom === true;
    extra = `; raised ${run.marks.oom?.type ?? 'nothing'}`;
  } else if (r?.capture?.step !== undefined) extra = `; capture step=${r.capture.step}, loss=${r.capture.loss}`;
  report(
    name,
    ok,
    `verdict ${r?.verdict ?? 'none'}, exit ${r?.exit_code ?? run.status}: ${fired.join(', ') || 'no failure detector'}` +
      (missing.length > 0 ? `; missing ${missing.join(', ')}` : '') +
      extra,
    data,
  );
}

async function checkDegrade(realSmi) {
  const runEnv = trialEnv({
    PATH: `${SHIM_DIR}${delimiter}${env.PATH ?? ''}`,
    GPU_CHECK_SHIM_REAL: realSmi,
    GPU_CHECK_SHIM_REJECT: CONFIG.degrade_reject.join(','),
  });
  const run = await cliRun('degrade', trial('hold', CONFIG.degrade_gib, CONFIG.hold_sec), { runEnv });
  const r = run.result;
  const reasons = r?.tier3?.disabled_reasons ?? [];
  const named = CONFIG.degrade_reject.map((f) => reasons.some((x) => x.includes(f)));
  const data = {
    rejected: CONFIG.degrade_reject,
    verdict: r?.verdict ?? null,
    exit_code: r?.exit_code ?? null,
    peak_vram_mib: r?.peak_vram_mib ?? null,
    gpu_warnings: r?.gpu?.warnings ?? null,
    // result.json's gpu is snake_case since result_version 2; an earlier build wrote failedCalls.
    failed_calls: r?.gpu?.failed_calls ?? r?.gpu?.failedCalls ?? null,
    disabled_reasons: reasons,
    gpu_readable: r?.hang?.gpu_readable ?? null,
  };
  const ok =
    r?.verdict === 'pass' &&
    r.exit_code === 0 &&
    r.peak_vram_mib !== null &&
    (r.gpu?.warnings ?? []).length === 0 &&
    named.every(Boolean);
  report(
    'degrade',
    ok,
    `${CONFIG.degrade_reject.join(' and ')} rejected: verdict ${r?.verdict ?? 'none'}, peak ${r?.peak_vram_mib ?? 'null'} MiB, ` +
      `${reasons.length} reasons in tier3.disabled_reasons, ${(r?.gpu?.warnings ?? []).length} memory warnings` +
      (named.every(Boolean) ? '' : `; no reason names ${CONFIG.degrade_reject.filter((_, i) => !named[i]).join(', ')}`),
    data,
  );
}

async function checkSamplerCost() {
  const cpu = {};
  for (const tool of ['none', 'nvidia-smi']) {
    const usage = join(WORK, `cost-cpu-${tool}.rusage.json`);
    const run = await cliRun(`cost-cpu-${tool}`, ['sleep', String(CONFIG.cost_sec)], {
      tool,
      wrap: [CONFIG.python, RUSAGE, usage],
    });
    const u = readJson(usage);
    cpu[tool] = { cpu_sec: u === null ? null : u.user_sec + u.sys_sec, samples: run.result?.gpu?.samples ?? null };
  }
  const loops = {};
  for (const tool of ['none', 'nvidia-smi']) {
    const run = await cliRun(`cost-loop-${tool}`, trial('loop', CONFIG.cost_sec), { tool });
    loops[tool] = run.marks.loop?.rate ?? null;
  }
  const n = cpu['nvidia-smi'].samples;
  const perSampleMs =
    cpu.none.cpu_sec === null || cpu['nvidia-smi'].cpu_sec === null || !n
      ? null
      : ((cpu['nvidia-smi'].cpu_sec - cpu.none.cpu_sec) / n) * 1000;
  const slowdownPct =
    loops.none === null || loops['nvidia-smi'] === null ? null : (1 - loops['nvidia-smi'] / loops.none) * 100;
  const data = {
    cpu_none_sec: round(cpu.none.cpu_sec, 3),
    cpu_sampled_sec: round(cpu['nvidia-smi'].cpu_sec, 3),
    samples: n,
    cpu_per_sample_ms: round(perSampleMs, 2),
    loop_rate_none: round(loops.none, 1),
    loop_rate_sampled: round(loops['nvidia-smi'], 1),
    slowdown_pct: round(slowdownPct, 2),
  };
  // The line shows the recorded (rounded) figures.
  const show = (x, digits, unit = '') => (x === null ? 'n/a' : `${x.toFixed(digits)}${unit}`);
  report(
    'sampler-cost',
    perSampleMs !== null && slowdownPct !== null && slowdownPct <= CONFIG.max_slowdown_pct,
    `${show(data.cpu_per_sample_ms, 1)} ms CPU per sample (${n ?? 0} samples at ${CONFIG.interval_sec} s); ` +
      `a tight CUDA loop ${show(data.slowdown_pct, 1, '%')} slower ` +
      `(${show(data.loop_rate_sampled, 0)} vs ${show(data.loop_rate_none, 0)} it/s; at most ${CONFIG.max_slowdown_pct}%)`,
    data,
  );
}

async function checkGpus() {
  const dir = join(WORK, 'gpus');
  const recipe = join(WORK, 'gpus-sweep.yaml');
  writeFileSync(
    recipe,
    '# Written by scripts/gpu-check/run.mjs: two trials of one cell.\nschema_version: 1\nmode: probe\n' +
      'ticket: gpu-check\ntrials: 2\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n',
  );
  const args = [
    CLI,
    'sweep',
    '--recipe',
    recipe,
    '--out',
    dir,
    '--fresh',
    '--parallel',
    '2',
    '--gpus',
    CONFIG.gpus,
    '--gpu-tool',
    'nvidia-smi',
    '--gpu-interval',
    String(CONFIG.interval_sec),
    '--timeout',
    String(CONFIG.trial_timeout_sec),
    '--json',
    '--quiet',
    '--',
    ...trial('gpus', CONFIG.sweep_hold_sec, CONFIG.sweep_gib),
  ];
  log(`gpus: sweep --parallel 2 --gpus ${CONFIG.gpus}`);
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: trialEnv(), timeout: 300000 });
  let out = null;
  try {
    out = JSON.parse(r.stdout);
  } catch {}
  const trials = (out?.trials ?? []).map((t) => {
    const res = readJson(resolve(t.result_json));
    const m = marks(join(resolve(t.dir), 'output.log')).gpus ?? null;
    return {
      trial: t.trial,
      verdict: t.verdict,
      devices: res?.devices ?? null,
      peak_vram_mib: res?.peak_vram_mib ?? null,
      cuda_visible_devices: m?.cuda_visible_devices ?? null,
      hip_visible_devices: m?.hip_visible_devices ?? null,
      device_count: m?.device_count ?? null,
      start: m?.start ?? null,
      end: m?.end ?? null,
    };
  });
  const ids = CONFIG.gpus;
  const each = (p) => trials.length === 2 && trials.every(p);
  const sorted = [...trials].sort((a, b) => (a.start ?? 0) - (b.start ?? 0));
  const overlap =
    trials.length === 2 && sorted[1].start !== null && sorted[0].end !== null && sorted[1].start < sorted[0].end;
  const problems = [];
  if (r.status !== 0) problems.push(`sweep exited ${r.status}${out?.error ? `: ${out.error.message}` : ''}`);
  if (trials.length !== 2) problems.push(`${trials.length} trials ran`);
  if (!each((t) => t.verdict === 'pass')) problems.push('a trial did not pass');
  if (overlap) problems.push('the two trials ran at the same time on one listed device');
  if (!each((t) => t.cuda_visible_devices === ids && t.hip_visible_devices === ids))
    problems.push(`a trial did not get CUDA_VISIBLE_DEVICES=HIP_VISIBLE_DEVICES=${ids}`);
  if (!each((t) => JSON.stringify(t.devices) === JSON.stringify(ids.split(','))))
    problems.push('result.json devices differ from --gpus');
  if (!each((t) => t.device_count === ids.split(',').length)) problems.push('torch saw another device count');
  if (!each((t) => t.peak_vram_mib !== null && t.peak_vram_mib > 0)) problems.push('a trial had no peak VRAM');
  report(
    'gpus',
    problems.length === 0,
    problems.length > 0
      ? `--gpus ${ids} --parallel 2: ${problems.join('; ')}`
      : `--gpus ${ids} --parallel 2: 2 trials, one at a time, each with CUDA_VISIBLE_DEVICES=${ids} and ` +
          `HIP_VISIBLE_DEVICES=${ids}, devices ${JSON.stringify(ids.split(','))}, peak VRAM ${trials.map((t) => t.peak_vram_mib).join(' and ')} MiB`,
    { exit_status: r.status, overlap, trials },
  );
}

async function main() {
  log(`record: ${JSON_PATH}; trials in ${WORK}`);
  const { problems, smiPath } = preflight();
  if (problems.length > 0) {
    report('preflight', false, problems.join('; '));
    finish();
    return 2;
  }
  record.device = deviceInfo();
  save();
  const idle = queryFields('idle');
  const contextMib = await checkContext();
  await checkVram(contextMib);
  const load = await checkSilentCompute();
  checkFields(idle, load);
  await checkSilentSleep();
  const recipe = join(WORK, 'patterns.yaml');
  writeFileSync(recipe, RECIPE);
  await checkClassified(recipe, 'oom', 'oom', ['tier1:exit_nonzero', 'tier4:python_traceback', 'custom:cuda_oom']);
  await checkClassified(recipe, 'nan', 'nan', ['tier4:nan_signature', 'custom:nan_loss']);
  await checkDegrade(smiPath);
  await checkSamplerCost();
  await checkGpus();
  finish();
  return record.ok ? 0 : 1;
}

function finish() {
  record.finished_at = new Date().toISOString();
  record.duration_sec = round((Date.now() - started) / 1000, 1);
  record.ok = record.checks.every((c) => c.ok);
  save();
  log(`done in ${record.duration_sec} s: ${record.checks.filter((c) => c.ok).length} of ${record.checks.length} ok`);
}

process.exitCode = await main();
