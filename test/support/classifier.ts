/** Shared helpers of the classifier tests: a probe recipe from extra YAML, and a trial run with fake kernel tools. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { loadRecipe, type Recipe } from '../../src/recipe/index.js';
import { runTrial, type TrialOptions, type TrialOutcome } from '../../src/trial/index.js';
import { PROBE } from './recipes.js';

export const probeRecipe = (extra: string, file = 'r.yaml'): Recipe => loadRecipe(PROBE + extra, file);

export const FAKE_KERNEL_TOOLS = resolve('test/support/fake-kernel-tools');

/** A temporary root for output directories and fake kernel logs; `cleanup` in afterAll. */
export function tempRoot(prefix: string): { dir: (name: string) => string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return { dir: (name) => join(root, `${name}-${++n}`), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** PATH with the fake dmesg/journalctl first, and FAKE_KERNEL_LOG pointing at `kernelLog`. */
export function fakeKernelEnv(kernelLog: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${FAKE_KERNEL_TOOLS}${delimiter}${process.env['PATH'] ?? ''}`,
    FAKE_KERNEL_LOG: kernelLog,
    ...extra,
  };
}

/** A trial whose `env` (fake kernel or GPU tools on PATH) is also the runner's own, unless `runnerEnv` says otherwise. */
export function trial(
  recipe: Recipe | null,
  argv: string[],
  options: Partial<TrialOptions> & { outDir: string },
): Promise<TrialOutcome> {
  return runTrial(recipe, argv, { gpuTool: 'none', runnerEnv: options.env, ...options });
}
