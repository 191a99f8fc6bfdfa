/**
 * A small POSIX ustar writer for run bundles, gzipped with Node's zlib. Why not a tar library: a bundle needs only
 * regular files with fixed owner and time (uid/gid 0, no names, mtime 0, the file's mode), in a given order, and
 * the npm tar packages bring streams, symlink and hard-link handling and extraction code a writer never uses; this
 * is one function, byte-checked against GNU tar and Python's `tarfile` in test/bundle.test.ts.
 *
 * A name longer than ustar's 100 bytes is split into ustar's 155-byte prefix and 100-byte name at a `/`; one that
 * cannot be split gets a PAX extended header (`path=`), which both readers understand.
 */
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  /** `/`-separated, relative. */
  readonly name: string;
  /** Permission bits (0o644, 0o600, 0o755). */
  readonly mode: number;
  readonly data: Uint8Array;
}

const BLOCK = 512;

function octal(n: number, width: number): string {
  // width - 1 digits and a NUL, as GNU tar writes them.
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, prefix: string, mode: number, size: number, type: string): Buffer {
  const h = Buffer.alloc(BLOCK, 0);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode & 0o7777, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii'); // uid
  h.write(octal(0, 8), 116, 8, 'ascii'); // gid
  h.write(octal(size, 12), 124, 12, 'ascii');
  h.write(octal(0, 12), 136, 12, 'ascii'); // mtime
  h.write('        ', 148, 8, 'ascii'); // checksum, as spaces while summing
  h.write(type, 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

function padded(data: Uint8Array): Buffer[] {
  const rest = data.length % BLOCK;
  return rest === 0 ? [Buffer.from(data)] : [Buffer.from(data), Buffer.alloc(BLOCK - rest, 0)];
}

/** ustar's name/prefix split of `path`, or null when it does not fit. */
function split(path: string): { name: string; prefix: string } | null {
  const bytes = Buffer.byteLength(path);
  if (bytes <= 100) return { name: path, prefix: '' };
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== '') return { name, prefix };
  }
  return null;
}

/** A PAX record `"<len> key=value\n"`, whose length counts its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const b = Buffer.byteLength(body);
  let len = b + String(b).length;
  if (String(len).length !== String(b).length) len = b + String(len).length;
  return `${len}${body}`;
}

/** The tar archive of `entries`, in the order given, ended by two zero blocks. */
export function tarBytes(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    let s = split(e.name);
    if (s === null) {
      const pax = Buffer.from(paxRecord('path', e.name), 'utf8');
      parts.push(header('PaxHeader', '', 0o644, pax.length, 'x'), ...padded(pax));
      s = {
        name: Buffer.from(e.name)
          .subarray(0, 100)
          .toString('utf8')
          .replace(/\uFFFD$/, ''),
        prefix: '',
      };
    }
    parts.push(header(s.name, s.prefix, e.mode, e.data.length, '0'), ...padded(e.data));
  }
  parts.push(Buffer.alloc(BLOCK * 2, 0));
  return Buffer.concat(parts);
}

/** `tarBytes` gzipped (the gzip header's mtime is 0: the same entries give the same bytes). */
export function tarGz(entries: readonly TarEntry[]): Buffer {
  return gzipSync(tarBytes(entries), { level: 9 });
}
