// The whole-process peer of `aorta-probe scan`: ripgrep with the same patterns. Installed from Debian when
// missing and we are root; otherwise the bench says "rg unavailable" in the table rather than skipping the row.
import { spawnSync } from 'node:child_process';

/** { bin, version } when rg runs (installing Debian's `ripgrep` first if we may), else { unavailable: reason }. */
export function ensureRg(log = () => {}) {
  const probe = () => spawnSync('rg', ['--version'], { encoding: 'utf8' });
  let r = probe();
  if (r.status !== 0 && process.getuid?.() === 0) {
    log('rg missing: apt-get install -y ripgrep');
    spawnSync('apt-get', ['install', '-y', 'ripgrep'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    r = probe();
  }
  if (r.status !== 0)
    return {
      unavailable: r.error ? String(r.error.message) : `rg --version exited ${r.status} (not root: not installed)`,
    };
  return { bin: 'rg', version: r.stdout.split('\n')[0] };
}

/**
 * One pattern in rg's syntax (Rust regex). `(?P<name>` stays: Rust accepts Python's spelling (Debian's rg 13
 * rejects `(?<name>`); IGNORECASE becomes an inline `(?i:…)` group; MULTILINE needs nothing, since rg matches
 * line by line and `^` is a line start.
 */
export function toRgPattern(src, pythonFlags = []) {
  return pythonFlags.includes('IGNORECASE') ? `(?i:${src})` : src;
}

/** `rg -c --no-config -e P1 … -e Pn FILE`: counts the lines where any pattern matches, reading the whole file. */
export function rgArgs(patterns, file) {
  return ['-c', '--no-config', ...patterns.flatMap((p) => ['-e', toRgPattern(p.regex, p.pythonFlags)]), file];
}

/** The command as a shell line, for the table's notes. */
export function shellLine(cmd, args) {
  const q = (s) => (/^[\w./:=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [cmd, ...args].map(q).join(' ');
}
