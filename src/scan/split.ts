/**
 * Scanning one log file as several byte ranges at once (the CLI runs them on two threads, split-threads.ts), with
 * the result a single scan gives.
 *
 * Invariants, for ranges cut at bytes S₁ < S₂ < … each just after a "\n" of the file, when every pattern passes
 * `splitSafe` (stated for one cut S; each cut is one, as the ranges on either side of it are scanned alone):
 *  1. **Same text.** "\n" is never inside a UTF-8 sequence, so decoding [0, S) and [S, end) separately (invalid
 *     bytes as U+FFFD, scan/stream.ts) gives the two halves of the whole file's text.
 *  2. **No match crosses S.** A line-local pattern (`RegexHandle.lineLocal`: it cannot match "\n") matches within
 *     one line, and S starts a line. So every match of the single scan starts and ends on one side of S.
 *  3. **Each side sees what the single scan sees.** Before S is "\n"; the second range starts at S with no left
 *     context. The assertions a safe pattern may hold — `\b`, `\B`, and `^` / `$` under MULTILINE — answer the
 *     same after "\n" as at the start of a text, and at the end of a text as before "\n". (`\A`, `\Z`, `^` and
 *     `$` without MULTILINE do not: Python's `$` matches before a final "\n", and the first range ends in one.)
 *  4. **The same matches.** Matching resumes where the last match ended; by 2 the single scan's last match
 *     before S ends before S, so its next search from there finds, at S or later, the first match the second
 *     range's own search finds. A pattern that can match the empty string is excluded (both ranges would find
 *     an empty match at S). Windows are cut differently in a range than in the whole text; both equal
 *     `matchAll` over the text whenever each match is decided within the window overlap of its start
 *     (scan/windows.ts), as the single scan does.
 *  5. **The same firings.** A pattern fires at its first match whose condition holds (conditions see only the
 *     match and the trial's variables), so it fires in the earliest range where it fires at all, at that range's
 *     firing. Positions in a range are shifted by the text of every range before it: its lines, UTF-16 units
 *     and decoded UTF-8 bytes.
 * An engine failure in any range is not merged: the caller scans the file in one piece instead.
 */
import { parsePythonRegex, type RegexNode } from '../regex/index.js';
import { nullable } from '../regex/nonempty.js';
import { mayMatchNewline } from '../regex/newline.js';
import type { CustomPattern } from '../recipe/types.js';
import { type ConditionErrors, type Firing, type ScanRecipe, resolveFirings, type ScanResult } from './scan.js';
import { TIER4_PATTERNS } from './tier4.js';

/** Whether a pattern may be matched in two ranges split after a "\n" (invariants 2–4). */
export function splitSafe(regex: string, flags: string): boolean {
  let tree: ReturnType<typeof parsePythonRegex>;
  try {
    tree = parsePythonRegex(regex, flags);
  } catch {
    return false;
  }
  return !mayMatchNewline(tree) && !nullable(tree.root) && assertionsSafe(tree.root);
}

function assertionsSafe(node: RegexNode): boolean {
  switch (node.k) {
    case 'assert':
      return (
        node.what === 'word-boundary' ||
        node.what === 'not-word-boundary' ||
        ((node.what === 'line-start' || node.what === 'line-end') && node.multiline)
      );
    case 'group':
      return assertionsSafe(node.body);
    case 'repeat':
      return assertionsSafe(node.sub);
    case 'concat':
      return node.items.every(assertionsSafe);
    case 'alt':
      return node.alts.every(assertionsSafe);
    default:
      return true;
  }
}

/** Whether every pattern of a scan (the Tier 4 catalogue and the recipe's) may be split. */
export function scanSplitSafe(recipe: ScanRecipe | null): boolean {
  const patterns: readonly { regex: string; flags: string }[] = [...TIER4_PATTERNS, ...(recipe?.customPatterns ?? [])];
  return patterns.every((p) => splitSafe(p.regex, p.flags));
}

/** Where a range's text ends, as the next range's positions are shifted by it. */
export interface RangeEnd {
  /** UTF-16 units of the range's decoded text. */
  readonly units: number;
  /** "\n"s in it (the next range's line 1 is this range's line newlines + 1). */
  readonly newlines: number;
  /** Its decoded UTF-8 bytes (the file's bytes when valid UTF-8). */
  readonly bytes: number;
}

/** What one range's scan reports (structured-clone safe: it crosses a worker boundary). */
export interface RangeScan {
  readonly firings: readonly Firing[];
  /** Its patterns' condition raises, positioned in the range (counted up to the firing in the range). */
  readonly conditionErrors: readonly ConditionErrors[];
  /** Engine failures happened (the caller then scans in one piece). */
  readonly engineFailed: boolean;
  /** Null when the scan stopped early, every pattern having fired. */
  readonly end: RangeEnd | null;
  readonly tierMs: { readonly tier4: number; readonly tier5: number };
}

/**
 * The single scan's result from its ranges' scans, in file order (invariant 5), or null after an engine failure
 * in any of them. A range that stopped early (end null: every pattern fired in it) decides every pattern, so the
 * ranges after it are not looked at (the caller need not have scanned them).
 */
export function mergeRanges(scans: readonly RangeScan[], patterns: readonly CustomPattern[]): ScanResult | null {
  if (scans.some((s) => s.engineFailed)) return null;
  const byId = new Map<string, Firing>();
  const raises = new Map<string, ConditionErrors>();
  const shift = { units: 0, newlines: 0, bytes: 0 };
  const tierMs = { tier4: 0, tier5: 0 };
  for (const scan of scans) {
    // A range's count is the single scan's as long as the pattern had not fired in an earlier range (the single
    // scan stops matching it there); the first raise is the first range's that has one.
    for (const e of scan.conditionErrors) {
      if (byId.has(e.pattern)) continue;
      const seen = raises.get(e.pattern);
      if (seen === undefined)
        raises.set(e.pattern, { ...e, line: e.line + shift.newlines, byte_offset: e.byte_offset + shift.bytes });
      else raises.set(e.pattern, { ...seen, raised: seen.raised + e.raised, evaluated: seen.evaluated + e.evaluated });
    }
    for (const f of scan.firings) {
      if (byId.has(f.detectorId)) continue;
      byId.set(f.detectorId, {
        ...f,
        offset: f.offset + shift.units,
        line: f.line + shift.newlines,
        byteOffset: f.byteOffset + shift.bytes,
      });
    }
    tierMs.tier4 += scan.tierMs.tier4;
    tierMs.tier5 += scan.tierMs.tier5;
    if (scan.end === null) break;
    shift.units += scan.end.units;
    shift.newlines += scan.end.newlines;
    shift.bytes += scan.end.bytes;
  }
  const order = new Map(patterns.map((p, i) => [p.detectorId, i]));
  return {
    ...resolveFirings([...byId.values()], patterns),
    condition_errors: [...raises.values()].sort((a, b) => order.get(a.pattern)! - order.get(b.pattern)!),
    tier_durations_ms: tierMs,
  };
}
