import { afterAll, describe, expect, it } from 'vitest';
import { HangMonitor, evaluateHangPredicate, pollIntervalSec, type HangProbes } from '../src/trial/tier2-hang.js';
import { parseProcIo, treeIoTotal } from '../src/trial/proc-io.js';
import { ProgressLines } from '../src/trial/progress-lines.js';
import { TIER2_HANG } from '../src/detectors/ids.js';
import { DEFAULT_HANG_GRACE_SEC, DEFAULT_HANG_WINDOW_SEC } from '../src/recipe/types.js';
import { fakeKernelEnv, probeRecipe, tempRoot, trial } from './support/classifier.js';
import type { HangNotice } from '../src/trial/index.js';
import { resolve } from 'node:path';

/** A fake trainer with a tqdm-style progress bar (test/support/fake-trial-tools/tqdm-trainer.mjs). */
const TQDM_TRAINER = resolve('test/support/fake-trial-tools/tqdm-trainer.mjs');

const tmp = tempRoot('aorta-tier2-');
afterAll(() => tmp.cleanup());

describe('Tier 2 predicate (the original test_tier2.py)', () => {
  it('two of three signals are required (exhaustive truth table at elapsed 120)', () => {
    for (const outputSilent of [false, true]) {
      for (const ioIdle of [false, true]) {
        for (const gpuIdle of [false, true]) {
          const n = Number(outputSilent) + Number(ioIdle) + Number(gpuIdle);
          expect(
            evaluateHangPredicate({ outputSilent, ioIdle, gpuIdle, elapsedSec: 120 }),
            `${outputSilent}/${ioIdle}/${gpuIdle}`,
          ).toBe(n >= 2);
        }
      }
    }
  });

  it('the grace period suppresses early detection', () => {
    expect(evaluateHangPredicate({ outputSilent: true, ioIdle: true, gpuIdle: true, elapsedSec: 10 }, 60)).toBe(false);
  });

  it('defaults are a 60 s grace and a 30 s window', () => {
    expect([DEFAULT_HANG_GRACE_SEC, DEFAULT_HANG_WINDOW_SEC]).toEqual([60, 30]);
    expect(evaluateHangPredicate({ outputSilent: true, ioIdle: true, gpuIdle: false, elapsedSec: 59.9 })).toBe(false);
    expect(probeRecipe('').hangWindowSec).toBe(30);
    expect(probeRecipe('').hangGracePeriodAtStart).toBe(60);
  });

  it('fires at exactly the grace boundary', () => {
    expect(evaluateHangPredicate({ outputSilent: true, ioIdle: true, gpuIdle: false, elapsedSec: 60 }, 60)).toBe(true);
  });

  it('the detector id is tier2:hang', () => {
    expect(TIER2_HANG).toBe('tier2:hang');
  });

  it('polls five times per window, at most every 5 s (the original)', () => {
    expect(pollIntervalSec(30)).toBe(5);
    expect(pollIntervalSec(1)).toBe(0.2);
  });
});

/** Probes on a fake clock the test advances. */
function fakeProbes(io: () => number | null, util: () => number | null = () => null): HangProbes & { t: number } {
  const p = {
    t: 0,
    ioTotal: async () => {
      const v = io();
      return v === null ? null : { value: v, slack: 0 };
    },
    gpuUtilizationPct: util,
    now: () => p.t,
  };
  return p;
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

describe('HangMonitor', () => {
  it('starts and stops cleanly (pid of a fake tree, window 0.05, grace 0, poll 0.01)', async () => {
    const m = new HangMonitor({
      windowSec: 0.05,
      graceSec: 0,
      pollSec: 0.01,
      progress: false,
      probes: { ioTotal: async () => null, gpuUtilizationPct: () => null, now: () => performance.now() },
    });
    m.start();
    m.start(); // a second start while running is a no-op
    expect(m.running).toBe(true);
    await new Promise((r) => setTimeout(r, 30));
    await m.stop();
    expect(m.running).toBe(false);
    expect(m.report().polls).toBeGreaterThan(0);
  });

  it('does not fire during the grace period', async () => {
    const p = fakeProbes(
      () => 7,
      () => 0,
    );
    const m = new HangMonitor({ windowSec: 0.05, graceSec: 10, pollSec: 0.001, progress: false, probes: p });
    m.start();
    for (let i = 0; i < 5; i++) {
      p.t += 1000;
      await tick();
    }
    await m.stop();
    expect(m.detected).toBe(false);
  });

  it('cannot fire when the I/O source is missing and there is no GPU reading (only the output signal holds)', async () => {
    const p = fakeProbes(() => null);
    const m = new HangMonitor({ windowSec: 0.01, graceSec: 0, pollSec: 0.001, progress: false, probes: p });
    m.start();
    for (let i = 0; i < 10; i++) {
      p.t += 1000;
      await tick();
    }
    await m.stop();
    expect(m.detected).toBe(false);
    expect(m.report()).toMatchObject({ io_readable: false, gpu_readable: false });
  });

  it('latches at the first poll where two signals have held for the window, and reports them', async () => {
    const p = fakeProbes(
      () => 42,
      () => 3,
    );
    let hung: unknown = null;
    const m = new HangMonitor({
      windowSec: 2,
      graceSec: 0,
      pollSec: 0.001,
      progress: false,
      probes: p,
      onHang: (r) => (hung = r),
    });
    m.start();
    await tick();
    p.t = 1000;
    m.noteOutput(); // output keeps arriving: only I/O and GPU go idle
    await tick();
    p.t = 2500;
    await tick();
    await m.stop();
    expect(m.detected).toBe(true);
    expect(hung).toMatchObject({
      detected: true,
      detected_after_sec: 2.5,
      signals: { output_silent: false, io_idle: true, gpu_idle: true },
    });
  });

  it('a GPU at 5 % is not idle (strictly below 5)', async () => {
    const p = fakeProbes(
      () => 42,
      () => 5,
    );
    const m = new HangMonitor({ windowSec: 1, graceSec: 0, pollSec: 0.001, progress: true, probes: p });
    m.start();
    await tick();
    p.t = 5000;
    m.noteProgress();
    await tick();
    await m.stop();
    expect(m.detected).toBe(false);
  });

  it('with progress lines, plain output does not count', async () => {
    const p = fakeProbes(() => 42);
    const m = new HangMonitor({ windowSec: 1, graceSec: 0, pollSec: 0.001, progress: true, probes: p });
    m.start();
    await tick();
    p.t = 1500;
    m.noteOutput();
    await tick();
    await m.stop();
    expect(m.report().signals).toEqual({ output_silent: true, io_idle: true, gpu_idle: false });
  });
});

describe('/proc I/O and progress lines', () => {
  it('parses rchar + wchar', () => {
    expect(parseProcIo('rchar: 6976\nwchar: 10\nsyscr: 10\n')).toBe(6986);
    expect(parseProcIo('garbage')).toBeNull();
  });

  it('an unreadable pid gives null (the original: pid -1)', async () => {
    expect(await treeIoTotal(-1, '/nonexistent/log')).toBeNull();
  });

  it('reads our own process', async () => {
    expect(await treeIoTotal(process.pid, '/nonexistent/log')).toMatchObject({ value: expect.any(Number), slack: 0 });
  });

  it("I/O that is not log output is activity; a change within the readings' slack is not", async () => {
    let v = { value: 100, slack: 0 };
    const p = { t: 0, ioTotal: async () => v, gpuUtilizationPct: () => null, now: () => p.t };
    const m = new HangMonitor({ windowSec: 1, graceSec: 0, pollSec: 0.001, progress: true, probes: p });
    m.start();
    await tick();
    p.t = 800;
    v = { value: 90 + 4096, slack: 10 }; // a log write raced the reading, and a few KiB of noise
    await tick();
    p.t = 1200;
    await tick();
    await m.stop();
    expect(m.report().signals).toEqual({ output_silent: true, io_idle: true, gpu_idle: false });
    v = { value: 100, slack: 0 };
    const m2 = new HangMonitor({ windowSec: 1, graceSec: 0, pollSec: 0.001, progress: true, probes: p });
    p.t = 0;
    m2.start();
    await tick();
    p.t = 800;
    v = { value: 100 + 4096 + 11, slack: 10 }; // real I/O: more than the slack and the noise floor
    await tick();
    p.t = 1200;
    await tick();
    await m2.stop();
    expect(m2.detected).toBe(false);
  });

  it('a lone \\r ends a progress line (tqdm redraws its bar), \\r\\n is one end, also across chunks', () => {
    const p = new ProgressLines('\\d+/\\d+');
    expect(p.push(Buffer.from('\r  0%|     | 0/8'))).toBe(0); // the bar being drawn is not progress yet
    expect(p.push(Buffer.from('\r 12%|▌    | 1/8\r 25%|█'))).toBe(2);
    expect(p.push(Buffer.from('    | 2/8\r'))).toBe(1);
    p.dispose();
    // "\r\n" split over two chunks is one line end: the "\n" does not end an empty line.
    const empty = new ProgressLines('^$');
    expect(empty.push(Buffer.from('a\r'))).toBe(0);
    expect(empty.push(Buffer.from('\nb\r\n\n'))).toBe(1); // "b" then one real empty line
    empty.dispose();
  });

  it('counts completed lines matching progress_regex, across chunk boundaries', () => {
    const p = new ProgressLines('^step \\d+');
    expect(p.push(Buffer.from('heartbeat\nst'))).toBe(0);
    expect(p.push(Buffer.from('ep 12 loss=1\nstep 13'))).toBe(1);
    expect(p.push(Buffer.from('\n'))).toBe(1);
    p.dispose();
  });
});

// Trials, with 1 s windows and no grace so they are quick. dmesg is a fake that prints nothing.
const env = fakeKernelEnv('/nonexistent/kernel.log');
const HEARTBEAT = "let n=0;const t=setInterval(()=>{console.log('heartbeat '+(++n));if(n>=15)clearInterval(t)},200)";
const PROGRESS = "let n=0;const t=setInterval(()=>{console.log('step '+(++n));if(n>=8)clearInterval(t)},400)";

describe('Tier 2 in a trial', () => {
  it('a silent sleeping trial hangs (hang_action: kill stops it: fail, tier2:hang, exit_code -1)', async () => {
    const recipe = probeRecipe('hang_window_sec: 1\nhang_grace_period_at_start: 0\nhang_action: kill\n');
    const { result } = await trial(recipe, ['sleep', '30'], { outDir: tmp.dir('sleep'), env });
    expect(result.verdict).toBe('fail');
    expect(result.failure_detectors_fired).toEqual(['tier2:hang']);
    expect(result.error_detectors_fired).toEqual([]);
    expect(result.exit_code).toBe(-1);
    expect(result.hang).toMatchObject({
      detected: true,
      killed: true,
      reconciled: false,
      action: 'kill',
      output_signal: 'output',
      io_readable: true,
      signals: { output_silent: true, io_idle: true, gpu_idle: false },
    });
    expect(result.hang!.detected_after_sec).toBeGreaterThanOrEqual(1);
    expect(result.walltime_sec).toBeLessThan(15);
    expect(result.detector_categories).toEqual({
      'tier2:hang': { kind: 'failure', who: 'unknown', transient: true, category: null },
    });
  }, 30_000);

  it('a heartbeat every 0.2 s without progress hangs when progress_regex is set', async () => {
    const recipe = probeRecipe(
      "hang_window_sec: 1\nhang_grace_period_at_start: 0\nhang_action: kill\nprogress_regex: '^step \\d+'\n",
    );
    const { result } = await trial(recipe, ['node', '-e', HEARTBEAT], { outDir: tmp.dir('beat-progress'), env });
    expect(result.failure_detectors_fired).toEqual(['tier2:hang']);
    expect(result.hang).toMatchObject({
      detected: true,
      killed: true,
      output_signal: 'progress',
      signals: { output_silent: true, io_idle: true, gpu_idle: false },
    });
  }, 30_000);

  it('the same heartbeat does not hang when progress_regex is unset (the output signal holds it off)', async () => {
    const recipe = probeRecipe('hang_window_sec: 1\nhang_grace_period_at_start: 0\nhang_action: kill\n');
    const { result } = await trial(recipe, ['node', '-e', HEARTBEAT], { outDir: tmp.dir('beat'), env });
    expect(result.verdict).toBe('pass');
    expect(result.hang).toMatchObject({ detected: false, killed: false, output_signal: 'output' });
    expect(result.hang!.polls).toBeGreaterThan(5);
  }, 30_000);

  it('a slow trial that makes progress never hangs', async () => {
    const recipe = probeRecipe(
      "hang_window_sec: 1\nhang_grace_period_at_start: 0\nhang_action: kill\nprogress_regex: '^step \\d+'\n",
    );
    const { result } = await trial(recipe, ['node', '-e', PROGRESS], { outDir: tmp.dir('progress'), env });
    expect(result.verdict).toBe('pass');
    expect(result.hang).toMatchObject({ detected: false, output_signal: 'progress' });
  }, 30_000);

  it('hang_action: record keeps the trial running; a hang latched by a trial that then exits 0 is reconciled', async () => {
    const recipe = probeRecipe('hang_window_sec: 0.5\nhang_grace_period_at_start: 0\n');
    const { result } = await trial(recipe, ['sleep', '2'], { outDir: tmp.dir('reconciled'), env });
    expect(result.verdict).toBe('pass');
    expect(result.exit_code).toBe(0);
    expect(result.failure_detectors_fired).toEqual([]);
    expect(result.hang).toMatchObject({ detected: true, killed: false, reconciled: true, action: 'record' });
  }, 30_000);

  it('a recorded hang of a trial that then fails stays a failure next to Tier 1', async () => {
    const recipe = probeRecipe('hang_window_sec: 0.5\nhang_grace_period_at_start: 0\n');
    const { result } = await trial(recipe, ['sh', '-c', 'sleep 2; exit 4'], { outDir: tmp.dir('recorded'), env });
    expect(result.failure_detectors_fired).toEqual(['tier1:exit_nonzero', 'tier2:hang']);
    expect(result.hang).toMatchObject({ detected: true, killed: false, reconciled: false });
  }, 30_000);

  it('a tqdm-style trainer (\\r updates, no \\n) with progress_regex set makes progress: not hung (issue 35 §4)', async () => {
    const recipe = probeRecipe(
      "hang_window_sec: 1\nhang_grace_period_at_start: 0\nhang_action: kill\nprogress_regex: '\\d+/\\d+ \\['\n",
    );
    const { result } = await trial(recipe, ['node', TQDM_TRAINER, '12', '250'], { outDir: tmp.dir('tqdm'), env });
    expect(result.verdict).toBe('pass');
    expect(result.exit_code).toBe(0);
    expect(result.hang).toMatchObject({ detected: false, killed: false, output_signal: 'progress' });
  }, 30_000);

  it('the same trainer whose bar stops (a heartbeat goes on) hangs: progress_regex still sees the stall', async () => {
    const recipe = probeRecipe(
      "hang_window_sec: 1\nhang_grace_period_at_start: 0\nhang_action: kill\nprogress_regex: '\\d+/\\d+ \\['\n",
    );
    const notices: HangNotice[] = [];
    const { result } = await trial(recipe, ['node', TQDM_TRAINER, '40', '200', 'stall'], {
      outDir: tmp.dir('tqdm-stall'),
      env,
      onHang: (h) => notices.push(h),
    });
    expect(result.failure_detectors_fired).toEqual(['tier2:hang']);
    expect(result.hang).toMatchObject({ detected: true, killed: true, output_signal: 'progress' });
    // onHang heard it once, at the detection, with the report result.json then recorded.
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      action: 'kill',
      detected: true,
      detected_after_sec: result.hang!.detected_after_sec,
      signals: result.hang!.signals,
    });
  }, 30_000);

  it('hang options over the recipe (run --hang-window/--hang-grace/--hang-action), checked as the recipe is', async () => {
    const recipe = probeRecipe('hang_window_sec: 100\nhang_grace_period_at_start: 100\n');
    const { result } = await trial(recipe, ['sleep', '30'], {
      outDir: tmp.dir('hang-options'),
      env,
      hang: { hangWindowSec: 0.5, hangGracePeriodAtStart: 0, hangAction: 'kill' },
    });
    expect(result.hang).toMatchObject({ detected: true, killed: true, window_sec: 0.5, grace_sec: 0, action: 'kill' });
    await expect(trial(null, ['true'], { outDir: tmp.dir('bad'), env, hang: { hangWindowSec: 0 } })).rejects.toThrow(
      'runTrial: hang.hangWindowSec must be a finite number > 0, not 0',
    );
    await expect(
      trial(null, ['true'], { outDir: tmp.dir('bad'), env, hang: { hangGracePeriodAtStart: -1 } }),
    ).rejects.toThrow('runTrial: hang.hangGracePeriodAtStart must be a finite number >= 0, not -1');
  }, 30_000);

  it('the grace period holds detection off in a trial', async () => {
    const recipe = probeRecipe('hang_window_sec: 0.5\nhang_grace_period_at_start: 10\nhang_action: kill\n');
    const { result } = await trial(recipe, ['sleep', '2'], { outDir: tmp.dir('grace'), env });
    expect(result.verdict).toBe('pass');
    expect(result.hang).toMatchObject({ detected: false, grace_sec: 10, window_sec: 0.5 });
  }, 30_000);
});
