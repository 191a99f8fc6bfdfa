/**
 * Reads a log file while another process appends to it: yields each new chunk as it appears, and after `ended`
 * resolves, drains what is there and stops. Memory is one chunk at a time; a writer that keeps the file open after
 * the trial's exit (a daemonised grandchild) cannot hold us up, unlike a pipe, whose EOF would never come.
 */
import type { FileHandle } from 'node:fs/promises';

export interface TailOptions {
  /** Resolves when no more output matters (the child exited). */
  readonly ended: Promise<unknown>;
  /** Largest chunk read at once. */
  readonly chunkBytes?: number;
  /** How long to wait for growth before looking again. */
  readonly pollMs?: number;
}

export async function* tailFile(handle: FileHandle, options: TailOptions): AsyncGenerator<Buffer> {
  const chunkBytes = options.chunkBytes ?? 1024 * 1024;
  const pollMs = options.pollMs ?? 25;
  let ended = false;
  // One reaction on `ended` for the whole tail (not one per poll): it wakes the current wait, if any.
  let wake: (() => void) | null = null;
  const onEnd = (): void => {
    ended = true;
    wake?.();
  };
  void options.ended.then(onEnd, onEnd);
  let position = 0;
  for (;;) {
    const finalPass = ended; // decided before the read, so a read that starts after the exit sees everything
    const buffer = Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead > 0) {
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
      continue;
    }
    if (finalPass) return;
    if (ended) continue; // ended during the read: drain now instead of sleeping
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = null;
        resolve();
      }, pollMs);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
    });
  }
}
