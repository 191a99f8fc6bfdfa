/**
 * Example log lines for log-pattern detectors: the line where the detector fired, as the trial's record says
 * (`detectors`); for a record older than that, the first line of the log that the detector's regex matches — the
 * built-in Tier 4 catalogue, or the `custom_patterns` of the recipe the trial recorded. Detectors that read no log
 * (Tier 1: exit codes, signals, timeouts) have no example.
 *
 * Nothing of the record is trusted: the log is read only inside the record's directory (confined-path.ts), the
 * recipe only when its bytes match the recorded sha256 (recipe-source.ts), and neither when it is a FIFO, a device
 * or a link (trial/safe-read.ts).
 */
import { dirname, relative } from 'node:path';
import { loadRecipe } from '../recipe/index.js';
import { compileRegex, testRegex, type RegexHandle } from '../regex/index.js';
import { TIER4_PATTERNS } from '../scan/index.js';
import { confinedPath } from './confined-path.js';
import { recipeCandidates, verifiedRecipeBytes } from './recipe-source.js';
import type { TrialRecord } from './records.js';
import { readRegularFile } from '../trial/safe-read.js';

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

interface Pattern {
  readonly regex: string;
  readonly flags: string;
}

const TIER4 = new Map<string, Pattern>(TIER4_PATTERNS.map((p) => [p.detectorId, { regex: p.regex, flags: p.flags }]));

/** Custom patterns by detector id, per (recipe file, sha256, run directory): null when no recipe could be used. */
const recipeTables = new Map<string, ReadonlyMap<string, Pattern> | null>();

function customTable(record: TrialRecord): ReadonlyMap<string, Pattern> | null {
  const candidates = recipeCandidates(record.path, record.recipeFile);
  const key = `${record.recipeSha256 ?? ''}\0${candidates.join('\0')}`;
  if (!recipeTables.has(key)) {
    let table: Map<string, Pattern> | null = null;
    const bytes = verifiedRecipeBytes(candidates, record.recipeSha256);
    if (bytes !== null) {
      try {
        // Parsed under the recorded name, which chose the parser (.json or YAML) when the trial ran.
        const recipe = loadRecipe(bytes, record.recipeFile ?? candidates[0]!);
        table = new Map(recipe.customPatterns.map((p) => [p.detectorId, { regex: p.regex, flags: p.flags }]));
      } catch {
        table = null;
      }
    }
    recipeTables.set(key, table);
  }
  return recipeTables.get(key) ?? null;
}

function patternFor(record: TrialRecord, id: string): Pattern | null {
  if (id.startsWith('tier4:')) return TIER4.get(id) ?? null;
  if (id.startsWith('custom:')) return customTable(record)?.get(id) ?? null;
  return null;
}

/** The start of the record's log, when it is a regular file inside the record's directory. */
function logLines(record: TrialRecord): { file: string; lines: string[] } | null {
  if (record.logPath === null) return null;
  const base = dirname(record.path);
  const file = confinedPath(base, relative(base, record.logPath));
  if (file === null) return null;
  const r = readRegularFile(file, { maxBytes: MAX_EXAMPLE_LOG_BYTES, over: 'prefix' });
  return 'bytes' in r ? { file: record.logPath, lines: r.bytes.toString('utf8').split('\n') } : null;
}

const cut = (line: string): string =>
  line.length > MAX_EXAMPLE_CHARS ? `${line.slice(0, MAX_EXAMPLE_CHARS - 1)}…` : line;

function firstMatch(lines: readonly string[], pattern: Pattern): { line: number; text: string } | null {
  let regex: RegexHandle;
  try {
    regex = compileRegex(pattern.regex, pattern.flags);
  } catch {
    return null;
  }
  try {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.replace(/\r$/, '');
      if (testRegex(regex, line)) return { line: i + 1, text: cut(line) };
    }
    return null;
  } finally {
    regex.dispose();
  }
}

/**
 * An example line for each of `ids` (detectors that fired in `record`) that has one; the log is read once. A
 * detector the record says fired at line N (its `detectors` entry: the firing match, the one a condition accepted)
 * shows line N of the log, or the recorded match text when the log is gone (retention) or shorter; only a record
 * older than `detectors` falls back to the first line its regex matches.
 */
export function findExampleLines(record: TrialRecord, ids: readonly string[]): Map<string, ExampleLine> {
  const found = new Map<string, ExampleLine>();
  const recorded: [string, { line: number; match: string }][] = [];
  const wanted: [string, Pattern][] = [];
  for (const id of ids) {
    const f = record.firings?.get(id);
    if (f !== undefined) recorded.push([id, f]);
    else {
      const p = patternFor(record, id);
      if (p !== null) wanted.push([id, p]);
    }
  }
  if (recorded.length === 0 && wanted.length === 0) return found;
  const log = logLines(record);
  for (const [id, f] of recorded) {
    const line = log?.lines[f.line - 1]?.replace(/\r$/, '');
    found.set(id, {
      file: log?.file ?? record.logPath ?? record.path,
      line: f.line,
      text: cut(line ?? f.match),
    });
  }
  if (log === null) return found;
  for (const [id, p] of wanted) {
    const m = firstMatch(log.lines, p);
    if (m !== null) found.set(id, { file: log.file, line: m.line, text: m.text });
  }
  return found;
}
