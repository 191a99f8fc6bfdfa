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

/** The records of a JSON Lines file under fixtures/conditions/. */
export function goldenLines<T>(name: string): T[] {
  return readFileSync(new URL(`../../fixtures/conditions/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}
