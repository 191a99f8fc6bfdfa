/**
 * Differential fuzzer against CPython 3.11, in two parts:
 *
 *   npm run fuzz:conditions -- --cases N [--seed S] [--only validate|evaluate] [--report K]
 *                              [--python PATH] [--shrink-budget CALLS] [--dump FILE]
 *
 * Validation: streams records from `python3 scripts/gen_condition_corpus.py --seed S --count N --stdout`
 * (each one carries CPython's `validate_and_compile` verdict), runs `validateCondition(record.condition)`
 * on each, and compares `valid` and `node`.
 *
 * Evaluation: streams records from `python3 scripts/gen_eval_corpus.py --seed S --count N --stdout
 * --random-only` (fresh, seed-dependent compositions with random inputs; each one carries CPython's
 * `evaluate` outcome), runs `compileCondition(condition).evaluateDetailed(vars)` on each, and compares
 * `valid`, `fired`, `value.type`, `value.repr` and `error` (CPython's `<module 'math' from '…'>` is
 * read as `<module 'math' (built-in)>`, which is what we print on purpose).
 *
 * Every disagreement (up to --report per part, default 20, distinct kinds first) is shrunk by delta
 * debugging, asking a long-running CPython oracle (`scripts/cpython_oracle.py --serve` for validation,
 * `scripts/cpython_eval_oracle.py --serve` for evaluation) about every candidate: over the code points
 * of the condition (for evaluation: while both sides still accept it and the disagreement keeps its
 * kind), then over the capture values (and the capture keys and the other variables).
 *
 * The last lines are the summaries, one per part run:
 *   fuzz:conditions: N cases, D disagreements, ... per validation (seed S)
 *   fuzz:conditions: N evaluation cases, D disagreements, ... (seed S)
 * Exit code: 0 = agreement, 1 = disagreements, 2 = the python side failed (not found, crashed, bad
 * output) or an internal error.
 *
 * Transport is JSON lines both ways, so embedded newlines and lone surrogates survive: Python writes
 * `\udXXX` escapes (ensure_ascii) and JSON.stringify escapes lone surrogates too.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { compileCondition, SandboxError, validateCondition } from '../src/index.js';

interface Verdict {
  valid: boolean;
  kind: string;
  node: string | null;
  message: string;
}

interface CorpusRecord extends Verdict {
  condition: string;
  origin: string;
}

/** Our side of a comparison. `crash` is set when something other than a SandboxError was thrown. */
interface Ours {
  valid: boolean;
  node: string | null;
  kind: string | null;
  detail: string;
  crash: string | null;
}

type Part = 'validate' | 'evaluate';

interface Options {
  cases: number;
  seed: number;
  report: number;
  python: string;
  shrinkBudget: number;
  only: Part | null;
  dump: string | null;
}

/** Raised for every failure of the python side; maps to exit code 2. */
class PythonFailure extends Error {
  override name = 'PythonFailure';
}

const HERE = dirname(fileURLToPath(import.meta.url));

/** The package root: this file runs as dist/scripts/fuzz-conditions.js (or scripts/*.ts via a TS runner). */
function findRoot(): string {
  for (const cand of [resolve(HERE, '..'), resolve(HERE, '..', '..'), process.cwd()]) {
    if (existsSync(join(cand, 'scripts', 'gen_condition_corpus.py'))) return cand;
  }
  return process.cwd();
}

const ROOT = findRoot();
const GEN_SCRIPT = join(ROOT, 'scripts', 'gen_condition_corpus.py');
const ORACLE_SCRIPT = join(ROOT, 'scripts', 'cpython_oracle.py');
const EVAL_GEN_SCRIPT = join(ROOT, 'scripts', 'gen_eval_corpus.py');
const EVAL_ORACLE_SCRIPT = join(ROOT, 'scripts', 'cpython_eval_oracle.py');
const ORACLE_TIMEOUT_MS = 30_000;
/** At most this many evaluation disagreements are kept in memory (for --dump and the kind table). */
const MAX_KEPT = 10_000;

function usage(): string {
  return (
    'usage: npm run fuzz:conditions -- --cases N [--seed S] [--only validate|evaluate] [--report K] [--python PATH]\n' +
    '                                  [--shrink-budget CALLS] [--dump FILE]'
  );
}

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    cases: 2000,
    seed: randomInt(1, 2 ** 31 - 1),
    report: 20,
    python: process.env['PYTHON'] ?? 'python3',
    shrinkBudget: 3000,
    only: null,
    dump: null,
  };
  const intArg = (name: string, value: string | undefined, min: number): number => {
    if (value === undefined || !/^-?\d+$/.test(value))
      throw new Error(`${name} needs an integer, got ${value ?? 'nothing'}`);
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '--cases':
        opts.cases = intArg('--cases', value(), 1);
        break;
      case '--seed':
        opts.seed = intArg('--seed', value(), 0);
        break;
      case '--report':
        opts.report = intArg('--report', value(), 0);
        break;
      case '--shrink-budget':
        opts.shrinkBudget = intArg('--shrink-budget', value(), 0);
        break;
      case '--only': {
        const v = value();
        if (v !== 'validate' && v !== 'evaluate')
          throw new Error(`--only needs validate or evaluate, got ${v ?? 'nothing'}`);
        opts.only = v;
        break;
      }
      case '--dump': {
        const v = value();
        if (!v) throw new Error('--dump needs a file name');
        opts.dump = v;
        break;
      }
      case '--python': {
        const v = value();
        if (!v) throw new Error('--python needs a path');
        opts.python = v;
        break;
      }
      case '-h':
      case '--help':
        console.log(usage());
        process.exit(0);
        break;
      default:
        throw new Error(`unknown argument ${arg}\n${usage()}`);
    }
  }
  return opts;
}

function describeThrown(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown } | null;
  return e !== null && typeof e === 'object'
    ? `${String(e.name ?? 'Error')}: ${String(e.message ?? '')}`
    : `thrown ${typeof err}: ${String(err)}`;
}

/** JSON with every non-ASCII code unit escaped, so invisible characters and lone surrogates show. */
function jsonAscii(s: unknown): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[idx]!;
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

// ------------------------------------------------------------------------------------------------
// Our validator

function runOurs(text: string): { ours: Ours; ms: number } {
  const t0 = performance.now();
  let ours: Ours;
  try {
    validateCondition(text);
    ours = { valid: true, node: null, kind: 'ok', detail: 'ok', crash: null };
  } catch (err) {
    if (err instanceof SandboxError) {
      ours = { valid: false, node: err.node, kind: err.kind, detail: err.detail, crash: null };
    } else {
      const desc = describeThrown(err);
      ours = { valid: false, node: null, kind: null, detail: desc, crash: desc.split('\n')[0]! };
    }
  }
  return { ours, ms: performance.now() - t0 };
}

function agrees(cp: Verdict, ours: Ours): boolean {
  return ours.crash === null && ours.valid === cp.valid && ours.node === cp.node;
}

function fmtCp(v: Verdict): string {
  return `${v.valid}/${v.node ?? 'null'}/${v.kind}`;
}

function fmtOurs(o: Ours): string {
  return o.crash !== null ? `crash(${o.crash})` : `${o.valid}/${o.node ?? 'null'}`;
}

function disagreeLine(cp: Verdict, ours: Ours, input: string): string {
  return `DISAGREE cpython=${fmtCp(cp)} ours=${fmtOurs(ours)} input=${jsonAscii(input)}`;
}

// ------------------------------------------------------------------------------------------------
// Python oracles (long-running --serve children)

/**
 * One `--serve` child speaking JSON lines: one request line in, one answer line out, in order.
 * `check` turns a parsed answer into the result, or returns a string describing why it is unusable.
 */
class Oracle<Res> {
  private child: ChildProcessWithoutNullStreams;
  private queue: Array<{ resolve: (v: Res) => void; reject: (e: Error) => void }> = [];
  private dead: Error | null = null;
  private stderr = '';
  calls = 0;

  constructor(
    python: string,
    private readonly script: string,
    private readonly check: (parsed: unknown, line: string) => Res | string,
  ) {
    this.child = spawn(python, [script, '--serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin.setDefaultEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    this.child.stdin.on('error', (e) => this.fail(new PythonFailure(`oracle stdin: ${e.message}`)));
    this.child.on('error', (e) => this.fail(new PythonFailure(`cannot run ${python} ${script}: ${e.message}`)));
    this.child.on('exit', (code, signal) => {
      this.fail(
        new PythonFailure(
          `oracle ${script} exited (code ${code ?? 'null'}, signal ${signal ?? 'none'})${this.stderrTail()}`,
        ),
      );
    });
    const rl = createInterface({ input: this.child.stdout, crlfDelay: Infinity });
    rl.on('line', (line) => {
      const waiter = this.queue.shift();
      if (!waiter) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        waiter.reject(new PythonFailure(`oracle wrote a non-JSON line: ${line.slice(0, 200)}`));
        return;
      }
      const res = this.check(parsed, line);
      if (typeof res === 'string') waiter.reject(new PythonFailure(`oracle error: ${res}`));
      else waiter.resolve(res);
    });
  }

  private stderrTail(): string {
    const t = this.stderr.trim();
    return t ? `\n--- python stderr (tail) ---\n${t}` : '';
  }

  private fail(e: Error): void {
    if (this.dead) return;
    this.dead = e;
    for (const w of this.queue.splice(0)) w.reject(e);
  }

  /** `requestJson` is one JSON object, already serialised (no newline). */
  ask(requestJson: string): Promise<Res> {
    if (this.dead) return Promise.reject(this.dead);
    this.calls++;
    return new Promise<Res>((resolveV, rejectV) => {
      // A hung oracle is as fatal as a crashed one: one answer never takes anywhere near this long.
      const timer = setTimeout(() => {
        this.fail(
          new PythonFailure(
            `oracle ${this.script} did not answer within ${ORACLE_TIMEOUT_MS / 1000} s${this.stderrTail()}`,
          ),
        );
        this.child.kill('SIGKILL');
      }, ORACLE_TIMEOUT_MS);
      this.queue.push({
        resolve: (v) => {
          clearTimeout(timer);
          resolveV(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          rejectV(e);
        },
      });
      this.child.stdin.write(`${requestJson}\n`);
    });
  }

  close(): void {
    this.dead ??= new PythonFailure('oracle closed');
    this.child.removeAllListeners('exit');
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    timer.unref();
  }
}

function validationOracle(python: string): Oracle<Verdict> {
  return new Oracle<Verdict>(python, ORACLE_SCRIPT, (parsed, line) => {
    const v = parsed as Partial<Verdict> & { error?: string };
    if (typeof v.error === 'string' || typeof v.valid !== 'boolean') return v.error ?? line.slice(0, 200);
    return v as Verdict;
  });
}

// ------------------------------------------------------------------------------------------------
// Delta debugging over code points

interface Budget {
  left: number;
}

/**
 * Minimises `input` while `interesting` holds: ddmin over chunks of code points, then removal of
 * every contiguous window (largest first, down to single code points) to a fixpoint. Every predicate
 * call spends one unit of `budget`. The empty string is tried only with `allowEmpty`.
 */
async function shrink(
  input: string,
  interesting: (s: string) => Promise<boolean>,
  budget: Budget,
  allowEmpty = false,
): Promise<string> {
  let cps = Array.from(input);
  const test = async (cand: string[]): Promise<boolean> => {
    budget.left--;
    return interesting(cand.join(''));
  };
  if (allowEmpty && cps.length > 0 && budget.left > 0 && (await test([]))) return '';
  let n = 2;
  while (cps.length >= 2 && budget.left > 0) {
    const chunk = Math.ceil(cps.length / n);
    let reduced = false;
    for (let start = 0; start < cps.length && budget.left > 0; start += chunk) {
      const cand = cps.slice(0, start).concat(cps.slice(start + chunk));
      if (cand.length > 0 && (await test(cand))) {
        cps = cand;
        n = Math.max(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= cps.length) break;
      n = Math.min(cps.length, n * 2);
    }
  }
  // ddmin only tries a few chunk boundaries; finish with every contiguous window (largest first,
  // down to single code points) until nothing can be removed. Inputs are small by now.
  let changed = true;
  while (changed && budget.left > 0) {
    changed = false;
    for (let size = Math.min(cps.length - 1, 64); size >= 1 && budget.left > 0; size--) {
      for (let i = 0; i + size <= cps.length && budget.left > 0; i++) {
        const cand = cps.slice(0, i).concat(cps.slice(i + size));
        if (cand.length > 0 && (await test(cand))) {
          cps = cand;
          changed = true;
          i--;
        }
      }
    }
  }
  return cps.join('');
}

// ------------------------------------------------------------------------------------------------
// Corpus streaming

async function streamJsonl<T>(
  python: string,
  args: string[],
  expected: number,
  check: (rec: unknown) => rec is T,
  onRecord: (rec: T, index: number) => void,
): Promise<number> {
  const script = args[0]!;
  const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res, rej) => {
    child.on('error', (e) => rej(new PythonFailure(`cannot run ${python} ${script}: ${e.message}`)));
    child.on('close', (code, signal) => res({ code, signal }));
  });
  // Attach a no-op handler so an early spawn error does not become an unhandled rejection.
  exited.catch(() => undefined);
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  let count = 0;
  try {
    for await (const line of rl) {
      if (!line.trim()) continue;
      let rec: unknown;
      try {
        rec = JSON.parse(line);
      } catch {
        throw new PythonFailure(`generator wrote a non-JSON line: ${line.slice(0, 200)}`);
      }
      if (!check(rec)) throw new PythonFailure(`generator wrote a malformed record: ${line.slice(0, 200)}`);
      onRecord(rec, count++);
    }
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  const { code, signal } = await exited;
  const tail = stderr.trim() ? `\n--- python stderr (tail) ---\n${stderr.trim()}` : '';
  if (code !== 0)
    throw new PythonFailure(
      `generator ${script} exited with code ${code ?? 'null'}, signal ${signal ?? 'none'}${tail}`,
    );
  if (count !== expected)
    throw new PythonFailure(`generator ${script} produced ${count} records, expected ${expected}${tail}`);
  return count;
}

interface PartResult {
  summary: string;
  status: number;
}

function failureStatus(e: unknown, what: string): number {
  if (e instanceof PythonFailure) {
    console.error(`fuzz:conditions: ${what}: python side failed: ${e.message}`);
  } else {
    console.error(`fuzz:conditions: ${what}: internal error: ${(e as Error)?.stack ?? String(e)}`);
  }
  return 2;
}

// ------------------------------------------------------------------------------------------------
// Part 1: validation

interface Disagreement {
  index: number;
  record: CorpusRecord;
  ours: Ours;
}

async function runValidation(opts: Options): Promise<PartResult> {
  const times: number[] = [];
  let slowest = { ms: -1, input: '', index: -1 };
  const found: Disagreement[] = [];
  let total = 0;
  let disagreements = 0;
  let status = 0;
  let oracle: Oracle<Verdict> | null = null;

  const isRecord = (r: unknown): r is CorpusRecord => {
    const rec = r as Partial<CorpusRecord> | null;
    return (
      rec !== null && typeof rec === 'object' && typeof rec.condition === 'string' && typeof rec.valid === 'boolean'
    );
  };

  try {
    const args = [GEN_SCRIPT, '--seed', String(opts.seed), '--count', String(opts.cases), '--stdout', '--quiet'];
    total = await streamJsonl(opts.python, args, opts.cases, isRecord, (rec, index) => {
      const { ours, ms } = runOurs(rec.condition);
      times.push(ms);
      if (ms > slowest.ms) slowest = { ms, input: rec.condition, index };
      total = index + 1;
      if (!agrees(rec, ours)) {
        disagreements++;
        if (found.length < opts.report) found.push({ index, record: rec, ours });
      }
    });

    if (found.length > 0) {
      oracle = validationOracle(opts.python);
      for (const [k, d] of found.entries()) {
        const { record: rec, ours } = d;
        console.log(`--- disagreement ${k + 1}/${found.length} (record ${d.index}, origin ${rec.origin})`);
        console.log(disagreeLine(rec, ours, rec.condition));
        console.log(`    cpython: ${rec.message}`);
        console.log(`    ours:    ${ours.detail}`);
        const o = oracle;
        const memo = new Map<string, boolean>();
        const interesting = async (s: string): Promise<boolean> => {
          const hit = memo.get(s);
          if (hit !== undefined) return hit;
          const cp = await o.ask(JSON.stringify({ condition: s }));
          const mine = runOurs(s).ours;
          // Keep the *same* disagreement: CPython's verdict class and our answer stay as in the
          // original, so the reproducer does not drift into an unrelated (e.g. syntax) bug.
          let keep: boolean;
          if (ours.crash !== null) keep = mine.crash !== null;
          else
            keep =
              mine.crash === null &&
              !agrees(cp, mine) &&
              cp.valid === rec.valid &&
              cp.kind === rec.kind &&
              cp.node === rec.node &&
              mine.valid === ours.valid &&
              mine.node === ours.node;
          memo.set(s, keep);
          return keep;
        };
        const calls0 = o.calls;
        const small = await shrink(rec.condition, interesting, { left: opts.shrinkBudget });
        const cp = await o.ask(JSON.stringify({ condition: small }));
        const mine = runOurs(small).ours;
        console.log(disagreeLine(cp, mine, small));
        console.log(`    cpython: ${cp.message}`);
        console.log(`    ours:    ${mine.detail}`);
        console.log(
          `    (shrunk ${codePoints(rec.condition)} -> ${codePoints(small)} code points, ${o.calls - calls0} oracle calls)`,
        );
      }
      if (disagreements > found.length)
        console.log(`... ${disagreements - found.length} more disagreements not shown (--report ${opts.report})`);
    }
    status = disagreements > 0 ? 1 : 0;
  } catch (e) {
    status = failureStatus(e, 'validation');
  } finally {
    oracle?.close();
  }
  if (slowest.index >= 0) {
    console.log(
      `slowest validation: ${slowest.ms.toFixed(2)} ms (record ${slowest.index}) input=${jsonAscii(slowest.input)}`,
    );
  }
  const sorted = Float64Array.from(times).sort();
  const max = sorted.length ? sorted[sorted.length - 1]! : 0;
  const summary = `fuzz:conditions: ${total} cases, ${disagreements} disagreements, max ${max.toFixed(2)} ms, p99 ${percentile(sorted, 0.99).toFixed(2)} ms per validation (seed ${opts.seed})`;
  return { summary, status };
}

// ------------------------------------------------------------------------------------------------
// Part 2: evaluation

/** The inputs of one evaluation (the record fields cpython_eval_oracle.evaluate_record reads). */
interface EvalInputs {
  condition: string;
  capture: Record<string, string>;
  exit_code: number;
  walltime_sec: number;
  peak_vram_mib: number | null;
}

/** CPython's outcome (cpython_eval_oracle.evaluate_record) or ours, in one shape. */
interface Outcome {
  valid: boolean;
  fired?: boolean;
  value?: { type: string; repr: string | null };
  error?: string;
  /** CPython only: the rejection's node and kind, shown in reports. */
  node?: string | null;
  kind?: string;
  /** Ours only: something other than a SandboxError was thrown (first line of it). */
  crash?: string;
  /** Ours only: the SandboxError's message. */
  detail?: string;
}

interface EvalRecord extends EvalInputs, Outcome {
  origin: string;
}

const DEFAULT_VARS = { exit_code: 0, walltime_sec: 1.0, peak_vram_mib: null } as const;

/** CPython names the math extension module's file; we print the built-in form on purpose. */
function normaliseRepr(repr: string | null): string | null {
  return repr?.startsWith("<module 'math' from ") ? "<module 'math' (built-in)>" : repr;
}

function cpOutcome(raw: Outcome): Outcome {
  if (!raw.valid) return { valid: false, node: raw.node ?? null, kind: raw.kind ?? '?' };
  if (raw.error !== undefined) return { valid: true, fired: false, error: raw.error };
  return {
    valid: true,
    fired: raw.fired === true,
    value: { type: raw.value!.type, repr: normaliseRepr(raw.value!.repr) },
  };
}

function isOutcome(r: unknown): r is Outcome {
  const o = r as Partial<Outcome> | null;
  if (o === null || typeof o !== 'object' || typeof o.valid !== 'boolean') return false;
  if (!o.valid) return true;
  if (typeof o.fired !== 'boolean') return false;
  if (o.error !== undefined) return typeof o.error === 'string';
  return (
    o.value !== undefined &&
    typeof o.value.type === 'string' &&
    (o.value.repr === null || typeof o.value.repr === 'string')
  );
}

function isEvalRecord(r: unknown): r is EvalRecord {
  const rec = r as Partial<EvalRecord> | null;
  return (
    rec !== null &&
    typeof rec === 'object' &&
    typeof rec.condition === 'string' &&
    typeof rec.capture === 'object' &&
    rec.capture !== null &&
    typeof rec.exit_code === 'number' &&
    typeof rec.walltime_sec === 'number' &&
    (rec.peak_vram_mib === null || typeof rec.peak_vram_mib === 'number') &&
    isOutcome(rec)
  );
}

function runOursEval(inp: EvalInputs): { out: Outcome; ms: number } {
  const t0 = performance.now();
  let out: Outcome;
  try {
    const c = compileCondition(inp.condition);
    const vars = {
      capture: inp.capture,
      exit_code: inp.exit_code,
      walltime_sec: inp.walltime_sec,
      peak_vram_mib: inp.peak_vram_mib,
    };
    const d = c.evaluateDetailed(vars);
    out =
      'error' in d
        ? { valid: true, fired: false, error: d.error }
        : { valid: true, fired: d.fired, value: { type: d.value.type, repr: d.value.repr } };
    // The spec's `evaluate` and batches encode only the capture keys the condition reads: they must fire alike.
    const fast = [c.evaluate(vars), ...c.evaluateBatch([vars])];
    if (fast.some((f) => f !== d.fired))
      out = { valid: true, crash: `evaluate/evaluateBatch fired ${fast.join('/')} but evaluateDetailed ${d.fired}` };
  } catch (err) {
    if (err instanceof SandboxError) out = { valid: false, node: err.node, kind: err.kind, detail: err.detail };
    else out = { valid: false, crash: describeThrown(err).split('\n')[0]! };
  }
  return { out, ms: performance.now() - t0 };
}

/** The compared fields only: valid, fired, value.type, value.repr, error (and a crash). */
function outcomeKey(o: Outcome): string {
  if (o.crash !== undefined) return `crash`;
  if (!o.valid) return 'invalid';
  if (o.error !== undefined) return `error:${o.error}`;
  return `value:${o.value!.type}:${o.fired}:${o.value!.repr}`;
}

function evalAgrees(cp: Outcome, ours: Outcome): boolean {
  return outcomeKey(cp) === outcomeKey(ours);
}

/** Outcome class of one side: what shrinking keeps fixed. */
function sideClass(o: Outcome): string {
  if (o.crash !== undefined) return 'crash';
  if (!o.valid) return 'rejected';
  if (o.error !== undefined) return `error ${o.error}`;
  return o.value!.type;
}

/**
 * The kind of a disagreement: both sides' outcome classes, and for two values of one type which of
 * repr / fired differ. Shrinking keeps it, so a reproducer does not drift into an unrelated bug.
 */
function disagreementKind(cp: Outcome, ours: Outcome): string {
  const a = sideClass(cp);
  const b = sideClass(ours);
  let what = '';
  if (a === b && cp.value !== undefined && ours.value !== undefined) {
    const parts: string[] = [];
    if (cp.value.repr !== ours.value.repr) parts.push('repr');
    if (cp.fired !== ours.fired) parts.push('fired');
    what = ` (${parts.join('+')} differ)`;
  }
  return `cpython ${a} / ours ${b}${what}`;
}

function fmtOutcome(o: Outcome): string {
  if (o.crash !== undefined) return `CRASH ${o.crash}`;
  if (!o.valid)
    return o.detail !== undefined
      ? `rejected (${o.kind ?? '?'}: ${o.detail})`
      : `rejected (${o.kind ?? '?'}, node ${o.node ?? 'null'})`;
  if (o.error !== undefined) return `fired=false error=${o.error}`;
  return `fired=${o.fired} type=${o.value!.type} repr=${o.value!.repr === null ? 'null' : jsonAscii(o.value!.repr)}`;
}

/** Python float repr for the request: JSON.stringify(-0) is "0", which would lose walltime_sec = -0.0. */
function floatJson(x: number): string {
  return Object.is(x, -0) ? '-0.0' : JSON.stringify(x);
}

function requestJson(inp: EvalInputs): string {
  return (
    `{"condition":${JSON.stringify(inp.condition)},"capture":${JSON.stringify(inp.capture)},` +
    `"exit_code":${JSON.stringify(inp.exit_code)},"walltime_sec":${floatJson(inp.walltime_sec)},` +
    `"peak_vram_mib":${inp.peak_vram_mib === null ? 'null' : JSON.stringify(inp.peak_vram_mib)}}`
  );
}

/** Python's repr of a finite float (shortest round-trip digits), independent of src/ for the reports. */
function pyFloat(x: number): string {
  if (Object.is(x, -0)) return '-0.0';
  const [m, e] = x.toExponential().split('e') as [string, string];
  const exp = Number(e);
  const sign = m.startsWith('-') ? '-' : '';
  const digits = m.replace('-', '').replace('.', '');
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const intPart = digits.padEnd(exp + 1, '0').slice(0, exp + 1);
    return `${sign}${intPart}.${digits.slice(exp + 1) || '0'}`;
  }
  const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function fmtInputs(inp: EvalInputs): string {
  return (
    `condition=${jsonAscii(inp.condition)} capture=${jsonAscii(inp.capture)} exit_code=${inp.exit_code} ` +
    `walltime_sec=${pyFloat(inp.walltime_sec)} peak_vram_mib=${inp.peak_vram_mib === null ? 'null' : inp.peak_vram_mib}`
  );
}

function captureSize(c: Record<string, string>): number {
  let n = 0;
  for (const [k, v] of Object.entries(c)) n += codePoints(k) + codePoints(v);
  return n;
}

interface EvalDisagreement {
  index: number;
  record: EvalRecord;
  cp: Outcome;
  ours: Outcome;
  kind: string;
}

function evalOracle(python: string): Oracle<Outcome> {
  return new Oracle<Outcome>(python, EVAL_ORACLE_SCRIPT, (parsed, line) => {
    // A bad request is {"error": "..."} *without* "valid"; an evaluation error has valid: true.
    if (!isOutcome(parsed)) {
      const e = (parsed as { error?: unknown } | null)?.error;
      return typeof e === 'string' ? e : line.slice(0, 200);
    }
    return cpOutcome(parsed);
  });
}

/**
 * Shrinks one evaluation disagreement: the condition (while both sides accept it and the kind of the
 * disagreement holds), then the capture (drop keys, shrink values), then the other variables to their
 * defaults; repeated while anything got smaller.
 */
async function shrinkEval(d: EvalDisagreement, oracle: Oracle<Outcome>, budgetCalls: number): Promise<EvalInputs> {
  const memo = new Map<string, boolean>();
  const budget: Budget = { left: budgetCalls };
  const oursClass = sideClass(d.ours);
  const interesting = async (inp: EvalInputs): Promise<boolean> => {
    const key = requestJson(inp);
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const mine = runOursEval(inp).out;
    let keep = false;
    // Our side is cheap: ask CPython only when our outcome class is still the original one.
    if (sideClass(mine) === oursClass) {
      const cp = await oracle.ask(key);
      keep = !evalAgrees(cp, mine) && disagreementKind(cp, mine) === d.kind;
    }
    memo.set(key, keep);
    return keep;
  };

  let cur: EvalInputs = {
    condition: d.record.condition,
    capture: { ...d.record.capture },
    exit_code: d.record.exit_code,
    walltime_sec: d.record.walltime_sec,
    peak_vram_mib: d.record.peak_vram_mib,
  };
  for (let round = 0; round < 4 && budget.left > 0; round++) {
    const before = requestJson(cur);
    // 1. the condition text
    const cond = await shrink(cur.condition, (s) => interesting({ ...cur, condition: s }), budget);
    cur = { ...cur, condition: cond };
    // 2. the capture: drop whole keys, then shrink every value (possibly to '')
    for (const k of Object.keys(cur.capture)) {
      if (budget.left <= 0) break;
      const without = Object.fromEntries(Object.entries(cur.capture).filter(([kk]) => kk !== k));
      budget.left--;
      if (await interesting({ ...cur, capture: without })) {
        cur = { ...cur, capture: without };
        continue;
      }
      const withValue = (v: string): Record<string, string> =>
        Object.fromEntries(Object.entries(cur.capture).map(([kk, vv]) => [kk, kk === k ? v : vv]));
      const small = await shrink(cur.capture[k]!, (v) => interesting({ ...cur, capture: withValue(v) }), budget, true);
      cur = { ...cur, capture: withValue(small) };
    }
    // 3. the other variables, to their defaults (or 0)
    for (const [name, values] of [
      ['exit_code', [DEFAULT_VARS.exit_code]],
      ['walltime_sec', [DEFAULT_VARS.walltime_sec, 0]],
      ['peak_vram_mib', [DEFAULT_VARS.peak_vram_mib, 0]],
    ] as const) {
      for (const v of values) {
        if (budget.left <= 0 || Object.is(cur[name], v)) break;
        const cand = { ...cur, [name]: v } as EvalInputs;
        budget.left--;
        if (await interesting(cand)) {
          cur = cand;
          break;
        }
      }
    }
    if (requestJson(cur) === before) break;
  }
  return cur;
}

async function runEvaluation(opts: Options): Promise<PartResult> {
  const times: number[] = [];
  let slowest = { ms: -1, inputs: null as EvalInputs | null, index: -1 };
  const kept: EvalDisagreement[] = [];
  const kinds = new Map<string, number>();
  const origins = new Map<string, number>();
  let total = 0;
  let disagreements = 0;
  let status = 0;
  let oracle: Oracle<Outcome> | null = null;
  const t0 = performance.now();

  try {
    const args = [
      EVAL_GEN_SCRIPT,
      '--seed',
      String(opts.seed),
      '--count',
      String(opts.cases),
      '--stdout',
      '--quiet',
      '--random-only',
    ];
    total = await streamJsonl(opts.python, args, opts.cases, isEvalRecord, (rec, index) => {
      const { out: ours, ms } = runOursEval(rec);
      times.push(ms);
      if (ms > slowest.ms) slowest = { ms, inputs: rec, index };
      total = index + 1;
      origins.set(rec.origin, (origins.get(rec.origin) ?? 0) + 1);
      const cp = cpOutcome(rec);
      if (!evalAgrees(cp, ours)) {
        disagreements++;
        const kind = disagreementKind(cp, ours);
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        if (kept.length < MAX_KEPT) kept.push({ index, record: rec, cp, ours, kind });
      }
    });
    const genMs = performance.now() - t0;
    console.log(
      `evaluation corpus: ${total} records (${[...origins].map(([o, n]) => `${o} ${n}`).join(', ')}), streamed and checked in ${(genMs / 1000).toFixed(1)} s`,
    );

    if (opts.dump !== null && kept.length > 0) {
      writeFileSync(
        opts.dump,
        kept
          .map((d) => JSON.stringify({ index: d.index, kind: d.kind, ...d.record, cpython: d.cp, ours: d.ours }))
          .join('\n') + '\n',
      );
      console.log(`wrote ${kept.length} evaluation disagreements to ${opts.dump}`);
    }

    if (kept.length > 0) {
      console.log(`evaluation disagreements by kind:`);
      for (const [k, n] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(7)}  ${k}`);
      // Distinct kinds first (the first record of each), then the rest in order, up to --report.
      const shown: EvalDisagreement[] = [];
      const seenKinds = new Set<string>();
      for (const d of kept) {
        if (shown.length >= opts.report) break;
        if (!seenKinds.has(d.kind)) {
          seenKinds.add(d.kind);
          shown.push(d);
        }
      }
      for (const d of kept) {
        if (shown.length >= opts.report) break;
        if (!shown.includes(d)) shown.push(d);
      }
      if (shown.length > 0) oracle = evalOracle(opts.python);
      for (const [k, d] of shown.entries()) {
        const o = oracle!;
        console.log(
          `--- evaluation disagreement ${k + 1}/${shown.length} (record ${d.index}, origin ${d.record.origin}): ${d.kind}`,
        );
        console.log(`EVAL-DISAGREE ${fmtInputs(d.record)}`);
        console.log(`    cpython: ${fmtOutcome(d.cp)}`);
        console.log(`    ours:    ${fmtOutcome(d.ours)}`);
        const calls0 = o.calls;
        const small = await shrinkEval(d, o, opts.shrinkBudget);
        const cp = await o.ask(requestJson(small));
        const mine = runOursEval(small).out;
        console.log(`EVAL-DISAGREE ${fmtInputs(small)}`);
        console.log(`    cpython: ${fmtOutcome(cp)}`);
        console.log(`    ours:    ${fmtOutcome(mine)}`);
        console.log(
          `    (shrunk condition ${codePoints(d.record.condition)} -> ${codePoints(small.condition)} code points, ` +
            `capture ${captureSize(d.record.capture)} -> ${captureSize(small.capture)}, ${o.calls - calls0} oracle calls)`,
        );
      }
      if (disagreements > shown.length)
        console.log(
          `... ${disagreements - shown.length} more evaluation disagreements not shown (--report ${opts.report})`,
        );
    }
    status = disagreements > 0 ? 1 : 0;
  } catch (e) {
    status = failureStatus(e, 'evaluation');
  } finally {
    oracle?.close();
  }
  if (slowest.inputs !== null) {
    console.log(
      `slowest evaluation: ${slowest.ms.toFixed(2)} ms (record ${slowest.index}) ${fmtInputs(slowest.inputs)}`,
    );
  }
  const sorted = Float64Array.from(times).sort();
  const max = sorted.length ? sorted[sorted.length - 1]! : 0;
  const summary =
    `fuzz:conditions: ${total} evaluation cases, ${disagreements} disagreements, max ${max.toFixed(2)} ms, ` +
    `p99 ${percentile(sorted, 0.99).toFixed(2)} ms per compile+evaluation (seed ${opts.seed})`;
  return { summary, status };
}

// ------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<number> {
  let opts: Options;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`fuzz:conditions: ${(e as Error).message}`);
    return 2;
  }
  const parts: Part[] = opts.only !== null ? [opts.only] : ['validate', 'evaluate'];
  const onlyArg = opts.only !== null ? ` --only ${opts.only}` : '';
  console.log(
    `fuzz:conditions: seed ${opts.seed}, ${opts.cases} cases per part (${parts.join(' + ')}) ` +
      `(reproduce: npm run fuzz:conditions -- --cases ${opts.cases} --seed ${opts.seed}${onlyArg})`,
  );
  const results: PartResult[] = [];
  for (const part of parts) {
    const t = performance.now();
    const r = part === 'validate' ? await runValidation(opts) : await runEvaluation(opts);
    console.log(`(${part} part: ${((performance.now() - t) / 1000).toFixed(1)} s)`);
    results.push(r);
  }
  for (const r of results) console.log(r.summary);
  return Math.max(...results.map((r) => r.status));
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e);
    process.exitCode = 2;
  },
);
