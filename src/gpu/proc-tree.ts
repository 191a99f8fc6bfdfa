/**
 * The trial's process tree: its root pid and every descendant, read from Linux's /proc.
 *
 * GPU tools attribute memory per pid, and a trial is often a launcher (a shell, `python -m
 * torch.distributed.run`) whose children hold the memory. The tree is re-read at every sample, since
 * processes come and go. Limits: a descendant that daemonizes (re-parents to init) leaves the tree;
 * inside a PID namespace the tools may print host pids, which then match nothing (the sampler falls
 * back to device-level accounting).
 */
import { readdir, readFile } from 'node:fs/promises';

/**
 * The parent pid from the text of `/proc/<pid>/stat`, or `null` if unreadable. The command name
 * (field 2) is in parentheses and may itself contain spaces and `)`, so fields are counted from the
 * last `)`.
 */
export function parseProcStatPpid(stat: string): number | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const fields = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // fields[0] is the state, fields[1] the ppid.
  const ppid = Number(fields[1]);
  return Number.isSafeInteger(ppid) && ppid >= 0 ? ppid : null;
}

/**
 * `rootPid` and all its current descendants. Where /proc cannot be read (not Linux), only `rootPid`.
 * Processes that exit while the table is read are skipped.
 */
export async function readProcessTree(rootPid: number, procRoot = '/proc'): Promise<Set<number>> {
  const tree = new Set<number>([rootPid]);
  let names: string[];
  try {
    names = await readdir(procRoot);
  } catch {
    return tree;
  }
  const pids = names.filter((n) => /^\d+$/.test(n)).map(Number);
  const parents = await Promise.all(
    pids.map(async (pid) => {
      try {
        return parseProcStatPpid(await readFile(`${procRoot}/${pid}/stat`, 'utf8'));
      } catch {
        return null;
      }
    }),
  );
  const children = new Map<number, number[]>();
  pids.forEach((pid, i) => {
    const ppid = parents[i];
    if (ppid === null || ppid === undefined) return;
    const list = children.get(ppid);
    if (list === undefined) children.set(ppid, [pid]);
    else list.push(pid);
  });
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    for (const child of children.get(pid) ?? []) {
      if (!tree.has(child)) {
        tree.add(child);
        queue.push(child);
      }
    }
  }
  return tree;
}
