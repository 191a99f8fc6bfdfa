/**
 * An example log line for a log-pattern detector: the first line of a trial's log that the detector's regex
 * matches — the built-in Tier 4 catalogue, or the `custom_patterns` of the recipe the trial recorded. Detectors
 * that read no log (Tier 1: exit codes, signals, timeouts) have no example.
 */
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { loadRecipe } from '../recipe/index.js';
import { compileRegex, testRegex, type RegexHandle } from '../regex/index.js';
import { TIER4_PATTERNS } from '../scan/index.js';
import type { TrialRecord } from './read-results.js';

export interface ExampleLine {
  /** The log file and the 1-based line number in it. */
  readonly file: string;
  readonly line: number;
  /** The line, cut to `MAX_EXAMPLE_CHARS`. */
  readonly text: string;
}

/** Only the start of a log is searched: an example is a pointer, not a full scan. */
export const MAX_EXAMPLE_LOG_BYTES = 16 * 1024 * 1024;
export const MAX_EXAMPLE_CHARS = 200;

const recipePatterns = new Map<string, ReadonlyMap<string, { regex: string; flags: string }> | null>();

function customPattern(recipeFile: string | null, id: string): { regex: string; flags: string } | null {
  if (recipeFile === null) return null;
  if (!recipePatterns.has(recipeFile)) {
    let table: Map<string, { regex: string; flags: string }> | null = null;
    try {
      // The recipe as it is now: if it changed since the trial ran, the example may be missing, never wrong-looking.
      const recipe = loadRecipe(readFileSync(recipeFile), recipeFile);
      table = new Map(recipe.customPatterns.map((p) => [p.detectorId, { regex: p.regex, flags: p.flags }]));
    } catch {
      table = null;
    }
    recipePatterns.set(recipeFile, table);
  }
  return recipePatterns.get(recipeFile)?.get(id) ?? null;
}

function patternFor(record: TrialRecord, id: string): { regex: string; flags: string } | null {
  if (id.startsWith('tier4:')) {
    const p = TIER4_PATTERNS.find((x) => x.detectorId === id);
    return p === undefined ? null : { regex: p.regex, flags: p.flags };
  }
  if (id.startsWith('custom:')) return customPattern(record.recipeFile, id);
  return null;
}

async function readStart(path: string): Promise<string | null> {
  try {
    const h = await open(path, 'r');
    try {
      const buf = Buffer.alloc(MAX_EXAMPLE_LOG_BYTES);
      const { bytesRead } = await h.read(buf, 0, buf.length, 0);
      return buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await h.close();
    }
  } catch {
    return null;
  }
}

export async function findExampleLine(record: TrialRecord, id: string): Promise<ExampleLine | null> {
  if (record.logPath === null) return null;
  const pattern = patternFor(record, id);
  if (pattern === null) return null;
  const text = await readStart(record.logPath);
  if (text === null) return null;
  let regex: RegexHandle;
  try {
    regex = compileRegex(pattern.regex, pattern.flags);
  } catch {
    return null;
  }
  try {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.replace(/\r$/, '');
      if (testRegex(regex, line))
        return {
          file: record.logPath,
          line: i + 1,
          text: line.length > MAX_EXAMPLE_CHARS ? `${line.slice(0, MAX_EXAMPLE_CHARS - 1)}…` : line,
        };
    }
    return null;
  } finally {
    regex.dispose();
  }
}
