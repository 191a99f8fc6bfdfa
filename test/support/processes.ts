/** Watching processes from a test: whether one still runs, and waiting for a state with a deadline. */
import { readFileSync } from 'node:fs';

/** Running: not gone and not a zombie (a dead parent's children wait for init to reap them, in a container a while). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `ok` every 25 ms; throws "timed out waiting for WHAT" after `ms`. */
export async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
