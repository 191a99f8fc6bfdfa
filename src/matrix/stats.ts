/**
 * Is a cell's failure rate really different from the baseline's? The numbers behind `vs_baseline`, each the
 * reference implementation's to 1e-9 (test/matrix-stats.test.ts against fixtures/stats/goldens.json, written by
 * scripts/gen_stats_goldens.py with SciPy and statsmodels):
 *
 * - `wilsonInterval`: statsmodels `proportion_confint(x, n, method='wilson')` — not clipped, as statsmodels;
 * - `newcombeDifference`: statsmodels `confint_proportions_2indep(x1, n1, x2, n2, method='newcomb', compare='diff')`,
 *   Newcombe's (1998) hybrid score interval built from the two Wilson intervals;
 * - `fisherExactTwoSided`: SciPy `fisher_exact(table).pvalue`: the probabilities of every table with the same margins
 *   that is less likely than the observed one times 1 + 1e-14 (SciPy's `gamma`, the same in 1.10 and 1.17), summed;
 *   1 when the observed table is, within that 1e-14, the most likely. The hypergeometric
 *   probabilities come from Loader's saddle-point form (as R's `dhyper`), accurate to a few ulps where a difference
 *   of log-factorials loses digits at large n;
 * - `trialsNeeded`: ⌈statsmodels `NormalIndPower().solve_power(proportion_effectsize(p1, p2), alpha=0.05,
 *   power=0.8, ratio=1)`⌉: Cohen's h = 2·asin√p1 − 2·asin√p2 and the smallest n per cell with
 *   Φ(|h|·√(n/2) − z) + Φ(−z − |h|·√(n/2)) ≥ 0.8, z = Φ⁻¹(0.975) — both tails, as statsmodels — solved by bisection
 *   (solve_power itself fails to converge on some h; the generator checks its ceiling wherever it does converge).
 *
 * Browser-safe and pure.
 */

/** `scipy.stats.norm.isf(0.025)`. */
const Z975 = 1.959963984540054;
/** `scipy.stats.norm.ppf(0.8)`. */
const Z80 = 0.8416212335729143;

export type Effect = 'helps' | 'hurts' | 'no evidence';

export interface Comparison {
  /** Cell rate − baseline rate. */
  readonly difference: number | null;
  readonly ci95: readonly [number, number] | null;
  readonly p_value: number | null;
  readonly effect: Effect;
  readonly trials_needed: number | null;
}

export function wilsonInterval(x: number, n: number, z = Z975): readonly [number, number] {
  const q = x / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (q + z2 / (2 * n)) / denom;
  const dist = (z * Math.sqrt((q * (1 - q)) / n + z2 / (4 * n * n))) / denom;
  return [center - dist, center + dist];
}

export function newcombeDifference(
  x1: number,
  n1: number,
  x2: number,
  n2: number,
): { readonly difference: number; readonly ci95: readonly [number, number] } {
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const diff = p1 - p2;
  const [low1, upp1] = wilsonInterval(x1, n1);
  const [low2, upp2] = wilsonInterval(x2, n2);
  const dLow = Math.sqrt((p1 - low1) ** 2 + (upp2 - p2) ** 2);
  const dUpp = Math.sqrt((p2 - low2) ** 2 + (upp1 - p1) ** 2);
  return { difference: diff, ci95: [diff - dLow, diff + dUpp] };
}

// Loader's saddle-point pieces (C. Loader, "Fast and accurate computation of binomial probabilities", 2000).

/** ln(n!) − ln(√(2π n) (n/e)^n) for half-integers up to 15: the exact values, as Loader tabulates them. */
const SFERR_HALVES = [
  0.0, 0.15342640972002736, 0.08106146679532726, 0.05481412105191765, 0.0413406959554093, 0.03316287351993629,
  0.02767792568499834, 0.023746163656297496, 0.020790672103765093, 0.018488450532673187, 0.016644691189821193,
  0.015134973221917378, 0.013876128823070748, 0.012810465242920227, 0.01189670994589177, 0.011104559758206917,
  0.010411265261972096, 0.009799416126158804, 0.009255462182712733, 0.008768700134139386, 0.00833056343336287,
  0.00793411456431402, 0.007573675487951841, 0.007244554301320383, 0.00694284010720953, 0.006665247032707682,
  0.006408994188004207, 0.006171712263039458, 0.0059513701127588475, 0.0057462165130101155, 0.005554733551962801,
];

function stirlerr(n: number): number {
  // Every caller passes a count, a whole number: up to 15 the exact table, beyond it the asymptotic series.
  if (n <= 15) return SFERR_HALVES[n + n]!;
  const S0 = 1 / 12;
  const S1 = 1 / 360;
  const S2 = 1 / 1260;
  const S3 = 1 / 1680;
  const S4 = 1 / 1188;
  const nn = n * n;
  if (n > 500) return (S0 - S1 / nn) / n;
  if (n > 80) return (S0 - (S1 - S2 / nn) / nn) / n;
  if (n > 35) return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
  return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

/** x log(x/np) + np − x, without cancellation when x ≈ np. */
function bd0(x: number, np: number): number {
  if (Math.abs(x - np) < 0.1 * (x + np)) {
    let v = (x - np) / (x + np);
    let s = (x - np) * v;
    let ej = 2 * x * v;
    v *= v;
    for (let j = 1; j < 1000; j++) {
      ej *= v;
      const s1 = s + ej / (2 * j + 1);
      if (s1 === s) return s1;
      s = s1;
    }
  }
  return x * Math.log(x / np) + np - x;
}

/** Binomial probability of x in n at p (q = 1 − p), Loader's form (R's `dbinom_raw`), as a log. */
function logBinom(x: number, n: number, p: number, q: number): number {
  if (p === 0) return x === 0 ? 0 : -Infinity;
  if (q === 0) return x === n ? 0 : -Infinity;
  if (x === 0) {
    if (n === 0) return 0;
    return p < 0.1 ? -bd0(n, n * q) - n * p : n * Math.log(q);
  }
  if (x === n) return q < 0.1 ? -bd0(n, n * p) - n * q : n * Math.log(p);
  if (x < 0 || x > n) return -Infinity;
  const lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q);
  const lf = 1.8378770664093456 + Math.log(x) + Math.log1p(-x / n);
  return lc - 0.5 * lf;
}

/** P(X = x) for X hypergeometric: x successes in n draws from r successes and b failures (R's `dhyper`). */
function hypergeomPmf(x: number, r: number, b: number, n: number): number {
  if (x < 0 || x > r || n - x < 0 || n - x > b) return 0;
  if (n === 0) return x === 0 ? 1 : 0;
  const p = n / (r + b);
  const q = (r + b - n) / (r + b);
  return Math.exp(logBinom(x, r, p, q) + logBinom(n - x, b, p, q) - logBinom(n, r + b, p, q));
}

/** SciPy's two-sided `fisher_exact` p-value of [[a, b], [c, d]]. */
export function fisherExactTwoSided(a: number, b: number, c: number, d: number): number {
  // Rows: a + b and c + d; the first column's total is drawn: X ~ Hypergeom(total a+b+c+d, successes a+b, draws a+c).
  const r = a + b;
  const f = c + d;
  const n = a + c;
  if (r === 0 || f === 0 || n === 0 || b + d === 0) return 1;
  const lo = Math.max(0, n - f);
  const hi = Math.min(r, n);
  const observed = hypergeomPmf(a, r, f, n);
  const mode = Math.floor(((n + 1) * (r + 1)) / (r + f + 2));
  const atMode = hypergeomPmf(mode, r, f, n);
  // SciPy: the observed table is (within 1e-14) the most likely one → 1; else it sums the tables no more likely.
  if (Math.abs(observed - atMode) / Math.max(observed, atMode) <= 1e-14) return 1;
  const limit = observed * (1 + 1e-14);
  // SciPy takes the observed side whole (its cdf/sf up to the observed table) and, past the mode, the tables whose
  // probability is strictly below the limit (its binary search stops at an equal one and leaves it out).
  // Summed from the smallest terms up, so the tails' many tiny probabilities are not lost under the large ones.
  const terms: number[] = [];
  for (let k = lo; k <= hi; k++) {
    const pk = hypergeomPmf(k, r, f, n);
    if (pk < limit || (a < mode ? k <= a : k >= a)) terms.push(pk);
  }
  terms.sort((x, y) => x - y);
  let p = 0;
  for (const t of terms) p += t;
  return Math.min(p, 1);
}

/** The standard normal CDF Φ(x), accurate to ~1e-15 relative (W. J. Cody's erfc rational approximations). */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

function erfc(x: number): number {
  const ax = Math.abs(x);
  let r: number;
  if (ax < 0.5) {
    const t = x * x;
    const top =
      (((0.18577770618460315 * t + 3.1611237438705655) * t + 113.86415415105016) * t + 377.485237685302) * t +
      3209.3775891384694;
    const bot = (((t + 23.601290952344122) * t + 244.02463793444417) * t + 1282.6165260773723) * t + 2844.236833439171;
    return 1 - (x * top) / bot;
  }
  if (ax < 4) {
    const top =
      (((((((2.1531153547440383e-8 * ax + 0.5641884969886701) * ax + 8.883149794388377) * ax + 66.11919063714163) * ax +
        298.6351381974001) *
        ax +
        881.952221241769) *
        ax +
        1712.0476126340707) *
        ax +
        2051.0783778260716) *
        ax +
      1230.3393547979972;
    const bot =
      (((((((ax + 15.744926110709835) * ax + 117.6939508913125) * ax + 537.1811018620099) * ax + 1621.3895745666903) *
        ax +
        3290.7992357334597) *
        ax +
        4362.619090143247) *
        ax +
        3439.3676741437216) *
        ax +
      1230.3393548037495;
    r = top / bot;
  } else {
    const z = 1 / (ax * ax);
    const top =
      ((((0.016315387137302097 * z + 0.30532663496123236) * z + 0.36034489994980445) * z + 0.12578172611122926) * z +
        0.016083785148742275) *
        z +
      0.0006587491615298378;
    const bot =
      ((((z + 2.568520192289822) * z + 1.8729528499234673) * z + 0.5279051029514285) * z + 0.06051834131244132) * z +
      0.0023352049762686918;
    r = (1 / ax) * (0.5641895835477563 - (z * top) / bot);
  }
  // exp(-x²) split to keep its digits: x² = xs² + (x − xs)(x + xs) with xs x rounded to 1/16.
  const xs = Math.trunc(ax * 16) / 16;
  r *= Math.exp(-xs * xs) * Math.exp(-(ax - xs) * (ax + xs));
  return x < 0 ? 2 - r : r;
}

/** statsmodels `NormalIndPower().power(h, nobs1=n, alpha=0.05, ratio=1)`, two-sided, both tails. */
function power(h: number, n: number): number {
  const shift = Math.abs(h) * Math.sqrt(n / 2);
  return normalCdf(shift - Z975) + normalCdf(-Z975 - shift);
}

export function trialsNeeded(p1: number, p2: number): number | null {
  const h = 2 * Math.asin(Math.sqrt(p1)) - 2 * Math.asin(Math.sqrt(p2));
  if (h === 0) return null;
  // The one-tail closed form is a lower bound (the other tail only adds power); bisection finds the exact root.
  let hi = Math.max(2, 2 * ((Z975 + Z80) / h) ** 2 * 2);
  let lo = 1e-9;
  while (power(h, hi) < 0.8) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (power(h, mid) < 0.8) lo = mid;
    else hi = mid;
  }
  return Math.ceil((lo + hi) / 2 - 1e-9);
}

/** Python's `round(x)`: to the nearest integer, ties to even. */
export function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff < 0.5) return f;
  if (diff > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

export function compareToBaseline(
  cell: { readonly failed: number; readonly n: number },
  baseline: { readonly failed: number; readonly n: number },
): Comparison {
  if (cell.n === 0 || baseline.n === 0)
    return { difference: null, ci95: null, p_value: null, effect: 'no evidence', trials_needed: null };
  const { difference, ci95 } = newcombeDifference(cell.failed, cell.n, baseline.failed, baseline.n);
  const p = fisherExactTwoSided(cell.failed, cell.n - cell.failed, baseline.failed, baseline.n - baseline.failed);
  const r1 = cell.failed / cell.n;
  const r0 = baseline.failed / baseline.n;
  const effect: Effect = p < 0.05 && r1 < r0 ? 'helps' : p < 0.05 && r1 > r0 ? 'hurts' : 'no evidence';
  return {
    difference,
    ci95,
    p_value: p,
    effect,
    trials_needed: effect === 'no evidence' ? trialsNeeded(r1, r0) : null,
  };
}
