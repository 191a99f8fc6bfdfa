/**
 * Differential fuzzer: our `validateCondition` against CPython 3.11's `validate_and_compile` verdict.
 *
 *   npm run fuzz:conditions -- --cases N [--seed S] [--report K] [--python PATH]
 *
 * Streams records from `python3 scripts/gen_condition_corpus.py --seed S --count N --stdout` (each one
 * carries CPython's verdict), runs `validateCondition(record.condition)` on each, and compares `valid`
 * and `node`. Every disagreement (up to --report, default 20) is shrunk by delta debugging over code
 * points, asking a long-running `python3 scripts/cpython_oracle.py --serve` for CPython's verdict on
 * every candidate. The last line is always the summary. Exit code: 0 = agreement, 1 = disagreements,
 * 2 = the python side failed (not found, crashed, bad output).
 *
 * Transport is JSON lines both ways, so embedded newlines and lone surrogates survive: Python writes
 * `\udXXX` escapes (ensure_ascii) and JSON.stringify escapes lone surrogates too.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { SandboxError, validateCondition } from '../src/index.js';

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

interface Options {
  cases: number;
  seed: number;
  report: number;
  python: string;
  shrinkBudget: number;
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
const ORACLE_TIMEOUT_MS = 30_000;

function usage(): string {
  return 'usage: npm run fuzz:conditions -- --cases N [--seed S] [--report K] [--python PATH] [--shrink-budget CALLS]';
}

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    cases: 2000,
    seed: randomInt(1, 2 ** 31 - 1),
    report: 20,
    python: process.env['PYTHON'] ?? 'python3',
    shrinkBudget: 3000,
  };
  const intArg = (name: string, value: string | undefined, min: number): number => {
    if (value === undefined || !/^-?\d+$/.test(value)) throw new Error(`${name} needs an integer, got ${value ?? 'nothing'}`);
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
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
      const e = err as { name?: unknown; message?: unknown } | null;
      const desc =
        e !== null && typeof e === 'object' ? `${String(e.name ?? 'Error')}: ${String(e.message ?? '')}` : `thrown ${typeof err}: ${String(err)}`;
      ours = { valid: false, node: null, kind: null, detail: desc, crash: desc.split('\n')[0]! };
    }
  }
  return { ours, ms: performance.now() - t0 };
}

function agrees(cp: Verdict, ours: Ours): boolean {
  return ours.crash === null && ours.valid === cp.valid && ours.node === cp.node;
}

/** JSON with every non-ASCII code unit escaped, so invisible characters and lone surrogates show. */
function jsonAscii(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
// Python oracle (long-running --serve child)

class Oracle {
  private child: ChildProcessWithoutNullStreams;
  private queue: Array<{ resolve: (v: Verdict) => void; reject: (e: Error) => void }> = [];
  private dead: Error | null = null;
  private stderr = '';
  calls = 0;

  constructor(python: string) {
    this.child = spawn(python, [ORACLE_SCRIPT, '--serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin.setDefaultEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    this.child.stdin.on('error', (e) => this.fail(new PythonFailure(`oracle stdin: ${e.message}`)));
    this.child.on('error', (e) => this.fail(new PythonFailure(`cannot run ${python} ${ORACLE_SCRIPT}: ${e.message}`)));
    this.child.on('exit', (code, signal) => {
      this.fail(new PythonFailure(`oracle exited (code ${code ?? 'null'}, signal ${signal ?? 'none'})${this.stderrTail()}`));
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
      const v = parsed as Partial<Verdict> & { error?: string };
      if (typeof v.error === 'string' || typeof v.valid !== 'boolean') {
        waiter.reject(new PythonFailure(`oracle error: ${v.error ?? line.slice(0, 200)}`));
        return;
      }
      waiter.resolve(v as Verdict);
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

  verdict(condition: string): Promise<Verdict> {
    if (this.dead) return Promise.reject(this.dead);
    this.calls++;
    return new Promise<Verdict>((resolveV, rejectV) => {
      // A hung oracle is as fatal as a crashed one: one verdict never takes anywhere near this long.
      const timer = setTimeout(() => {
        this.fail(new PythonFailure(`oracle did not answer within ${ORACLE_TIMEOUT_MS / 1000} s${this.stderrTail()}`));
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
      this.child.stdin.write(`${JSON.stringify({ condition })}\n`);
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

// ------------------------------------------------------------------------------------------------
// Delta debugging over code points

/**
 * Minimises `input` while `interesting` holds: ddmin over chunks of code points, then single
 * code-point removals to a fixpoint. `budget` bounds the number of predicate calls.
 */
async function shrink(input: string, interesting: (s: string) => Promise<boolean>, budget: number): Promise<string> {
  let cps = Array.from(input);
  let calls = 0;
  const test = async (cand: string[]): Promise<boolean> => {
    calls++;
    return interesting(cand.join(''));
  };
  let n = 2;
  while (cps.length >= 2 && calls < budget) {
    const chunk = Math.ceil(cps.length / n);
    let reduced = false;
    for (let start = 0; start < cps.length && calls < budget; start += chunk) {
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
  while (changed && calls < budget) {
    changed = false;
    for (let size = Math.min(cps.length - 1, 64); size >= 1 && calls < budget; size--) {
      for (let i = 0; i + size <= cps.length && calls < budget; i++) {
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
// Main

interface Disagreement {
  index: number;
  record: CorpusRecord;
  ours: Ours;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[idx]!;
}

async function streamCorpus(opts: Options, onRecord: (rec: CorpusRecord, index: number) => void): Promise<number> {
  const args = [GEN_SCRIPT, '--seed', String(opts.seed), '--count', String(opts.cases), '--stdout', '--quiet'];
  const child = spawn(opts.python, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res, rej) => {
    child.on('error', (e) => rej(new PythonFailure(`cannot run ${opts.python} ${GEN_SCRIPT}: ${e.message}`)));
    child.on('close', (code, signal) => res({ code, signal }));
  });
  // Attach a no-op handler so an early spawn error does not become an unhandled rejection.
  exited.catch(() => undefined);
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  let count = 0;
  try {
    for await (const line of rl) {
      if (!line.trim()) continue;
      let rec: CorpusRecord;
      try {
        rec = JSON.parse(line) as CorpusRecord;
      } catch {
        throw new PythonFailure(`generator wrote a non-JSON line: ${line.slice(0, 200)}`);
      }
      if (typeof rec.condition !== 'string' || typeof rec.valid !== 'boolean') {
        throw new PythonFailure(`generator wrote a malformed record: ${line.slice(0, 200)}`);
      }
      onRecord(rec, count++);
    }
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  const { code, signal } = await exited;
  const tail = stderr.trim() ? `\n--- python stderr (tail) ---\n${stderr.trim()}` : '';
  if (code !== 0) throw new PythonFailure(`generator exited with code ${code ?? 'null'}, signal ${signal ?? 'none'}${tail}`);
  if (count !== opts.cases) throw new PythonFailure(`generator produced ${count} records, expected ${opts.cases}${tail}`);
  return count;
}

async function main(): Promise<number> {
  let opts: Options;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`fuzz:conditions: ${(e as Error).message}`);
    return 2;
  }
  console.log(`fuzz:conditions: seed ${opts.seed}, ${opts.cases} cases (reproduce: npm run fuzz:conditions -- --cases ${opts.cases} --seed ${opts.seed})`);

  const times: number[] = [];
  let slowest = { ms: -1, input: '', index: -1 };
  const found: Disagreement[] = [];
  let total = 0;
  let disagreements = 0;
  let status = 0;
  let oracle: Oracle | null = null;

  const summary = (): string => {
    const sorted = Float64Array.from(times).sort();
    const max = sorted.length ? sorted[sorted.length - 1]! : 0;
    return `fuzz:conditions: ${total} cases, ${disagreements} disagreements, max ${max.toFixed(2)} ms, p99 ${percentile(sorted, 0.99).toFixed(2)} ms per validation (seed ${opts.seed})`;
  };

  try {
    total = await streamCorpus(opts, (rec, index) => {
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
      oracle = new Oracle(opts.python);
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
          const cp = await o.verdict(s);
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
        const small = await shrink(rec.condition, interesting, opts.shrinkBudget);
        const cp = await o.verdict(small);
        const mine = runOurs(small).ours;
        console.log(disagreeLine(cp, mine, small));
        console.log(`    cpython: ${cp.message}`);
        console.log(`    ours:    ${mine.detail}`);
        console.log(`    (shrunk ${Array.from(rec.condition).length} -> ${Array.from(small).length} code points, ${o.calls - calls0} oracle calls)`);
      }
      if (disagreements > found.length) console.log(`... ${disagreements - found.length} more disagreements not shown (--report ${opts.report})`);
    }
    status = disagreements > 0 ? 1 : 0;
  } catch (e) {
    if (e instanceof PythonFailure) {
      console.error(`fuzz:conditions: python side failed: ${e.message}`);
      status = 2;
    } else {
      console.error(`fuzz:conditions: internal error: ${(e as Error)?.stack ?? String(e)}`);
      status = 2;
    }
  } finally {
    oracle?.close();
  }
  if (slowest.index >= 0) {
    console.log(`slowest validation: ${slowest.ms.toFixed(2)} ms (record ${slowest.index}) input=${jsonAscii(slowest.input)}`);
  }
  console.log(summary());
  return status;
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
