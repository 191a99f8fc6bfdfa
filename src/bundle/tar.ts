/**
 * A small POSIX ustar writer for run bundles, gzipped with Node's zlib. Why not a tar library: a bundle needs only
 * regular files with fixed owner and time (uid/gid 0, no names, mtime 0, the file's mode), in a given order, and
 * the npm tar packages bring streams, symlink and hard-link handling and extraction code a writer never uses; this
 * is one function, byte-checked against GNU tar and Python's `tarfile` in test/bundle.test.ts.
 *
 * A name longer than ustar's 100 bytes is split into ustar's 155-byte prefix and 100-byte name at a `/`; one that
 * cannot be split gets a PAX extended header (`path=`), which both readers understand.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface TarEntry {
  /** `/`-separated, relative. */
  readonly name: string;
  /** Permission bits (0o644, 0o600, 0o755). */
  readonly mode: number;
  readonly data: Uint8Array;
}

const BLOCK = 512;
const GATHER_BYTES = 256 * 1024;

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

/** The blocks that start a member: a PAX header for a name ustar cannot hold, then the ustar header. */
export function memberHeader(path: string, mode: number, size: number): Buffer {
  let s = split(path);
  const parts: Buffer[] = [];
  if (s === null) {
    const pax = Buffer.from(paxRecord('path', path), 'utf8');
    parts.push(header('PaxHeader', '', 0o644, pax.length, 'x'), ...padded(pax));
    s = {
      name: Buffer.from(path)
        .subarray(0, 100)
        .toString('utf8')
        .replace(/\uFFFD$/, ''),
      prefix: '',
    };
  }
  parts.push(header(s.name, s.prefix, mode, size, '0'));
  return Buffer.concat(parts);
}

/** Zero bytes that fill a member of `size` bytes to a whole block. */
export function memberPadding(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest, 0);
}

/** The tar archive of `entries`, in the order given, ended by two zero blocks. */
export function tarBytes(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries)
    parts.push(memberHeader(e.name, e.mode, e.data.length), Buffer.from(e.data), memberPadding(e.data.length));
  parts.push(Buffer.alloc(BLOCK * 2, 0));
  return Buffer.concat(parts);
}

/**
 * A .tar.gz written member by member to a file descriptor, so a bundle never holds more than one file's output:
 * `add` a member whose size is known, then its data in as many pieces as it comes in, then `end`. The gzip header's
 * mtime is 0, so the same members give the same bytes. Level 6: on logs it compresses within a few percent of 9 at
 * about twice the speed.
 */
export class TarGzWriter {
  private readonly gzip = createGzip({ level: 6 });
  private readonly done: Promise<void>;
  private open: { size: number; written: number } | null = null;

  private readonly out: WriteStream;

  constructor(fd: number) {
    this.out = createWriteStream('', { fd, autoClose: false });
    this.done = pipeline(this.gzip, this.out);
  }

  async add(path: string, mode: number, size: number): Promise<void> {
    this.close();
    await this.write(memberHeader(path, mode, size));
    this.open = { size, written: 0 };
  }

  async data(piece: Uint8Array): Promise<void> {
    if (this.open === null || this.open.written + piece.length > this.open.size)
      throw new Error('tar: more data than the member header declared');
    this.open.written += piece.length;
    await this.write(piece);
  }

  /** The end-of-archive blocks, then waits until every byte is written. */
  async end(): Promise<void> {
    this.close();
    await this.write(Buffer.alloc(BLOCK * 2, 0));
    await this.flush();
    this.gzip.end();
    await this.done;
  }

  /**
   * Stops writing (after an error) and resolves once the file stream has settled: a write still in flight when the
   * caller closes the descriptor would land in whatever file reuses its number next. The caller removes the file.
   */
  async abort(): Promise<void> {
    // The file stream's 'close' comes after any write it had in flight (node's fs streams wait for their I/O).
    const closed = this.out.closed ? Promise.resolve() : once(this.out, 'close');
    this.gzip.destroy();
    this.out.destroy();
    await Promise.all([closed, this.done.catch(() => {})]);
  }

  private close(): void {
    if (this.open === null) return;
    if (this.open.written !== this.open.size) throw new Error('tar: less data than the member header declared');
    const pad = memberPadding(this.open.size);
    this.open = null;
    if (pad.length > 0) {
      this.pending.push(pad);
      this.pendingBytes += pad.length;
    }
  }

  /** Small writes (a header, a short file) are gathered: each write is a zlib call, which costs more than a copy. */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;

  private async write(b: Uint8Array): Promise<void> {
    this.pending.push(b);
    this.pendingBytes += b.length;
    if (this.pendingBytes >= GATHER_BYTES) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const b = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.gzip.write(b)) await Promise.race([once(this.gzip, 'drain'), this.done]);
  }
}
