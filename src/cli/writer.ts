/**
 * The CLI's one writer: every command's output goes through these, so a reader that goes away (`aorta-probe … |
 * head`: EPIPE) is handled in one way. `writeAll` rejects on a failed write (the dispatcher, main.ts, turns an
 * EPIPE into exit 0 and anything else into exit 3); `writeQuietly` is for output written after the command's
 * answer is already decided (a trial's result is on disk, a sweep has run), where a failed write must not change it.
 */
import type { Writable } from 'node:stream';

/** Direct writes to the bin's stdout and stderr descriptors (process-io.ts). */
export interface StdFds {
  /** Writes all of `text`, or returns false when the stream object exists (then write through it). */
  write(which: 'stdout' | 'stderr', text: string): boolean;
  /** Whether the descriptor is a terminal. */
  isTty(which: 'stdout' | 'stderr'): boolean;
}

/** Writes and waits for the write to complete; rejects on a stream error instead of crashing. */
export function writeAll(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Left attached on failure: the 'error' event follows the write callback.
    stream.once('error', reject);
    stream.write(text, (err) => {
      if (err) reject(err);
      else {
        stream.off('error', reject);
        resolve();
      }
    });
  });
}

/** Writes and waits; a failed write (EPIPE) is ignored. */
export function writeQuietly(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed) return resolve();
    const onError = (): void => resolve();
    stream.once('error', onError);
    stream.write(text, (err) => {
      if (!err) stream.off('error', onError); // on failure the 'error' event follows the callback: keep the listener
      resolve();
    });
  });
}

/**
 * `text` to stdout or stderr: straight to the descriptor while no stream object exists (process-io.ts says why),
 * else through the stream.
 */
export function writeTo(
  fds: StdFds | undefined,
  which: 'stdout' | 'stderr',
  stream: () => Writable,
  text: string,
): Promise<void> {
  try {
    if (fds?.write(which, text) === true) return Promise.resolve();
  } catch (err) {
    return Promise.reject(err);
  }
  return writeAll(stream(), text);
}

/** The reader of our output went away (`| head`): not a failure of the command. */
export function isEpipe(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'EPIPE';
}
