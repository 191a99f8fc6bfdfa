/**
 * The one message for keys a mapping does not allow, at every level the schema knows (top level, custom_patterns
 * entries, match, confound, tests, exit_codes, detector_categories, the sweep's stop_after / retry / retain). A
 * misspelt key gets the allowed key it is closest to (`custom_pattern` → `custom_patterns`); only when some key is
 * close to none are all the allowed keys listed, in the original's words
 * (`{path}: unknown keys {sorted(unknown)}; allowed: {sorted(valid)}`).
 */
import { strRepr } from '../condition/repr.js';
import { closest } from '../text/suggest.js';

export interface UnknownKey {
  /** The key's text when it is a string (a suggestion is looked up for it), else null. */
  readonly name: string | null;
  /** The key as Python's repr() shows it. */
  readonly repr: string;
}

export interface UnknownKeysReport {
  readonly reason: string;
  /** The allowed key that should replace the first unknown key (in document order), when there is one. */
  readonly suggestion: string | null;
}

export interface UnknownKeysWording {
  /** How the list is named; default 'keys' (the top level says 'top-level keys'). */
  readonly plural?: string;
  /** The site reports one key at a time, as `unknown key 'x'` rather than a list. */
  readonly one?: boolean;
  /** Appended to the list of allowed keys, e.g. "(a pass always exits 0)". */
  readonly note?: string;
  /** The allowed keys as the message lists them, when not sorted `allowed` (e.g. a meaningful order). */
  readonly listed?: readonly string[];
}

/** `unknown` in document order; the message lists them sorted, as the original does. */
export function unknownKeysReason(
  path: string,
  unknown: readonly UnknownKey[],
  allowed: readonly string[],
  wording: UnknownKeysWording = {},
): UnknownKeysReport {
  const suggested = unknown.map((k) => ({ key: k, close: k.name === null ? null : closest(k.name, allowed) }));
  const sorted = [...suggested].sort((a, b) => (a.key.repr < b.key.repr ? -1 : a.key.repr > b.key.repr ? 1 : 0));
  const suggestion = suggested[0]?.close ?? null;
  const note = wording.note === undefined ? '' : ` ${wording.note}`;
  if (suggested.every((s) => s.close !== null)) {
    if (sorted.length === 1)
      return {
        reason: `${path}: unknown key ${sorted[0]!.key.repr}; did you mean ${strRepr(suggestion!)}?`,
        suggestion,
      };
    const each = sorted.map((s) => `${s.key.repr} (did you mean ${strRepr(s.close!)}?)`).join(', ');
    return { reason: `${path}: unknown keys ${each}`, suggestion };
  }
  const listed = wording.listed ?? [...allowed].sort();
  const hints = sorted.filter((s) => s.close !== null).map((s) => `${strRepr(s.close!)} for ${s.key.repr}`);
  const noun = wording.one === true ? 'key' : (wording.plural ?? 'keys');
  const keys = wording.one === true ? sorted[0]!.key.repr : `[${sorted.map((s) => s.key.repr).join(', ')}]`;
  return {
    reason: `${path}: unknown ${noun} ${keys}; allowed: [${listed.map((a) => strRepr(a)).join(', ')}]${note}${hints.length > 0 ? `; did you mean ${hints.join(', ')}?` : ''}`,
    suggestion,
  };
}
