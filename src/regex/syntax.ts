/**
 * Load-time check and translation of a Python-`re` pattern for RE2 (re2-wasm 1.0.2): parse once into the
 * regex tree (parse.ts, which rejects what Python rejects and what RE2 cannot run with Python's meaning),
 * then write the tree in RE2 syntax (translate.ts).
 *
 * Two differences cannot be rejected without rejecting most real patterns; they are reported as `notes`
 * (and the lint warns at each `$`): `\w \W \b \B` are ASCII-only (see CLASS_ESCAPE in charset.ts for why),
 * and `$` without MULTILINE matches only at the very end (Python also matches before a final "\n").
 */
import { walk, type RegexTree } from './ast.js';
import { parsePythonRegex } from './parse.js';
import { re2Source } from './translate.js';

export type RegexNoteKind = 'ascii-classes' | 'dollar-final-newline';

export interface RegexNote {
  kind: RegexNoteKind;
  message: string;
}

export interface TranslatedPattern {
  /** The pattern as handed to RE2. */
  source: string;
  notes: RegexNote[];
  /**
   * UTF-16 offsets (in the Python pattern) of each `$` that means end of text in RE2 but also "before a final
   * newline" in Python; [] when an inline flag group turns MULTILINE on (which `$` it covers is not tracked
   * by the lint's locator, so it says nothing rather than something wrong).
   */
  endOfTextDollars: number[];
  /** The parsed pattern, for the analyses that are passes over it. */
  tree: RegexTree;
}

const NOTE_TEXT: Record<RegexNoteKind, string> = {
  'ascii-classes':
    "\\w \\W \\b \\B are ASCII-only here (Python's also count non-ASCII letters and digits such as é as word characters)",
  'dollar-final-newline':
    '$ without MULTILINE matches only at the end of the text in RE2 (Python also matches before a final "\\n")',
};

/** The notes pass: which documented differences the pattern meets, and where its end-of-text `$`s are. */
function notesOf(tree: RegexTree): Pick<TranslatedPattern, 'notes' | 'endOfTextDollars'> {
  const dollars: number[] = [];
  let asciiWord = false;
  walk(tree.root, (n) => {
    if (n.k === 'class') asciiWord ||= n.usesAsciiWord;
    if (n.k !== 'assert') return;
    if (n.what === 'line-end' && !n.multiline) dollars.push(n.start);
    if (n.what === 'word-boundary' || n.what === 'not-word-boundary') asciiWord = true;
  });
  const endOfTextDollars = tree.setsMultiline ? [] : dollars;
  const kinds: RegexNoteKind[] = [];
  if (asciiWord) kinds.push('ascii-classes');
  if (endOfTextDollars.length > 0) kinds.push('dollar-final-newline');
  return { notes: kinds.map((kind) => ({ kind, message: NOTE_TEXT[kind] })), endOfTextDollars };
}

/**
 * Checks `pattern` (Python `re` syntax, compiled with `flags`, letters from "ims") and returns the RE2 spelling
 * plus notes, or throws `RegexSyntaxError`. RE2 itself still validates the result (see `compileRegex`).
 */
export function translatePythonRegex(pattern: string, flags = ''): TranslatedPattern {
  const key = `${flags}\u0000${pattern}`;
  let t = translations.get(key);
  if (t === undefined) {
    const tree = parsePythonRegex(pattern, flags);
    t = { source: re2Source(tree), ...notesOf(tree), tree };
    if (translations.size >= MAX_TRANSLATIONS) translations.delete(translations.keys().next().value!);
    translations.set(key, t);
  }
  return t;
}

/**
 * Translations by flags and pattern: `check` translates each pattern to load it and again in the lint (its `$`
 * notes), ~0.3 ms each in a cold process. The result is shared: callers only read it. Bounded; failures are not kept.
 */
const translations = new Map<string, TranslatedPattern>();
const MAX_TRANSLATIONS = 8192;

/** A hint for an error message RE2 produced (RE2 gives no offsets, only a message). */
export function hintForRe2Error(message: string): string {
  if (message.includes('invalid repetition size'))
    return 'RE2 limits counted repetition to at most 1000 (e.g. {0,1000})';
  if (message.includes('invalid named capture group'))
    return 'group names must be ASCII letters, digits and _ (not starting with a digit)';
  if (message.includes('duplicate capture group name')) return 'each group name may be used only once';
  if (message.includes('pattern too large')) {
    return "the compiled program exceeds RE2's memory budget; large counted repeats such as (…){500} multiply its size";
  }
  if (message.includes('invalid escape sequence')) return 'RE2 does not support this escape sequence (see RE2 syntax)';
  if (message.includes('invalid perl operator')) return 'RE2 does not support this (?…) construct';
  return '';
}
