import { readFileSync } from 'node:fs';

/** One record of fixtures/conditions/golden-eval.jsonl, written by scripts/gen_eval_corpus.py (CPython 3.11). */
export interface GoldenEval {
  condition: string;
  capture: Record<string, string>;
  exit_code: number;
  walltime_sec: number;
  peak_vram_mib: number | null;
  origin: string;
  valid: boolean;
  fired?: boolean;
  value?: { type: string; repr: string | null };
  error?: string;
}

/** The header a golden file starts with (scripts/golden_meta.py writes it). */
export interface GoldenMeta {
  generator: string;
  command: string;
  python: string;
  [extra: string]: unknown;
}

/** The records of a JSON Lines golden (a path from the repo root), without its `{"meta": …}` header line. */
export function readGoldenJsonl<T>(path: string): { meta: GoldenMeta | null; records: T[] } {
  const lines = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const first = lines.length > 0 ? (JSON.parse(lines[0]!) as { meta?: GoldenMeta }) : {};
  const meta =
    first !== null && typeof first === 'object' && !Array.isArray(first) && first.meta !== undefined
      ? first.meta
      : null;
  return { meta, records: (meta === null ? lines : lines.slice(1)).map((l) => JSON.parse(l) as T) };
}

/** The records of a JSON Lines golden under fixtures/conditions/. */
export function goldenLines<T>(name: string): T[] {
  return readGoldenJsonl<T>(`fixtures/conditions/${name}`).records;
}
