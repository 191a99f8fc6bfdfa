/**
 * Issue 33 §2 and §4, as a library user meets them: a trial (or a link planted in the run) never makes the sweep
 * write or delete outside the run; a re-run resumes per trial, refuses a different sweep, moves one aside with
 * `fresh`; the lock refuses a live holder and takes over a dead one's; one cluster task whose trial is complete
 * returns its recorded status at once. Each attack is a variant of the repro (other names and sizes).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LOCK_FILE,
  loadSweepPlan,
  PlantedLinkError,
  RunDirLockedError,
  RunIdentityError,
  runSweep,
  type SweepPlan,
} from '../src/sweep/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-sweep-contain-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const trial = { gpuTool: 'none' as const, killGraceMs: 200 };
/** A sweep of `p` into `out` whose trial command is the shell script `script`. */
const inSh = (p: SweepPlan, out: string, script: string) =>
  runSweep({ plan: p, argv: ['sh', '-c', script], outDir: out, trial });
/** What a sweep rejects with, or null when it resolves. */
const rejection = (p: Promise<unknown>): Promise<Error | null> =>
  p.then(
    () => null,
    (e: unknown) => e as Error,
  );

async function plan(body: string): Promise<SweepPlan> {
  const p = join(root, `r${++n}.yaml`);
  writeFileSync(p, `schema_version: 1\nmode: probe\nticket: K-${n}\n${body}`);
  return loadSweepPlan(p);
}

/** A directory outside every run, with files a careless sweep would overwrite or delete. */
function victim(): string {
  const v = join(root, `victim${n}`);
  mkdirSync(join(v, 'trial_1'), { recursive: true });
  writeFileSync(join(v, 'precious.txt'), 'keep me\n');
  writeFileSync(join(v, 'trial_1', 'notes.md'), 'mine\n');
  return v;
}
const victimFiles = (v: string): string[] =>
  readdirSync(v, { recursive: true, encoding: 'utf8' })
    .map((f) => `${f}:${f === 'trial_1' ? '' : readFileSync(join(v, f), 'utf8')}`)
    .sort();
const UNTOUCHED = ['precious.txt:keep me\n', 'trial_1/notes.md:mine\n', 'trial_1:'];

describe('a trial cannot make the sweep write or delete outside the run', { timeout: 60_000 }, () => {
  it("a link planted at the record's temporary name: the link's target keeps its bytes", async () => {
    const p = await plan('trials: 2\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const v = victim();
    // The old temporary name was .result.json.<sweep pid>.tmp; the trial knows its parent's pid.
    const s = await runSweep({
      plan: p,
      argv: ['sh', '-c', `ln -s "${v}/precious.txt" "$AORTA_PROBE_TRIAL_DIR/.result.json.$PPID.tmp"; exit 1`],
      outDir: join(root, `out${n}`),
      trial,
    });
    expect(s.trials.map((t) => t.verdict)).toEqual(['fail', 'fail']);
    expect(victimFiles(v)).toEqual(UNTOUCHED);
  });

  it('a trial that swaps its own directory for a link: nothing is pruned there, the sweep stops naming it', async () => {
    const p = await plan('trials: 3\nmitigation_axis: [none]\ndiagnostic_axis: [none]\nretain: {on_fail: none}\n');
    const v = victim();
    const out = join(root, `out${n}`);
    const err = await rejection(
      inSh(
        p,
        out,
        `D="$AORTA_PROBE_TRIAL_DIR"; [ "$AORTA_PROBE_TRIAL_INDEX" = 1 ] && mv "$D" "$D.gone" && ln -s "${v}" "$D"; exit 1`,
      ),
    );
    expect(err).toBeInstanceOf(PlantedLinkError);
    expect((err as Error).message).toBe(
      `refusing to follow ${join(out, p.ticket, 'none-none', 'trial_1')}: it is a symbolic link or not a directory (something replaced a directory of the run; nothing outside it was touched)`,
    );
    expect(victimFiles(v)).toEqual(UNTOUCHED);
    // The moved directory is the trial's own: its record is there, unpruned (the sweep stopped before retention).
    expect(readdirSync(join(out, p.ticket, 'none-none', 'trial_1.gone')).sort()).toEqual(['output.log', 'result.json']);
    expect(existsSync(join(out, p.ticket, 'none-none', 'trial_2'))).toBe(false);
  });

  it("a link planted at the cell level: the next trial's clean-up deletes nothing behind it", async () => {
    const p = await plan('trials: 2\nmitigation_axis: [none, m2]\ndiagnostic_axis: [none]\nmitigations: {m2: {}}\n');
    const v = victim();
    const out = join(root, `out${n}`);
    const err = await rejection(
      inSh(
        p,
        out,
        // The first cell's first trial plants the second cell's directory as a link to the victim.
        `C=$(dirname "$AORTA_PROBE_TRIAL_DIR"); [ "$AORTA_PROBE_CELL/$AORTA_PROBE_TRIAL_INDEX" = none-none/0 ] && ln -s "${v}" "$C/../m2-none"; exit 0`,
      ),
    );
    expect(err).toBeInstanceOf(PlantedLinkError);
    expect((err as Error).message).toBe(
      `refusing to follow ${join(out, p.ticket, 'm2-none')}: it is a symbolic link or not a directory (something replaced a directory of the run; nothing outside it was touched)`,
    );
    expect(victimFiles(v)).toEqual(UNTOUCHED);
  });

  it('a link planted at the ticket level: the run directory held open, the writes stay in the run', async () => {
    const p = await plan('trials: 3\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const v = victim();
    const out = join(root, `out${n}`);
    const s = await inSh(
      p,
      out,
      `T=$(dirname "$(dirname "$AORTA_PROBE_TRIAL_DIR")"); [ "$AORTA_PROBE_TRIAL_INDEX" = 0 ] && mv "$T" "$T.moved" && ln -s "${v}" "$T"; exit 0`,
    );
    expect(s.trials.map((t) => t.verdict)).toEqual(['pass', 'pass', 'pass']);
    expect(victimFiles(v)).toEqual(UNTOUCHED);
    expect(readdirSync(join(out, `${p.ticket}.moved`, 'none-none')).sort()).toEqual(['trial_0', 'trial_1', 'trial_2']);
  });
});

/** A command that appends its trial index to `log` (how many times each trial ran) and exits `code`. */
const counting = (log: string, code = 0): string[] => [
  'sh',
  '-c',
  `echo "$AORTA_PROBE_CELL/$AORTA_PROBE_TRIAL_INDEX" >> "${log}"; exit ${code}`,
];
const ranLines = (log: string): string[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

describe('errors name the trial directory, not the descriptor it was reached through', { timeout: 60_000 }, () => {
  it('a record that cannot be written (result.json made a directory by the trial)', async () => {
    const p = await plan('trials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const out = join(root, `out${n}`);
    const err = await rejection(
      runSweep({ plan: p, argv: ['sh', '-c', 'mkdir "$AORTA_PROBE_TRIAL_DIR/result.json"'], outDir: out, trial }),
    );
    expect(err?.name).toBe('TrialOutputError');
    expect(err?.message).toMatch(
      new RegExp(`^cannot write ${join(out, p.ticket, 'none-none', 'trial_0')}/result\\.json: E(ISDIR|NOTEMPTY|EXIST)`),
    );
    expect(err?.message).not.toContain('/proc/self/fd');
  });
});

describe('resume, identity, --fresh and the lock', { timeout: 60_000 }, () => {
  it('a re-run keeps every complete trial and runs only the rest (interrupted, missing, damaged, foreign)', async () => {
    const p = await plan('trials: 5\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const out = join(root, `out${n}`);
    const log = join(root, `ran${n}.txt`);
    const first = await runSweep({ plan: p, argv: counting(log), outDir: out, trial });
    expect(first.runId).toMatch(/^[0-9a-f]{32}$/);
    const cell = join(out, p.ticket, 'none-none');
    // trial_1: record gone (SIGKILL before it was written); trial_2: truncated; trial_3: another run's record.
    rmSync(join(cell, 'trial_1', 'result.json'));
    writeFileSync(join(cell, 'trial_2', 'result.json'), '{"verdict": "pa');
    const r3 = JSON.parse(readFileSync(join(cell, 'trial_3', 'result.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(cell, 'trial_3', 'result.json'), JSON.stringify({ ...r3, run_id: 'f'.repeat(32) }));
    const events: string[] = [];
    const again = await runSweep({
      plan: p,
      argv: counting(log),
      outDir: out,
      trial,
      onEvent: (e) => {
        if (e.type === 'resumed') events.push(`kept ${e.trial.task.trial}`);
        if (e.type === 'start') events.push(`ran ${e.task.trial}`);
      },
    });
    expect(events).toEqual(['kept 0', 'kept 4', 'ran 1', 'ran 2', 'ran 3']);
    expect(again.runId).toBe(first.runId);
    expect(again.trials.map((t) => [t.task.trial, t.verdict, t.resumed])).toEqual([
      [0, 'pass', true],
      [1, 'pass', false],
      [2, 'pass', false],
      [3, 'pass', false],
      [4, 'pass', true],
    ]);
    expect(ranLines(log)).toEqual([
      'none-none/0',
      'none-none/1',
      'none-none/2',
      'none-none/3',
      'none-none/4',
      'none-none/1',
      'none-none/2',
      'none-none/3',
    ]);
    const rec = JSON.parse(readFileSync(join(cell, 'trial_2', 'result.json'), 'utf8')) as Record<string, unknown>;
    expect(rec.run_id).toBe(first.runId);
  });

  it('stop_after counts the kept trials', async () => {
    const p = await plan(
      'trials: 6\nmitigation_axis: [none]\ndiagnostic_axis: [none]\nstop_after: {events: 2, max_trials: 6}\n',
    );
    const out = join(root, `out${n}`);
    const log = join(root, `ran${n}.txt`);
    const stop = new AbortController();
    // First invocation: one failing trial, then interrupted before the second starts.
    await runSweep({
      plan: p,
      argv: counting(log, 1),
      outDir: out,
      trial,
      signal: stop.signal,
      onEvent: (e) => e.type === 'end' && stop.abort('SIGINT'),
    });
    const s = await runSweep({ plan: p, argv: counting(log, 1), outDir: out, trial });
    expect(s.trials.map((t) => [t.task.trial, t.verdict, t.resumed])).toEqual([
      [0, 'fail', true],
      [1, 'fail', false],
    ]);
    expect(s.stoppedCells).toEqual(['none-none']);
    expect(ranLines(log)).toEqual(['none-none/0', 'none-none/1']);
  });

  it('a different sweep in the run directory is refused, naming what changed; fresh moves it aside', async () => {
    const p = await plan('trials: 2\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const out = join(root, `out${n}`);
    const log = join(root, `ran${n}.txt`);
    await runSweep({ plan: p, argv: counting(log), outDir: out, trial });
    const err = await rejection(runSweep({ plan: p, argv: counting(log, 3), outDir: out, trial }));
    expect(err).toBeInstanceOf(RunIdentityError);
    expect((err as Error).message).toBe(
      `${join(out, p.ticket)} holds a different sweep: the command changed (['sh', '-c', 'echo "$AORTA_PROBE_CELL/$AORTA_PROBE_TRIAL_INDEX" >> "${log}"; exit 0'] → ['sh', '-c', 'echo "$AORTA_PROBE_CELL/$AORTA_PROBE_TRIAL_INDEX" >> "${log}"; exit 3']). Its finished trials would be mixed with this sweep's: re-run with --fresh to move it aside (nothing is deleted), or use another --out or --ticket`,
    );
    const q = await loadSweepPlan(p.recipePath, { trials: 3 });
    const err2 = await rejection(runSweep({ plan: q, argv: counting(log), outDir: out, trial }));
    expect(err2?.message).toContain('trials per cell changed (2 → 3)');
    expect(ranLines(log)).toHaveLength(2);

    const fresh = await runSweep({ plan: p, argv: counting(log, 3), outDir: out, trial, fresh: true });
    expect(fresh.trials.map((t) => [t.verdict, t.resumed])).toEqual([
      ['fail', false],
      ['fail', false],
    ]);
    expect(fresh.movedAside).toMatch(new RegExp(`^${join(out, p.ticket)}\\.prev-\\d{8}T\\d{6}Z$`));
    // Nothing deleted: the old run, its records and its run.json, under the new name.
    expect(readdirSync(fresh.movedAside!).sort()).toEqual([
      '.aorta-probe-tmp',
      'host_env.json',
      'matrix.json',
      'matrix.md',
      'none-none',
      'recipe.resolved.yaml',
      'recipe.yaml',
      'run.json',
    ]);
    expect(readdirSync(join(fresh.movedAside!, 'none-none', 'trial_1')).sort()).toEqual(['output.log', 'result.json']);
  });

  it('a run directory of unknown identity (no run.json, trials in it) is refused, not overwritten', async () => {
    const p = await plan('trials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const out = join(root, `out${n}`);
    mkdirSync(join(out, p.ticket, 'none-none', 'trial_0'), { recursive: true });
    writeFileSync(join(out, p.ticket, 'none-none', 'trial_0', 'result.json'), '{}');
    const err = await rejection(runSweep({ plan: p, argv: ['true'], outDir: out, trial }));
    expect(err).toBeInstanceOf(RunIdentityError);
    expect(err?.message).toContain('it has no readable run.json (a run of an earlier version, or a damaged one)');
    expect(readFileSync(join(out, p.ticket, 'none-none', 'trial_0', 'result.json'), 'utf8')).toBe('{}');
  });

  it('the lock: a live holder on this host or any holder elsewhere refuses; a dead one is taken over', async () => {
    const p = await plan('trials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const out = join(root, `out${n}`);
    const runDir = join(out, p.ticket);
    mkdirSync(runDir, { recursive: true });
    const lock = join(runDir, LOCK_FILE);
    const holder = (pid: number, host: string) =>
      writeFileSync(lock, JSON.stringify({ pid, host, started_at: '2026-12-01T00:00:00.000Z' }));

    holder(process.ppid, hostname()); // alive: our parent
    const live = await rejection(runSweep({ plan: p, argv: ['true'], outDir: out, trial }));
    expect(live).toBeInstanceOf(RunDirLockedError);
    expect(live?.message).toBe(
      `${runDir} is locked: another sweep is running in it (holder host=${JSON.stringify(hostname())} pid=${process.ppid} started_at="2026-12-01T00:00:00.000Z"). If the holder is no longer running, remove ${lock} and retry.`,
    );
    holder(1234, 'gpu-node-17');
    const other = await rejection(runSweep({ plan: p, argv: ['true'], outDir: out, trial }));
    expect(other?.message).toContain(
      'is locked: lock was created on a different host; cross-host liveness cannot be verified automatically',
    );

    const dead = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
    holder(Number(dead), hostname());
    const warnings: string[] = [];
    const s = await runSweep({ plan: p, argv: ['true'], outDir: out, trial, onWarning: (w) => warnings.push(w) });
    expect(s.counts.pass).toBe(1);
    expect(warnings).toEqual([
      `${runDir}/${LOCK_FILE} was left by pid ${dead} (started 2026-12-01T00:00:00.000Z), which is no longer running; taking it over`,
    ]);
    expect(existsSync(lock)).toBe(false); // released at the end
  });

  it('one cluster task whose trial is complete returns its recorded status without running it', async () => {
    const p = await plan('trials: 2\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n');
    const out = join(root, `out${n}`);
    const log = join(root, `ran${n}.txt`);
    const a = await runSweep({ plan: p, argv: counting(log, 1), outDir: out, trial, taskIndex: 1 });
    expect(a.trials.map((t) => [t.verdict, t.exitStatus, t.resumed])).toEqual([['fail', 1, false]]);
    const b = await runSweep({ plan: p, argv: counting(log, 1), outDir: out, trial, taskIndex: 1 });
    expect(b.trials.map((t) => [t.verdict, t.exitStatus, t.resumed])).toEqual([['fail', 1, true]]);
    expect(ranLines(log)).toEqual(['none-none/1']);
    expect(existsSync(join(out, p.ticket, LOCK_FILE))).toBe(false); // tasks take no lock
  });
});
