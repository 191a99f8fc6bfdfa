/** "Did you mean …?" for misspelt commands, flags and keys: the closest candidate by edit distance, if close enough. */

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions: `chekc` is one edit from `check`). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`, when at most a third of its length (at least 1, at most 3) away; a candidate
 * that `word` is a prefix of, or that is a prefix of `word`, also counts (`--rec` → `--recipe`). Null otherwise.
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  if (best !== null && bestD <= limit) return best;
  const prefixed = candidates.filter((c) => word.length >= 3 && (c.startsWith(word) || word.startsWith(c)));
  return prefixed.length === 1 ? prefixed[0]! : null;
}

/** ` (did you mean 'x'?)`, or ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const c = closest(word, candidates);
  return c === null ? '' : ` (did you mean '${c}'?)`;
}
