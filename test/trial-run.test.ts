import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { alive } from './support/processes.js';
import { loadRecipe } from '../src/recipe/index.js';
import { runTrial, type TrialOptions } from '../src/trial/index.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-trial-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const outDir = (): string => join(root, `t${++n}`);
const NODE = process.execPath;
const node = (code: string): string[] => [NODE, '-e', code];
const opts = (extra: Partial<TrialOptions> = {}): TrialOptions => ({
  outDir: outDir(),
  gpuTool: 'none',
  killGraceMs: 500,
  ...extra,
});
const recipe = (yaml: string) => loadRecipe(yaml, 'test-recipe.yaml');

describe('runTrial: exit status → Tier 1 and the verdict', () => {
  it('a clean exit passes, with result.json and the log in the output directory', async () => {
    const o = opts();
    const { result, resultPath, logPath } = await runTrial(
      null,
      node("console.log('hello'); console.error('to stderr')"),
      o,
    );
    expect(result).toMatchObject({
      verdict: 'pass',
      exit_code: 0,
      peak_vram_mib: null,
      failure_detectors_fired: [],
      error_detectors_fired: [],
      warn_detectors_fired: [],
      capture: {},
      timed_out: false,
      interrupted: false,
      exec_error: null,
      log: { file: 'output.log', bytes: 'hello\nto stderr\n'.length },
      recipe: null,
      timeout_sec: null,
    });
    expect(result.walltime_sec).toBeGreaterThan(0);
    expect(result.walltime_sec).toBeLessThan(10);
    expect(Object.keys(result.tier_durations_ms)).toEqual(['tier1', 'tier2', 'tier3', 'tier4', 'tier5']);
    expect(resultPath).toBe(join(o.outDir, 'result.json'));
    expect(JSON.parse(readFileSync(resultPath, 'utf8'))).toEqual(result);
    expect(readFileSync(logPath, 'utf8')).toBe('hello\nto stderr\n');
  });

  it('a child that SIGSEGVs reports -11 and tier1:sigsegv → fail', async () => {
    const { result } = await runTrial(null, node("process.kill(process.pid, 'SIGSEGV')"), opts());
    expect(result).toMatchObject({
      verdict: 'fail',
      exit_code: -11,
      failure_detectors_fired: ['tier1:sigsegv'],
      error_detectors_fired: [],
    });
  });

  it('SIGABRT and SIGBUS map to their detectors; SIGKILL is exit_nonzero', async () => {
    expect((await runTrial(null, node("process.kill(process.pid, 'SIGABRT')"), opts())).result).toMatchObject({
      exit_code: -6,
      failure_detectors_fired: ['tier1:sigabrt'],
    });
    expect((await runTrial(null, node("process.kill(process.pid, 'SIGBUS')"), opts())).result).toMatchObject({
      exit_code: -7,
      failure_detectors_fired: ['tier1:sigbus'],
    });
    expect((await runTrial(null, node("process.kill(process.pid, 'SIGKILL')"), opts())).result).toMatchObject({
      exit_code: -9,
      failure_detectors_fired: ['tier1:exit_nonzero'],
    });
  });

  it('a non-zero exit is tier1:exit_nonzero', async () => {
    const { result } = await runTrial(null, node('process.exit(3)'), opts());
    expect(result).toMatchObject({ verdict: 'fail', exit_code: 3, failure_detectors_fired: ['tier1:exit_nonzero'] });
  });

  it('a timeout with a child that ignores SIGTERM: SIGKILL after the grace, exit_code -1, tier1:timeout → error', async () => {
    const code =
      "process.on('SIGTERM', () => console.log('ignoring TERM')); console.log('started'); setInterval(() => {}, 1000);";
    const t0 = Date.now();
    // 2 s: time for a loaded machine to start node and install the handler before the TERM comes.
    const { result, logPath } = await runTrial(null, node(code), opts({ timeoutSec: 2, killGraceMs: 300 }));
    expect(result).toMatchObject({
      verdict: 'error',
      exit_code: -1,
      timed_out: true,
      failure_detectors_fired: [],
      error_detectors_fired: ['tier1:timeout'],
      timeout_sec: 2,
    });
    expect(result.walltime_sec).toBeGreaterThanOrEqual(2.3);
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(readFileSync(logPath, 'utf8')).toBe('started\nignoring TERM\n');
  });

  it('the timeout kills the whole process group, grandchildren included', async () => {
    const pidFile = join(root, 'grandchild.pid');
    const code = `const c = require('child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
      require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); setInterval(() => {}, 1000);`;
    const { result } = await runTrial(null, node(code), opts({ timeoutSec: 2, killGraceMs: 300 }));
    expect(result.error_detectors_fired).toEqual(['tier1:timeout']);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  });

  it('the recipe timeout_per_trial applies when no timeout option is given', async () => {
    const r = recipe(
      'schema_version: 1\nmode: probe\ntrials: 1\nmitigation_axis: [none]\ndiagnostic_axis: [none]\ntimeout_per_trial: 0.3\n',
    );
    const { result } = await runTrial(r, node('setInterval(() => {}, 1000)'), opts());
    expect(result).toMatchObject({
      exit_code: -1,
      timeout_sec: 0.3,
      error_detectors_fired: ['tier1:timeout'],
      verdict: 'error',
    });
  });

  it('a command that is not found: 127 and tier1:exec_failed alone → error', async () => {
    const { result, logPath } = await runTrial(null, ['/nonexistent/aorta-no-such-command', '--flag'], opts());
    expect(result).toMatchObject({
      verdict: 'error',
      exit_code: 127,
      failure_detectors_fired: [],
      error_detectors_fired: ['tier1:exec_failed'],
      exec_error: 'cannot start "/nonexistent/aorta-no-such-command": spawn /nonexistent/aorta-no-such-command ENOENT',
    });
    expect(readFileSync(logPath, 'utf8')).toBe(`${result.exec_error}\n`);
  });

  it('a command on PATH that does not exist is 127 too', async () => {
    const { result } = await runTrial(null, ['aorta-no-such-command-xyz'], opts());
    expect(result).toMatchObject({ exit_code: 127, error_detectors_fired: ['tier1:exec_failed'] });
  });

  it('a file that is not executable: 126 and tier1:exec_failed', async () => {
    const script = join(root, 'not-executable.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n');
    chmodSync(script, 0o644);
    const { result } = await runTrial(null, [script], opts());
    expect(result).toMatchObject({ verdict: 'error', exit_code: 126, error_detectors_fired: ['tier1:exec_failed'] });
    expect(result.exec_error).toMatch(/EACCES/);
  });
});

describe('runTrial: the log → Tier 4 and Tier 5, with the final trial variables', () => {
  it('Tier 4 fires on the combined output; custom captures are merged', async () => {
    const r = recipe(`custom_patterns:
  - id: bw
    match: {regex: "bandwidth: (?P<bw>[0-9]+) GB/s"}
    on_match: info
  - id: slow
    match: {regex: "slow step"}
    on_match: warn
`);
    const code =
      "console.log('bandwidth: 240 GB/s'); console.log('slow step'); console.error('RuntimeError: hipError_OutOfMemory')";
    const { result } = await runTrial(r, node(code), opts());
    expect(result).toMatchObject({
      verdict: 'fail',
      exit_code: 0,
      failure_detectors_fired: ['tier4:hip_error'],
      warn_detectors_fired: ['custom:slow'],
      capture: { bw: '240' },
    });
  });

  it('a condition on exit_code sees the final exit code, though the match was scanned while the command ran', async () => {
    const r = recipe(`custom_patterns:
  - id: oom_kill
    match:
      regex: "Killed (?P<what>\\\\w+)"
      condition: "exit_code == 137 and capture['what'] == 'worker'"
`);
    const killed = await runTrial(
      r,
      node("console.log('Killed helper'); console.log('Killed worker'); process.exit(137)"),
      opts(),
    );
    expect(killed.result).toMatchObject({
      verdict: 'fail',
      failure_detectors_fired: ['tier1:exit_nonzero', 'custom:oom_kill'],
      capture: { what: 'worker' },
    });
    expect(killed.deferred).toEqual([{ detectorId: 'custom:oom_kill', candidates: 2, spilled: 0 }]);
    const clean = await runTrial(r, node("console.log('Killed worker')"), opts());
    expect(clean.result).toMatchObject({ verdict: 'pass', failure_detectors_fired: [], capture: {} });
  });

  it('walltime_sec in a condition is the measured walltime', async () => {
    const r = recipe(`custom_patterns:
  - id: slow_done
    match:
      regex: "done"
      condition: "walltime_sec > 1.5"
    on_match: warn
`);
    const slow = await runTrial(r, node("setTimeout(() => console.log('done'), 1600)"), opts());
    expect(slow.result.warn_detectors_fired).toEqual(['custom:slow_done']);
    const fast = await runTrial(r, node("console.log('done')"), opts());
    expect(fast.result.warn_detectors_fired).toEqual([]);
  });

  it('peak_vram_mib is null without a GPU tool, and conditions see 0', async () => {
    const r = recipe(`custom_patterns:
  - id: no_vram
    match:
      regex: "step"
      condition: "peak_vram_mib == 0"
    on_match: warn
`);
    const { result } = await runTrial(r, node("console.log('step 1')"), opts());
    expect(result.peak_vram_mib).toBeNull();
    expect(result.warn_detectors_fired).toEqual(['custom:no_vram']);
  });

  it('candidates past the budget are spilled to a file and read back after the exit, with the same answer', async () => {
    const r = recipe(`custom_patterns:
  - id: late_loss
    match:
      regex: "loss=(?P<loss>[0-9.]+)"
      condition: "exit_code == 0 and float(capture['loss']) > 41.5"
`);
    const code = "for (let i = 0; i < 50; i++) console.log('step ' + i + ' loss=' + i + '.0')";
    const small = await runTrial(
      r,
      node(code),
      opts({ scan: { candidateBudget: { candidates: 10, units: 1 << 20 } } }),
    );
    const big = await runTrial(r, node(code), opts());
    expect(small.deferred).toEqual([{ detectorId: 'custom:late_loss', candidates: 50, spilled: 40 }]);
    expect(big.deferred).toEqual([{ detectorId: 'custom:late_loss', candidates: 50, spilled: 0 }]);
    expect(readdirSync(dirname(small.resultPath)).sort()).toEqual(['output.log', 'result.json']); // the spill file is gone
    for (const t of [small, big]) {
      expect(t.result).toMatchObject({
        verdict: 'fail',
        failure_detectors_fired: ['custom:late_loss'],
        capture: { loss: '42.0' },
      });
    }
  });

  it('required_for_pass with a deferred condition: meta:missing_pass_signal when it does not hold', async () => {
    const r = recipe(`custom_patterns:
  - id: ok
    match:
      regex: "benchmark passed"
      condition: "exit_code == 0"
    required_for_pass: true
`);
    // Its firing is the pass signal (docs/deviations.md; the original listed it as a failure).
    const passed = (await runTrial(r, node("console.log('benchmark passed')"), opts())).result;
    expect([passed.verdict, passed.failure_detectors_fired]).toEqual(['pass', []]);
    expect(passed.detectors.map((d) => [d.id, d.kind, d.line])).toEqual([['custom:ok', 'required', 1]]);
    expect(
      (await runTrial(r, node("console.log('benchmark passed'); process.exit(2)"), opts())).result
        .failure_detectors_fired,
    ).toEqual(['tier1:exit_nonzero', 'meta:missing_pass_signal']);
  });

  it('echoes the combined output when asked', async () => {
    const echo = new PassThrough();
    let seen = '';
    echo.on('data', (c: Buffer) => (seen += c.toString()));
    await runTrial(null, node("console.log('one'); console.error('two')"), opts({ echo }));
    expect(seen).toBe('one\ntwo\n');
  });

  it('a core file in the output directory fires tier1:coredump', async () => {
    const o = opts();
    const code = `require('fs').writeFileSync(require('path').join(process.env.AORTA_PROBE_TRIAL_DIR, 'core.1234'), '')`;
    const { result } = await runTrial(null, node(code), o);
    expect(existsSync(join(o.outDir, 'core.1234'))).toBe(true);
    expect(result.failure_detectors_fired).toEqual(['tier1:coredump']);
  });
});
