/**
 * Load-time check of a Python-`re`-syntax pattern against what RE2 (re2-wasm 1.0.2) accepts.
 *
 * Three outcomes per construct:
 *  - same meaning in both engines: copied through;
 *  - Python-only construct RE2 rejects anyway (lookaround, backreferences, `\Z`, atomic/possessive, `(?x)`, …):
 *    rejected here with a `RegexSyntaxError` carrying a specific hint, instead of RE2's bare message;
 *  - construct RE2 would accept with a *different* meaning (`a{,3}` is a literal in RE2, `[[:alpha:]]` a POSIX
 *    class, `(?U)` "ungreedy", `\12` octal): rejected, because a silent change of meaning is worse than an error;
 *  - spelling differences with the same meaning are rewritten: `\uXXXX` → `\x{XXXX}`; `(?<name>…)`,
 *    which Python 3.11 rejects, is an error with a hint
 *    (this RE2 only knows `(?P<`), `\uXXXX` / `\UXXXXXXXX` → `\x{…}`.
 *
 * Differences that cannot be rejected without rejecting most real patterns are reported as `notes`:
 * `\d \w \s \b` are ASCII-only in RE2 (Unicode in Python), and `$` without MULTILINE matches only at the very end
 * (Python also matches before a final "\n").
 */
import { RegexSyntaxError, type RegexSyntaxErrorKind } from './errors.js';

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
   * newline" in Python; [] when an inline flag group turns MULTILINE on (which `$` it covers is not tracked).
   */
  endOfTextDollars: number[];
}

const NOTE_TEXT: Record<RegexNoteKind, string> = {
  'ascii-classes': '\\d \\w \\s \\b are ASCII-only in RE2 (Python matches Unicode digits/letters/spaces)',
  'dollar-final-newline':
    '$ without MULTILINE matches only at the end of the text in RE2 (Python also matches before a final "\\n")',
};

const HINTS = {
  Z: 'RE2 spells end-of-text as \\z (same meaning as Python\'s \\Z)',
  emptyMin: (max: string) => (max === '' ? 'write * (or {0,}) instead of {,}' : `write {0,${max}} instead of {,${max}}`),
  lookaround:
    'lookahead/lookbehind are not supported by RE2 (it guarantees linear time); restructure the pattern, capture the surrounding text, or move the test into the condition: expression',
  backref:
    'backreferences are not supported by RE2 (linear time); capture both parts and compare them in the condition: expression',
  atomic: 'atomic groups are not needed in RE2 (it never backtracks); use a plain group (?:…)',
  possessive: 'possessive quantifiers are not needed in RE2 (it never backtracks); drop the trailing +',
  verbose: 'RE2 has no verbose mode; remove the (?x) flag and the whitespace/comments from the pattern',
  comment: 'RE2 has no (?#…) comments; remove the comment group',
  conditional: 'conditional groups (?(id)yes|no) are not supported by RE2; use alternation or a condition: expression',
  namedChar: 'RE2 has no \\N{…}; write the code point as \\x{HHHH}',
  classBackspace: 'RE2 does not accept [\\b]; write the backspace as \\x08',
  posixClass:
    'Python reads [[:alpha:]] as a set of the characters "[:alph" followed by "]", RE2 as a POSIX class; write the intended set explicitly (e.g. [a-zA-Z]) or escape the bracket as \\[',
  anyByte: '\\C (any byte) can split a UTF-8 character and is not Python syntax; use .',
} as const;

function flagHint(letter: string): { kind: RegexSyntaxErrorKind; hint: string } {
  switch (letter) {
    case 'x':
      return { kind: 'verbose-flag', hint: HINTS.verbose };
    case 'a':
      return { kind: 'inline-flag', hint: 'RE2 has no (?a) flag; its \\d \\w \\s \\b are already ASCII-only, so remove it' };
    case 'u':
      return {
        kind: 'inline-flag',
        hint: 'RE2 has no (?u) flag and its \\d \\w \\s \\b are ASCII-only; use explicit classes such as \\p{L} or \\p{Nd} for Unicode',
      };
    case 'L':
      return { kind: 'inline-flag', hint: 'locale-dependent matching (?L) is not supported by RE2; remove it' };
    case 'U':
      return { kind: 'inline-flag', hint: 'in RE2 (?U) means "ungreedy", not Unicode; remove it (use lazy quantifiers like *? instead)' };
    default:
      return { kind: 'inline-flag', hint: 'RE2 supports only the inline flags i, m and s (and -i, -m, -s)' };
  }
}

function fail(kind: RegexSyntaxErrorKind, pattern: string, offset: number, detail: string, hint: string): never {
  throw new RegexSyntaxError({ kind, pattern, offset, detail, hint });
}

const isOct = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '7';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/** `\uXXXX` / `\UXXXXXXXX` at `i` → `\x{…}` and its length in the source; null if not well-formed. */
function unicodeEscape(pattern: string, i: number): { text: string; len: number } | null {
  const digits = pattern[i + 1] === 'u' ? 4 : 8;
  const hex = pattern.slice(i + 2, i + 2 + digits);
  if (hex.length !== digits || ![...hex].every(isHex)) return null;
  return { text: `\\x{${hex}}`, len: 2 + digits };
}

/**
 * Checks `pattern` (Python `re` syntax) and returns the RE2 spelling plus notes, or throws `RegexSyntaxError`.
 * This is a lexical pass; RE2 itself still validates the result (see `compileRegex`).
 */
export function translatePythonRegex(pattern: string): TranslatedPattern {
  const notes = new Set<RegexNoteKind>();
  const dollars: number[] = [];
  let inlineMultiline = false;
  let out = '';
  const n = pattern.length;
  let i = 0;
  let inClass = false;
  let classBodyStart = -1; // a ']' at this index is a literal (first character of the set)
  let canRepeat = false; // the previous token is an atom a quantifier could apply to
  let afterQuant = false; // the previous token was a quantifier (so a following '+' would be possessive)

  while (i < n) {
    const c = pattern[i] as string;

    if (inClass) {
      if (c === '\\') {
        const d = pattern[i + 1];
        if (d === 'b') fail('class-backspace', pattern, i, '[\\b] (backspace) inside a character set', HINTS.classBackspace);
        if (d === 'N') fail('named-char', pattern, i, 'named character escape \\N{…}', HINTS.namedChar);
        if (d === 'u' || d === 'U') {
          const u = unicodeEscape(pattern, i);
          if (u) {
            out += u.text;
            i += u.len;
            continue;
          }
        }
        if (d === 'd' || d === 'w' || d === 's' || d === 'D' || d === 'W' || d === 'S') notes.add('ascii-classes');
        out += d === undefined ? c : c + d;
        i += d === undefined ? 1 : 2;
        continue;
      }
      if (c === '[' && pattern[i + 1] === ':') {
        fail('posix-class', pattern, i, 'POSIX class syntax [:…:] inside a set has a different meaning in Python', HINTS.posixClass);
      }
      if (c === ']' && i > classBodyStart) {
        inClass = false;
        canRepeat = true;
        afterQuant = false;
      }
      out += c;
      i++;
      continue;
    }

    switch (c) {
      case '\\': {
        const d = pattern[i + 1];
        if (d === undefined) {
          out += c; // RE2 reports the trailing backslash
          i++;
          break;
        }
        if (d === 'Z') fail('end-anchor-Z', pattern, i, '\\Z is not supported by RE2', HINTS.Z);
        if (d >= '1' && d <= '9') {
          // Python: exactly three octal digits is an octal escape; anything else is a group reference
          // (RE2 would read "\12" as octal, a silent change of meaning, and reject "\1" without a useful hint).
          if (isOct(d) && isOct(pattern[i + 2]) && isOct(pattern[i + 3])) {
            out += pattern.slice(i, i + 4);
            i += 4;
            canRepeat = true;
            afterQuant = false;
            break;
          }
          let j = i + 1;
          while (j < n && j < i + 3 && (pattern[j] as string) >= '0' && (pattern[j] as string) <= '9') j++;
          fail('backreference', pattern, i, `backreference ${pattern.slice(i, j)}`, HINTS.backref);
        }
        if (d === 'N') fail('named-char', pattern, i, 'named character escape \\N{…}', HINTS.namedChar);
        if (d === 'C') fail('any-byte', pattern, i, '\\C (any byte)', HINTS.anyByte);
        if (d === 'u' || d === 'U') {
          const u = unicodeEscape(pattern, i);
          if (u) {
            out += u.text;
            i += u.len;
            canRepeat = true;
            afterQuant = false;
            break;
          }
        }
        if ('dwsbDWSB'.includes(d)) notes.add('ascii-classes');
        out += c + d;
        i += 2;
        canRepeat = !'AbBz'.includes(d);
        afterQuant = false;
        break;
      }

      case '[':
        inClass = true;
        out += c;
        i++;
        if (pattern[i] === '^') {
          out += '^';
          i++;
        }
        classBodyStart = i;
        break;

      case '(': {
        canRepeat = false;
        afterQuant = false;
        if (pattern[i + 1] !== '?') {
          out += c;
          i++;
          break;
        }
        const e = pattern[i + 2];
        const f = pattern[i + 3];
        if (e === 'P' && f === '<') {
          out += '(?P<';
          i += 4;
        } else if (e === 'P' && f === '=') {
          fail('backreference', pattern, i, 'named backreference (?P=name)', HINTS.backref);
        } else if (e === '<' && (f === '=' || f === '!')) {
          fail('lookbehind', pattern, i, `lookbehind (?<${f}…)`, HINTS.lookaround);
        } else if (e === '<') {
          // Python 3.11 rejects (?<name>…) ("unknown extension"), so a recipe using it would not
          // load in the original either.
          fail('named-group-spelling', pattern, i, 'named group (?<name>…)', 'write (?P<name>…): Python 3.11 only knows that spelling');
        } else if (e === '=' || e === '!') {
          fail('lookahead', pattern, i, `lookahead (?${e}…)`, HINTS.lookaround);
        } else if (e === '>') {
          fail('atomic-group', pattern, i, 'atomic group (?>…)', HINTS.atomic);
        } else if (e === '#') {
          fail('comment-group', pattern, i, 'comment group (?#…)', HINTS.comment);
        } else if (e === '(') {
          fail('conditional', pattern, i, 'conditional group (?(…)…)', HINTS.conditional);
        } else {
          // Inline flags: (?flags) (?flags:…) (?flags-flags:…). Only i, m, s mean the same in both engines.
          let j = i + 2;
          while (j < n && /[A-Za-z-]/.test(pattern[j] as string)) {
            const letter = pattern[j] as string;
            if (letter !== '-' && !'ims'.includes(letter)) {
              const { kind, hint } = flagHint(letter);
              fail(kind, pattern, j, `inline flag (?${letter}) is not supported by RE2`, hint);
            }
            if (letter === 'm' && !pattern.slice(i + 2, j).includes('-')) inlineMultiline = true;
            j++;
          }
          out += pattern.slice(i, j);
          i = j;
        }
        break;
      }

      case ')':
        out += c;
        i++;
        canRepeat = true;
        afterQuant = false;
        break;

      case '*':
      case '+':
      case '?':
        if (afterQuant && c === '+') {
          fail('possessive', pattern, i - 1, `possessive quantifier …${pattern[i - 1] ?? ''}+`, HINTS.possessive);
        }
        out += c;
        i++;
        if (afterQuant && c === '?') {
          afterQuant = false; // lazy modifier
        } else {
          afterQuant = canRepeat; // otherwise RE2 reports "missing argument to repetition operator"
          canRepeat = false;
        }
        break;

      case '{': {
        // Python's repeat syntax is {m?(,n?)?} except the literal "{}"; RE2 only knows {m}, {m,}, {m,n}.
        const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(pattern.slice(i, i + 24));
        if (m && m[0] !== '{}') {
          if (m[1] === '') {
            fail(
              'empty-min-repeat',
              pattern,
              i,
              `${m[0]} means {0,${m[3] ?? ''}} in Python but is a literal string in RE2`,
              HINTS.emptyMin(m[3] ?? ''),
            );
          }
          out += m[0];
          i += m[0].length;
          afterQuant = canRepeat;
          canRepeat = false;
          break;
        }
        out += c; // a literal '{' in both engines
        i++;
        canRepeat = true;
        afterQuant = false;
        break;
      }

      case '$':
        dollars.push(i);
        out += c;
        i++;
        canRepeat = false;
        afterQuant = false;
        break;

      case '^':
      case '|':
        out += c;
        i++;
        canRepeat = false;
        afterQuant = false;
        break;

      default:
        out += c;
        i++;
        canRepeat = true;
        afterQuant = false;
    }
  }

  const endOfTextDollars = inlineMultiline ? [] : dollars;
  if (endOfTextDollars.length > 0) notes.add('dollar-final-newline');
  return { source: out, notes: [...notes].map((kind) => ({ kind, message: NOTE_TEXT[kind] })), endOfTextDollars };
}

/** A hint for an error message RE2 produced (RE2 gives no offsets, only a message). */
export function hintForRe2Error(message: string): string {
  if (message.includes('invalid repetition size')) return 'RE2 limits counted repetition to at most 1000 (e.g. {0,1000})';
  if (message.includes('invalid named capture group')) return 'group names must be ASCII letters, digits and _ (not starting with a digit)';
  if (message.includes('duplicate capture group name')) return 'each group name may be used only once';
  if (message.includes('pattern too large')) {
    return 'the compiled program exceeds RE2\'s memory budget; large counted repeats such as (…){500} multiply its size';
  }
  if (message.includes('invalid escape sequence')) return 'RE2 does not support this escape sequence (see RE2 syntax)';
  if (message.includes('invalid perl operator')) return 'RE2 does not support this (?…) construct';
  return '';
}
