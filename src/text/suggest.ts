/**
 * "Did you mean …?" for misspelt commands, flags, recipe keys, detector ids and capture group names: the one rule
 * every message uses, so the CLI, the loader and the linter guess alike.
 */

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions: `chekc` is one edit from `check`),
 * over code points, so a non-BMP character is one edit.
 */
export function editDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[x.length]![y.length]!;
}

/**
 * The candidate `word` most likely meant, or null: one that differs only in case; else the nearest by edit distance
 * when at most a third of the longer of the two (at most 3) away, so `los` → `loss` but no guess between one-letter
 * names; else the only candidate that `word` is a prefix of, or that is a prefix of `word` (`--rec` → `--recipe`).
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const folded = word.toLowerCase();
  const sameLetters = candidates.find((c) => c !== word && c.toLowerCase() === folded);
  if (sameLetters !== undefined) return sameLetters;
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD && d <= Math.min(3, Math.floor(Math.max(word.length, c.length) / 3))) {
      best = c;
      bestD = d;
    }
  }
  if (best !== null) return best;
  const prefixed = candidates.filter((c) => word.length >= 3 && (c.startsWith(word) || word.startsWith(c)));
  return prefixed.length === 1 ? prefixed[0]! : null;
}

/** ` (did you mean 'x'?)`, or ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const c = closest(word, candidates);
  return c === null ? '' : ` (did you mean '${c}'?)`;
}
