/**
 * Milliseconds on a monotonic clock, for durations only (its origin is arbitrary). In Node the `performance`
 * global is built on first use (node:perf_hooks, ~1 ms of a cold `aorta-probe scan`), while `process.hrtime` is
 * already there; browsers have `performance`.
 */
type HrTime = () => [number, number];

const hrtime = (globalThis as { process?: { hrtime?: HrTime } }).process?.hrtime;

export const nowMs: () => number =
  hrtime === undefined
    ? () => performance.now()
    : () => {
        const [s, ns] = hrtime();
        return s * 1e3 + ns / 1e6;
      };
