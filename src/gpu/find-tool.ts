/** Locating amd-smi / nvidia-smi the way a shell would, in the environment the sampler was given. */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export type GpuToolName = 'amd-smi' | 'nvidia-smi';

/**
 * The directories searched for `name`: every `PATH` entry, then, for amd-smi only,
 * `$ROCM_PATH/bin` (`/opt/rocm/bin` when `ROCM_PATH` is unset), where ROCm installs it without
 * putting it on PATH.
 */
export function searchDirs(name: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '');
  if (name === 'amd-smi') dirs.push(join(env['ROCM_PATH'] ?? '/opt/rocm', 'bin'));
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
