/**
 * Locating our helpers (amd-smi, nvidia-smi, dmesg, journalctl) the way a shell would, in the runner's own
 * environment: never a trial's, whose PATH a recipe may set (TrialOptions.runnerEnv).
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

export type GpuToolName = 'amd-smi' | 'nvidia-smi';

/**
 * The directories searched for `name`: every absolute `PATH` entry, then, for amd-smi only,
 * `$ROCM_PATH/bin` (`/opt/rocm/bin` when `ROCM_PATH` is unset), where ROCm installs it without
 * putting it on PATH. A relative entry (`.`, `bin`, an empty one) is skipped, unlike in a shell: it names a
 * directory under the working directory, which the trial shares and can write a `dmesg` into before Tier 3 runs.
 */
export function searchDirs(name: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => isAbsolute(d));
  const rocm = env['ROCM_PATH'] ?? '/opt/rocm';
  if (name === 'amd-smi' && isAbsolute(rocm)) dirs.push(join(rocm, 'bin'));
  return dirs;
}

/** The absolute path of the first executable regular file named `name`, or `null`. */
export async function findTool(name: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  for (const dir of searchDirs(name, env)) {
    const file = join(dir, name);
    try {
      if ((await stat(file)).isFile()) {
        await access(file, constants.X_OK);
        return file;
      }
    } catch {
      // missing or not executable: keep looking, as a shell does
    }
  }
  return null;
}
