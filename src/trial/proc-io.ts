/**
 * Tier 2's I/O signal: `rchar + wchar` of `/proc/<pid>/io` summed over the trial's process tree, less the size
 * of the trial's log (every byte the tree wrote to its stdout/stderr went there, and that is the output signal).
 * Reaped children's counters are folded into their parent's by the kernel, so a finished `cp` still counts.
 */
import { readFile, stat } from 'node:fs/promises';
import { readProcessTree } from '../gpu/proc-tree.js';

/** `rchar + wchar` from the text of `/proc/<pid>/io`, or null when they are missing. */
export function parseProcIo(text: string): number | null {
  const r = /^rchar:\s*(\d+)$/m.exec(text);
  const w = /^wchar:\s*(\d+)$/m.exec(text);
  return r === null || w === null ? null : Number(r[1]) + Number(w[1]);
}

async function logSize(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

/**
 * The tree's I/O total less the log's size, or null when it cannot be told: the root's counters cannot be read
 * (not Linux, another user's process, gone), or the log kept growing while the counters were read. The tree is
 * listed first (slow: every /proc/<pid>/stat), then the log size is read before and after the counters: a write
 * in between would be counted in one and not the other, so such a reading is retried, at most 3 times, and is
 * otherwise no reading (it must not look like I/O activity).
 */
export async function treeIoTotal(rootPid: number, logPath: string, procRoot = '/proc'): Promise<number | null> {
  const tree = await readProcessTree(rootPid, procRoot);
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = await logSize(logPath);
    const counters = await Promise.all([...tree].map(async (pid) => {
      try {
        return { pid, v: parseProcIo(await readFile(`${procRoot}/${pid}/io`, 'utf8')) };
      } catch {
        return { pid, v: null }; // exited meanwhile, or not ours to read
      }
    }));
    if (!counters.some((c) => c.pid === rootPid && c.v !== null)) return null;
    const after = await logSize(logPath);
    if (before === after) return counters.reduce((sum, c) => sum + (c.v ?? 0), 0) - (after ?? 0);
  }
  return null;
}
