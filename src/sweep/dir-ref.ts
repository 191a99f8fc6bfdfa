/**
 * A directory held open, and the names inside it reached through that descriptor: what `openat(2)` and friends
 * give C, for a Node that has no `*at` calls.
 *
 * Why: a sweep's trials run as the sweep's user inside the tree the sweep writes, so any directory of the run can
 * be swapped for a symbolic link while the sweep is not looking (`trial_3` → `/home/ci/.ssh`). A path string is
 * resolved again on every call and follows such a link; a descriptor stays on the directory it was opened on.
 *
 * How: on Linux, `/proc/self/fd/<fd>/<name>` is resolved by the kernel from the open directory itself (the
 * `fd` entry is a magic link to the directory's inode, not to its path), so `mkdir`, `rename`, `unlink`, `open`
 * with `O_NOFOLLOW` and `lstat` on it act on `name` inside that directory, wherever it has been moved since.
 * Elsewhere (no /proc), each use first checks that the directory's path still names the inode we opened (an
 * `lstat` of the path against the descriptor's `fstat`): the same refusal of planted links, with the race
 * window of a check before a use (docs/reliability.md says so).
 *
 * Invariants: a `DirRef` is only ever opened with `O_NOFOLLOW` below its root; `name` arguments are single path
 * components (no `/`, not `.` or `..`), so nothing reached through a `DirRef` lies outside the directory.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';

const O_DIR = constants.O_RDONLY | constants.O_DIRECTORY;
const PROC_FD = existsSync('/proc/self/fd');

/** A planted symbolic link (or other non-directory) where the run expects one of its directories. */
export class PlantedLinkError extends Error {
  override name = 'PlantedLinkError';
  constructor(readonly path: string) {
    super(
      `refusing to follow ${path}: it is a symbolic link or not a directory (something replaced a directory of the run; nothing outside it was touched)`,
    );
  }
}

/** A name the run itself made up (ticket and cell slugs, trial_<n>, result.json): never a path. */
export function checkName(name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0'))
    throw new RangeError(`not a single path component: ${JSON.stringify(name)}`);
  return name;
}

export class DirRef {
  private constructor(
    readonly fd: number,
    /** The path it was opened by, for messages and for what the trial is told; never used to reach files. */
    readonly shown: string,
    private readonly ino: { dev: number; ino: number },
  ) {}

  /** Opens a directory the operator named (`--out`): links on the way are the operator's and are followed. */
  static openRoot(path: string, create: boolean): DirRef {
    const abs = resolve(path);
    if (create) {
      try {
        mkdirSync(abs, { recursive: true });
      } catch (err) {
        // A file there: the open below says ENOTDIR, which names the problem better than EEXIST.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    const fd = openSync(abs, O_DIR);
    const st = fstatSync(fd);
    return new DirRef(fd, abs, { dev: st.dev, ino: st.ino });
  }

  /** `name` as a path that reaches it through this descriptor (see the module comment). */
  at(name: string): string {
    return `${this.self}/${checkName(name)}`;
  }

  /** The directory itself as a path reached through the descriptor (for `runTrial`'s `outDir`). */
  get self(): string {
    if (PROC_FD) return `/proc/self/fd/${this.fd}`;
    // No /proc: the path, as long as it still names the directory we opened.
    const st = lstatSync(this.shown, { throwIfNoEntry: false });
    if (st === undefined || !st.isDirectory() || st.dev !== this.ino.dev || st.ino !== this.ino.ino)
      throw new PlantedLinkError(this.shown);
    return this.shown;
  }

  /** The subdirectory `name`, made when missing; a link or non-directory there is a `PlantedLinkError`. */
  child(name: string, create: boolean): DirRef {
    const path = this.at(name);
    if (create) {
      try {
        mkdirSync(path, { mode: 0o755 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    let fd: number;
    try {
      fd = openSync(path, O_DIR | constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'ENOTDIR') throw new PlantedLinkError(join(this.shown, name));
      throw err;
    }
    const st = fstatSync(fd);
    return new DirRef(fd, join(this.shown, name), { dev: st.dev, ino: st.ino });
  }

  /** What `lstat` says of `name` (undefined when absent): a link is reported as a link. */
  lstat(name: string): Stats | undefined {
    return lstatSync(this.at(name), { throwIfNoEntry: false });
  }

  /** Whether `name` in this directory is still the directory `other` was opened on. */
  holds(name: string, other: DirRef): boolean {
    const st = this.lstat(name);
    return st?.isDirectory() === true && st.dev === other.ino.dev && st.ino === other.ino.ino;
  }

  close(): void {
    closeSync(this.fd);
  }
}
