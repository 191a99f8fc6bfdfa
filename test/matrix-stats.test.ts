import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compareToBaseline,
  fisherExactTwoSided,
  newcombeDifference,
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

/** |a − b| ≤ 1e-9, or ≤ 1e-9 relative for p-values far below 1 (a tiny p is only meaningful relative to itself). */
const close = (a: number, b: number, relative = false): boolean =>
  Math.abs(a - b) <= 1e-9 || (relative && Math.abs(a - b) <= 1e-9 * Math.abs(b));

describe('matrix statistics against SciPy/statsmodels (fixtures/stats/goldens.json)', () => {
  it('covers 0/n, n/n, n = 1 and large n', () => {
    const g = golden.cases;
    expect(g.length).toBe(1082);
    expect(g.some((c) => c.x1 === 0 && c.n1 === 30)).toBe(true);
    expect(g.some((c) => c.x1 === c.n1 && c.n1 === 30)).toBe(true);
    expect(g.some((c) => c.n1 === 1 && c.n2 === 1)).toBe(true);
    expect(g.some((c) => c.n1 === 100000)).toBe(true);
  });

  it('Fisher exact two-sided p equals scipy.stats.fisher_exact to 1e-9', () => {
    const wrong = golden.cases.filter(
      (c) => !close(fisherExactTwoSided(c.x1, c.n1 - c.x1, c.x2, c.n2 - c.x2), c.p_value, true),
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
    expect(compareToBaseline({ failed: 0, n: 0 }, { failed: 3, n: 10 })).toEqual({
      difference: null,
      ci95: null,
      p_value: null,
      effect: 'no evidence',
      trials_needed: null,
    });
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
