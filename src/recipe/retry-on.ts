/**
 * What `retry.on` may name: a detector that can fire as a failure or an error under this recipe (a retry is decided
 * on those only), or a category word that such a detector can carry — `transient`, a `who` (`platform`, `user`,
 * `unknown`), or a `category` one of this recipe's custom patterns declares. Anything else would retry nothing,
 * silently: `on: [tier4:collective_timeot]` or `on: [transinet]` is rejected with the reason and a did-you-mean.
 */
import { BUILTIN_DETECTORS, tierOf, unknownDetectorReason, WHO_VALUES } from '../detectors/catalogue.js';
import { MISSING_PASS_SIGNAL, TIER1_INTERRUPTED } from '../detectors/ids.js';
import { TIER3_WARN_IDS } from '../detectors/tier3.js';
import { closest } from '../text/suggest.js';
import type { ClassifierKeys, CustomPattern } from './types.js';

/** What the check reads of the recipe: its patterns and its disables. */
export interface RetryTargets {
  readonly customPatterns: readonly CustomPattern[];
  readonly disabled: Pick<ClassifierKeys, 'disableDetectors' | 'disableDetectorTiers'>;
}

export interface RetryOnProblem {
  /** The message, ending in `; did you mean 'x'?` when there is a likely intended word. */
  readonly reason: string;
  /** That word: the replacement of the entry (a fix for editors and SARIF), or null. */
  readonly suggestion: string | null;
}

function withGuess(reason: string, guess: string | null): RetryOnProblem {
  return { reason: guess === null ? reason : `${reason}; did you mean ${quote(guess)}?`, suggestion: guess };
}

const quote = (s: string): string => JSON.stringify(s).replace(/^"|"$/g, "'");

/** The category words a fired detector of this recipe can carry. */
function categoryWords(t: RetryTargets): string[] {
  const own = t.customPatterns.flatMap((p) => (p.category === null ? [] : [p.category]));
  return [...new Set(['transient', ...WHO_VALUES, ...own])];
}

/** Why `id` (a known detector id) can never be a failure or an error under this recipe, or null when it can. */
function cannotFail(id: string, t: RetryTargets): string | null {
  const tier = tierOf(id);
  if (t.disabled.disableDetectors.includes(id)) return `${quote(id)} is disabled by disable_detectors`;
  if (tier !== null && t.disabled.disableDetectorTiers.includes(tier))
    return `${quote(id)} is disabled by disable_detector_tiers (${tier})`;
  if (id === TIER1_INTERRUPTED) return `${quote(id)} (an operator stop) ends the sweep; it is never retried`;
  if (TIER3_WARN_IDS.has(id)) return `${quote(id)} is a warning, and warnings never trigger a retry`;
  if (id === MISSING_PASS_SIGNAL && !t.customPatterns.some((p) => p.requiredForPass))
    return `${quote(id)} cannot fire: no custom pattern of this recipe is required_for_pass`;
  const p = t.customPatterns.find((c) => c.detectorId === id);
  if (p?.requiredForPass === true)
    return `${quote(id)} is required_for_pass: its firing is a pass signal, not a failure`;
  if (p !== undefined && p.onMatch !== 'fail')
    return `${quote(id)} is an on_match: ${p.onMatch} pattern, and only failures and errors trigger a retry`;
  return null;
}

/** Why the `retry.on` entry `word` retries nothing under this recipe, or null when it is a valid target. */
export function retryOnProblem(word: string, t: RetryTargets): RetryOnProblem | null {
  const words = categoryWords(t);
  if (!word.includes(':')) {
    if (words.includes(word)) return null;
    const ids = [...BUILTIN_DETECTORS.keys(), ...t.customPatterns.map((p) => p.detectorId)];
    return withGuess(
      `${quote(word)} is neither a detector id nor a category a detector of this recipe can carry; categories: [${words.map(quote).join(', ')}]`,
      closest(word, [...words, ...ids]),
    );
  }
  const unknown = unknownDetectorReason(
    word,
    t.customPatterns.map((p) => p.detectorId.slice('custom:'.length)),
  );
  if (unknown !== null) {
    const ids = [...BUILTIN_DETECTORS.keys(), ...t.customPatterns.map((p) => p.detectorId)];
    return withGuess(unknown, closest(word, ids));
  }
  const why = cannotFail(word, t);
  return why === null ? null : { reason: why, suggestion: null };
}
