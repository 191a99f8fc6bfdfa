/**
 * Keeps V8's young generation at its starting size (1 MiB semi-spaces) for the rest of the process.
 *
 * Why: a scan allocates each window's text and its matches and drops them at once. V8 answers that allocation
 * rate by doubling the semi-spaces up to 16 MiB each; every doubling maps fresh pages, and on a VM a fresh page
 * costs ~70 µs to fault in. Measured on the bench's 100 MiB and 1 GiB logs: a cold 100 MiB pass ~295 → ~226 ms,
 * and the peak RSS of a 1 GiB scan 97 → 71 MiB, with no loss warm (a 1 MiB young generation still fits the
 * 60 KiB windows, scan/windows.ts).
 *
 * Why at run time and only here: `--max-semi-space-size=1` on node's command line does the same, but any V8
 * flag at start-up makes node reject its code cache for its own modules (the cache is keyed by V8's flag hash),
 * which cost every command ~12 ms, `--version` included. The growth factor is read at each scavenge, so setting
 * it once the command's modules are loaded takes effect from the next one. Only the CLI's own process does it
 * (`CliIo.ownProcess`): a host that embeds `runCli` keeps its heap settings.
 */
import { setFlagsFromString } from 'node:v8';
import { flushCodeCache } from './code-cache.js';

let held = false;

const HOLD = '--semi-space-growth-factor=1';

export function holdYoungGeneration(): void {
  if (held) return;
  held = true;
  flushCodeCache();
  setFlagsFromString(HOLD);
}

/**
 * Holds it again, if it was held, once a worker thread has started: a worker's start-up puts V8's flags back to
 * node's own (measured: with the hold set before a Worker was created, this thread's semi-spaces still grew to
 * 16 MiB; set again once the worker was online, they stayed at 1 MiB).
 */
export function holdAgainAfterWorkerStart(): void {
  if (held) setFlagsFromString(HOLD);
}
