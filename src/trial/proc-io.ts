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

/** An I/O reading: the counter, give or take `slack` bytes. */
export interface IoReading {
  readonly value: number;
  readonly slack: number;
}

/**
 * The tree's I/O total less the log's size, or null when the root's counters cannot be read (not Linux, another
 * user's process, gone). The tree is listed first (slow: every /proc/<pid>/stat), then the log size is read
 * before and after the counters. A log write in between may or may not be in the counters, so the value is
 * uncertain by the log's growth meanwhile: that is `slack` (0 when the size did not move; retried up to 3 times
 * for such a reading, as a busy host stretches the reads).
 */
export async function treeIoTotal(rootPid: number, logPath: string, procRoot = '/proc'): Promise<IoReading | null> {
  const tree = await readProcessTree(rootPid, procRoot);
  let reading: IoReading | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = await logSize(logPath);
    const counters = await Promise.all(
      [...tree].map(async (pid) => {
        try {
          return { pid, v: parseProcIo(await readFile(`${procRoot}/${pid}/io`, 'utf8')) };
        } catch {
          return { pid, v: null }; // exited meanwhile, or not ours to read
        }
      }),
    );
    if (!counters.some((c) => c.pid === rootPid && c.v !== null)) return null;
    const after = await logSize(logPath);
    const total = counters.reduce((sum, c) => sum + (c.v ?? 0), 0);
    reading = { value: total - (after ?? 0), slack: Math.max(0, (after ?? 0) - (before ?? 0)) };
    if (reading.slack === 0) break;
  }
  return reading;
}
