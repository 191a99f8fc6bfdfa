import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compareToBaseline,
  fisherExactTwoSided,
  newcombeDifference,
  normalCdf,
  roundHalfEven,
  trialsNeeded,
  wilsonInterval,
} from '../src/matrix/stats.js';

interface Golden {
  x1: number;
  n1: number;
  x2: number;
  n2: number;
  p_value: number;
  difference: number;
  ci95: [number, number];
  wilson1: [number, number];
  wilson2: [number, number];
  trials_needed: number | null;
  effect: string;
}
const golden = JSON.parse(readFileSync('fixtures/stats/goldens.json', 'utf8')) as { cases: Golden[] };

/** Intervals and differences: absolute, |a − b| ≤ 1e-9 (they live in [−1, 1]). */
const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9;
/** p-values: relative, |a − b| ≤ 1e-9·b, so a p of 1e-200 is held to its own digits; SciPy's underflowed 0 exactly. */
const closeRelative = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * b;

describe('matrix statistics against SciPy/statsmodels (fixtures/stats/goldens.json)', () => {
  it('covers 0/n, n/n, n = 1 and large n', () => {
    const g = golden.cases;
    expect(g.length).toBe(1089);
    expect(g.some((c) => c.x1 === 0 && c.n1 === 30)).toBe(true);
    expect(g.some((c) => c.x1 === c.n1 && c.n1 === 30)).toBe(true);
    expect(g.some((c) => c.n1 === 1 && c.n2 === 1)).toBe(true);
    expect(g.some((c) => c.n1 === 100000)).toBe(true);
    expect(g.filter((c) => c.n1 === 5000 && c.n2 === 5000).length).toBe(7);
    expect(g.filter((c) => c.p_value > 0 && c.p_value < 1e-100).length).toBe(6);
  });

  it('Fisher exact two-sided p equals scipy.stats.fisher_exact to 1e-9 relative', () => {
    const wrong = golden.cases.filter(
      (c) => !closeRelative(fisherExactTwoSided(c.x1, c.n1 - c.x1, c.x2, c.n2 - c.x2), c.p_value),
    );
    expect(wrong.map((c) => [c.x1, c.n1, c.x2, c.n2, c.p_value])).toEqual([]);
  });

  it("Wilson and Newcombe intervals equal statsmodels' to 1e-9", () => {
    const wrong = golden.cases.filter((c) => {
      const w1 = wilsonInterval(c.x1, c.n1);
      const w2 = wilsonInterval(c.x2, c.n2);
      const nd = newcombeDifference(c.x1, c.n1, c.x2, c.n2);
      return !(
        close(w1[0], c.wilson1[0]) &&
        close(w1[1], c.wilson1[1]) &&
        close(w2[0], c.wilson2[0]) &&
        close(w2[1], c.wilson2[1]) &&
        close(nd.difference, c.difference) &&
        close(nd.ci95[0], c.ci95[0]) &&
        close(nd.ci95[1], c.ci95[1])
      );
    });
    expect(wrong.map((c) => [c.x1, c.n1, c.x2, c.n2])).toEqual([]);
  });

  it('trials needed equals statsmodels NormalIndPower (power 0.8, alpha 0.05)', () => {
    const wrong = golden.cases.filter((c) => trialsNeeded(c.x1 / c.n1, c.x2 / c.n2) !== c.trials_needed);
    expect(wrong.map((c) => [c.x1, c.n1, c.x2, c.n2, c.trials_needed])).toEqual([]);
  });

  it('the effect word follows p < 0.05 and the direction', () => {
    const wrong = golden.cases.filter(
      (c) => compareToBaseline({ failed: c.x1, n: c.n1 }, { failed: c.x2, n: c.n2 }).effect !== c.effect,
    );
    expect(wrong.length).toBe(0);
  });
});

describe('compareToBaseline', () => {
  it("the issue's mitigation: 2/30 against 12/30 helps", () => {
    const c = compareToBaseline({ failed: 2, n: 30 }, { failed: 12, n: 30 });
    expect(c.effect).toBe('helps');
    expect(c.p_value).toBeCloseTo(0.004769170151985977, 12);
    expect(c.trials_needed).toBeNull();
  });
  it('no evidence says how many trials would tell, and nothing when the rates are equal', () => {
    expect(compareToBaseline({ failed: 1, n: 10 }, { failed: 3, n: 10 })).toMatchObject({
      effect: 'no evidence',
      trials_needed: 60,
    });
    expect(compareToBaseline({ failed: 3, n: 10 }, { failed: 3, n: 10 })).toMatchObject({
      difference: 0,
      p_value: 1,
      effect: 'no evidence',
      trials_needed: null,
    });
  });
  it('a side with no pass or fail has nothing to compare', () => {
    expect(compareToBaseline({ failed: 3, n: 10 }, { failed: 0, n: 0 })).toEqual({
      difference: null,
      ci95: null,
      p_value: null,
      effect: 'no evidence',
      trials_needed: null,
    });
    expect(compareToBaseline({ failed: 0, n: 0 }, { failed: 3, n: 10 })).toEqual({
      difference: null,
      ci95: null,
      p_value: null,
      effect: 'no evidence',
      trials_needed: null,
    });
  });
});

describe('normalCdf: scipy.stats.norm.cdf', () => {
  // SciPy's values; the power in trialsNeeded is two of these, so their digits decide a trial count at a boundary.
  // 1e-13, not tighter: in the far tail SciPy's own ndtr is ~3e-14 off the exact value (mpmath), as is this one.
  it.each([
    [-20, 2.7536241186061556e-89],
    [-10, 7.61985302416047e-24],
    [-5, 2.866515718791933e-7],
    [-1.959963984540054, 0.025],
    [-0.5, 0.3085375387259869],
    [0, 0.5],
    [0.3, 0.6179114221889526],
    [1, 0.8413447460685429],
    [2.5, 0.9937903346742238],
    [5, 0.9999997133484281],
  ])('Φ(%s) = %s to 1e-13 relative', (x, want) => {
    expect(Math.abs(normalCdf(x) - want)).toBeLessThanOrEqual(1e-13 * want);
  });
});

describe('Fisher exact: hand cases', () => {
  it('a table with an empty row or column is p = 1, as SciPy', () => {
    expect(fisherExactTwoSided(0, 0, 3, 7)).toBe(1);
    expect(fisherExactTwoSided(0, 5, 0, 7)).toBe(1);
  });
  it('the observed table being the most likely one is p = 1 exactly', () => {
    expect(fisherExactTwoSided(3, 7, 3, 7)).toBe(1);
  });
});

describe('roundHalfEven: Python round()', () => {
  it.each([
    [0.5, 0],
    [1.5, 2],
    [2.5, 2],
    [12.5, 12],
    [16.500000000000004, 17],
    [29.999999999999996, 30],
    [-0.5, 0],
    [-1.5, -2],
  ])('round(%s) = %s', (x, want) => {
    expect(roundHalfEven(x)).toBe(want);
  });
});
