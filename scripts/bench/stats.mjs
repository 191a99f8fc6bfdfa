// Summaries and formatting shared by every part of the suite. Every figure in the table is a
// median over repeated runs, shown with its min and max, because this machine's cores are
// shared and single runs vary.

/** { median, min, max, n } of a list of numbers (NaN-free). */
export function summarize(samples) {
  const xs = samples.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (xs.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const mid = xs.length >> 1;
  const median = xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
  return { median, min: xs[0], max: xs[xs.length - 1], n: xs.length };
}

/**
 * Operations per second of `fn` (which returns how many operations it did), measured as `runs`
 * timed loops of about `ms` milliseconds each: one rate per loop, summarized.
 */
export function rate(fn, { runs, ms, budgetMs = Infinity }) {
  const rates = [];
  const start = performance.now();
  for (let r = 0; r < runs; r++) {
    // Slow cases (seconds per call) stop early, after at least two runs, to keep the suite
    // within its time budget.
    if (r >= 2 && performance.now() - start > budgetMs) break;
    rates.push(loopRate(fn, ms));
  }
  return summarize(rates);
}

/** Operations per second of one timed loop of `fn` (which returns how many it did) lasting about `ms`. */
export function loopRate(fn, ms) {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    n += fn();
    t = performance.now();
  }
  return n / ((t - t0) / 1000);
}

/** Median time per call in microseconds over `runs` loops of about `ms` each (for µs-scale work). */
export function timePerCall(fn, { runs, ms, budgetMs }) {
  const r = rate(
    () => {
      fn();
      return 1;
    },
    { runs, ms, budgetMs },
  );
  // time per call = 1 / rate; min and max swap.
  return { median: 1e6 / r.median, min: 1e6 / r.max, max: 1e6 / r.min, n: r.n };
}

const SI = [
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
  [1, ''],
];

/** 12.3 M — three significant digits with an SI prefix. */
export function si(x) {
  if (!Number.isFinite(x)) return 'n/a';
  for (const [f, p] of SI) if (Math.abs(x) >= f) return `${sig(x / f)} ${p}`.trimEnd();
  return sig(x);
}

export function sig(x) {
  if (!Number.isFinite(x)) return 'n/a';
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toPrecision(2);
}

/** "median (min–max)" with a formatter for each number. */
export function range(s, f = sig) {
  if (!s || !Number.isFinite(s.median)) return 'n/a';
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

/** Microseconds shown in the unit that reads best (ns, µs, ms, s). */
export function dur(us) {
  if (!Number.isFinite(us)) return 'n/a';
  if (us < 1) return `${sig(us * 1000)} ns`;
  if (us < 1000) return `${sig(us)} µs`;
  if (us < 1e6) return `${sig(us / 1000)} ms`;
  return `${sig(us / 1e6)} s`;
}

/** ✓/✗ with the ratio of measured to target (for "at least" targets) or target to measured ("at most"). */
export function target(measured, goal, atMost = false) {
  if (!Number.isFinite(measured)) return '? (not measured)';
  const ok = atMost ? measured <= goal : measured >= goal;
  const ratio = atMost ? goal / measured : measured / goal;
  return `${ok ? '✓' : '✗'} ${ratio.toFixed(2)}× target`;
}
