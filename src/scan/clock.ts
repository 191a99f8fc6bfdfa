/**
 * Milliseconds from an arbitrary origin, for durations (the scan's per-tier times, a trial's wall clock).
 *
 * Why not `performance.now()` everywhere: in node, the first read of the global `performance` loads `perf_hooks`
 * (eleven of node's internal modules, ~3 ms of a cold `aorta-probe scan`, whose whole start-up over `node -e 0` is
 * ~75 ms), where `process.hrtime` is loaded with node itself. In a browser (the playground's workers) there is no
 * `process`, and `performance.now()` is the clock.
 */
const hrtime: (() => bigint) | null =
  typeof process === 'object' && process !== null && typeof process.hrtime?.bigint === 'function'
    ? process.hrtime.bigint
    : null;

export const now: () => number = hrtime !== null ? () => Number(hrtime()) / 1e6 : () => performance.now();
