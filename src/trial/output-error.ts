/**
 * Why a trial's output file could not be used. A module of its own because every CLI command's error
 * reporting recognises it, while only `run`, `sweep` and `demo` open output files: out-files.ts brings
 * `node:crypto`, whose 36 internal modules cost a cold process ~5 ms.
 */

/** `beforeStart` says the trial never ran (usage error, exit 2). */
export class TrialOutputError extends Error {
  override name = 'TrialOutputError';
  constructor(
    message: string,
    readonly path: string,
    readonly beforeStart: boolean,
  ) {
    super(message);
  }
}
