/**
 * Issue 33 §7: a recipe's environment is code (a sweep's `mitigations:` set the trial's PATH, LD_PRELOAD,
 * PYTHONPATH), and the runner used the TRIAL's PATH to find its own dmesg, journalctl, amd-smi and nvidia-smi. Our
 * helpers are looked up and run in the runner's environment (`runnerEnv`, default `process.env`); nothing of the
 * trial's environment reaches them.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { searchDirs } from '../src/gpu/find-tool.js';
import { readKernelLog } from '../src/trial/tier3-kernel.js';
import { runTrial } from '../src/trial/index.js';
import { tempRoot } from './support/classifier.js';

const tmp = tempRoot('aorta-helper-env-');
afterAll(() => tmp.cleanup());

const HELPERS = ['dmesg', 'journalctl', 'amd-smi', 'nvidia-smi'] as const;

/**
 * A directory of planted helpers: each, when run, writes `<name>` into `marks` with the LD_PRELOAD and PYTHONPATH
 * it was given, then fails (so the runner moves on to the next one and every planted helper gets its chance).
 */
function plantedHelpers(marks: string): string {
  const bin = join(tmp.dir('rocm'), 'bin'); // also found as $ROCM_PATH/bin/amd-smi
  mkdirSync(bin, { recursive: true });
  mkdirSync(marks, { recursive: true });
  for (const name of HELPERS) {
    writeFileSync(
      join(bin, name),
      `#!/bin/sh\nprintf '%s|%s\\n' "\${LD_PRELOAD-unset}" "\${PYTHONPATH-unset}" > '${marks}/${name}'\nexit 1\n`,
    );
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

/** What Tier 3 reads on this host through our own PATH: the source a trial's record must show. */
async function hostKernelSource(): Promise<string | null> {
  const now = Date.now();
  const r = await readKernelLog(now - 1000, now, process.env);
  return r.ok ? r.source : null;
}

describe("the runner's helpers are found and run in its own environment", () => {
  it("a trial whose PATH, ROCM_PATH, LD_PRELOAD and PYTHONPATH a recipe set runs none of the trial's helpers", async () => {
    const marks = tmp.dir('marks');
    const planted = plantedHelpers(marks);
    const trialEnv = {
      ...process.env,
      PATH: `${planted}${delimiter}${process.env['PATH'] ?? ''}`,
      ROCM_PATH: dirname(planted),
      LD_PRELOAD: '/nonexistent/mitigation.so',
      PYTHONPATH: '/opt/mitigation/python',
    };
    const outcome = await runTrial(null, ['sh', '-c', 'echo "trial sees $PYTHONPATH"'], {
      outDir: tmp.dir('out'),
      env: trialEnv,
      gpuTool: 'auto',
      gpuIntervalMs: 100,
    });
    // The trial itself got the recipe's environment; none of our helpers came from it.
    expect(readFileSync(outcome.logPath, 'utf8')).toContain('trial sees /opt/mitigation/python\n');
    expect(readdirSync(marks)).toEqual([]);
    expect(outcome.result.tier3?.kernel_source ?? null).toBe(await hostKernelSource());
    expect(JSON.stringify(outcome.result)).not.toContain(planted);
  }, 30_000);

  it("the helpers of an explicit runnerEnv are the ones run, with its LD_PRELOAD and PYTHONPATH, not the trial's", async () => {
    const marks = tmp.dir('marks');
    const ours = plantedHelpers(marks);
    const base = { ...process.env };
    delete base['LD_PRELOAD'];
    delete base['PYTHONPATH'];
    const runnerEnv = { ...base, PATH: `${ours}${delimiter}${base['PATH'] ?? ''}`, ROCM_PATH: '/nonexistent/rocm' };
    const { result } = await runTrial(null, ['true'], {
      outDir: tmp.dir('out'),
      env: { ...base, LD_PRELOAD: '/nonexistent/other.so', PYTHONPATH: '/trial/only' },
      runnerEnv,
      gpuTool: 'auto',
      gpuIntervalMs: 100,
    });
    // amd-smi is found first (so nvidia-smi is never looked up); the failing dmesg sends Tier 3 on to journalctl.
    expect(readdirSync(marks).sort()).toEqual(['amd-smi', 'dmesg', 'journalctl']);
    for (const name of readdirSync(marks)) expect(readFileSync(join(marks, name), 'utf8')).toBe('unset|unset\n');
    expect(result.tier3?.kernel_source).toBe(null);
    expect(result.tier3?.disabled_reasons[0]).toBe(
      'kernel log: dmesg: exit status 1: no output; journalctl: exit status 1: no output',
    );
    expect(result.gpu.tool).toBe('amd-smi');
  }, 30_000);

  it('only absolute PATH and ROCM_PATH entries are searched: a relative one is under the directory a trial shares', () => {
    expect(
      searchDirs('dmesg', { PATH: `.${delimiter}bin${delimiter}${delimiter}/usr/sbin${delimiter}/usr/bin` }),
    ).toEqual(['/usr/sbin', '/usr/bin']);
    expect(searchDirs('amd-smi', { PATH: `tools${delimiter}/opt/x/bin`, ROCM_PATH: 'rocm' })).toEqual(['/opt/x/bin']);
    expect(searchDirs('amd-smi', { PATH: '/opt/x/bin', ROCM_PATH: '/opt/rocm-6.4' })).toEqual([
      '/opt/x/bin',
      '/opt/rocm-6.4/bin',
    ]);
  });
});
