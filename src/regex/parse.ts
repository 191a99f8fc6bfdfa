/**
 * Parses a Python-`re` pattern (Python 3.11, `str` pattern) into the regex tree (ast.ts), once.
 *
 * The grammar and the errors follow CPython's `Lib/re/_parser.py`: what Python rejects is rejected here
 * (kind 'syntax', Python's message and offset, or a specific kind when the construct has a better hint),
 * so a recipe that loads here also loads in the original. What Python accepts is either resolved to its
 * meaning (classes become code-point sets, flags are applied to the nodes they govern) or rejected with a
 * hint when our engines cannot give it the same meaning:
 *  - Python-only constructs RE2 cannot run (lookaround, backreferences, atomic groups, possessive
 *    quantifiers, conditionals, `(?x)`, `(?a)`/`(?u)`/`(?L)`…, `\N{…}`, `[\b]`);
 *  - spellings RE2 would read differently (`a{,3}` is a literal in RE2, `[[:alpha:]]` a POSIX class);
 *  - RE2-only syntax Python rejects gets a hint naming the Python spelling (`\z`, `\pL`, `\x{41}`, `\Q…\E`).
 */
import type { Class, FlagChange, Group, Node, RegexTree } from './ast.js';
import { CLASS_ESCAPE, complement, isCased, normalise, type CharSet } from './charset.js';
import { RegexSyntaxError, type RegexSyntaxErrorKind } from './errors.js';
import { strRepr } from '../condition/repr.js';
import { isXidContinue, isXidStart } from '../condition/unicode-tables.js';

/** Python's `str.isidentifier()`: XID_Start or `_`, then XID_Continue. */
function isPyIdentifier(name: string): boolean {
  let first = true;
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (first ? !(isXidStart(c) || c === 0x5f) : !isXidContinue(c)) return false;
    first = false;
  }
  return !first;
}

const HINTS = {
  emptyMin: (max: string) =>
    max === '' ? 'write * (or {0,}) instead of {,}' : `write {0,${max}} instead of {,${max}}`,
  lookaround:
    'lookahead/lookbehind are not supported by RE2 (it guarantees linear time); restructure the pattern, capture the surrounding text, or move the test into the condition: expression',
  backref:
    'backreferences are not supported by RE2 (linear time); capture both parts and compare them in the condition: expression',
  atomic: 'atomic groups are not needed in RE2 (it never backtracks); use a plain group (?:…)',
  possessive: 'possessive quantifiers are not needed in RE2 (it never backtracks); drop the trailing +',
  verbose: 'RE2 has no verbose mode; remove the (?x) flag and the whitespace/comments from the pattern',
  comment: 'RE2 has no (?#…) comments; remove the comment group',
  conditional: 'conditional groups (?(id)yes|no) are not supported by RE2; use alternation or a condition: expression',
  namedChar:
    "RE2 has no \\N{…}; write the code point as \\uHHHH or \\UHHHHHHHH (RE2's own \\x{HHHH} is not Python syntax)",
  classBackspace: 'RE2 does not accept [\\b]; write the backspace as \\x08',
  posixClass:
    'Python reads [[:alpha:]] as a set of the characters "[:alph" followed by "]", RE2 as a POSIX class; write the intended set explicitly (e.g. [a-zA-Z]) or escape the bracket as \\[',
  anyByte: '\\C (any byte) can split a UTF-8 character and is not Python syntax; use .',
  astralSet:
    "Python's IGNORECASE handles cased characters beyond U+FFFF inside [...] inconsistently; write them outside the set (e.g. (?:𐐀|[a-z])) or list both cases with (?-i:[...])",
  globalFlag:
    'Python 3.11 accepts a global flag group only at the very start of the pattern; move it there, or scope it to a part: (?i:…)',
} as const;

/** Hints for escapes that are RE2 (or Perl) syntax but an error in Python. */
const RE2_ONLY_ESCAPES: Readonly<Record<string, string>> = {
  z: 'Python spells end of text \\Z (\\z is RE2 syntax, an error in Python)',
  p: 'Python has no Unicode property classes (\\pL, \\p{Greek}); write the set explicitly, e.g. [^\\W\\d_] for letters',
  P: 'Python has no Unicode property classes (\\PL, \\P{Greek}); write the set explicitly',
  Q: 'Python has no \\Q…\\E quoting; escape each special character with a backslash',
  E: 'Python has no \\Q…\\E quoting; escape each special character with a backslash',
  C: HINTS.anyByte,
};

function flagHint(letter: string): { kind: RegexSyntaxErrorKind; hint: string } {
  switch (letter) {
    case 'x':
      return { kind: 'verbose-flag', hint: HINTS.verbose };
    case 'a':
      return {
        kind: 'inline-flag',
        hint: 'RE2 has no (?a) flag; write the ASCII sets explicitly: [0-9] for \\d, [A-Za-z0-9_] for \\w, [ \\t\\n\\r\\f\\v] for \\s',
      };
    case 'u':
      return {
        kind: 'inline-flag',
        hint: "RE2 has no (?u) flag; Unicode matching is already the default (\\d \\w \\s mean what Python's do; only \\b \\B stay ASCII-only), so remove it",
      };
    case 'L':
      return { kind: 'inline-flag', hint: 'locale-dependent matching (?L) is not supported by RE2; remove it' };
    case 'U':
      return {
        kind: 'inline-flag',
        hint: 'in RE2 (?U) means "ungreedy", not Unicode; remove it (use lazy quantifiers like *? instead)',
      };
    default:
      return { kind: 'inline-flag', hint: 'RE2 supports only the inline flags i, m and s (and -i, -m, -s)' };
  }
}

const isOct = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '7';
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
const isAsciiLetter = (c: string): boolean => /^[A-Za-z]$/.test(c);

/** Python's flags that this tree resolves; the rest are rejected. */
interface Flags {
  readonly i: boolean;
  readonly m: boolean;
  readonly s: boolean;
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 };
const CLASS_ESCAPES = 'dDwWsS';

/** What an escape inside or outside a set stands for. */
type Escaped = { readonly k: 'char'; readonly cp: number } | { readonly k: 'class'; readonly letter: string };

class Parser {
  private i = 0;
  private readonly groups: Group[] = [];
  private setsMultiline = false;

  constructor(
    private readonly p: string,
    private flags: Flags,
  ) {}

  parse(): RegexTree {
    const root = this.alternation(true);
    if (this.i < this.p.length) this.fail('syntax', this.i, 'unbalanced parenthesis', '');
    return { pattern: this.p, root, groups: this.groups, setsMultiline: this.setsMultiline };
  }

  private fail(kind: RegexSyntaxErrorKind, offset: number, detail: string, hint: string): never {
    throw new RegexSyntaxError({ kind, pattern: this.p, offset, detail, hint });
  }

  /** The code point at the cursor as a string (astral characters are two UTF-16 units). */
  private peekChar(): string | undefined {
    const cp = this.p.codePointAt(this.i);
    return cp === undefined ? undefined : String.fromCodePoint(cp);
  }

  private alternation(top: boolean): Node {
    const start = this.i;
    const alts: Node[] = [this.sequence(top)];
    while (this.p[this.i] === '|') {
      this.i++;
      alts.push(this.sequence(false));
    }
    return alts.length === 1 ? alts[0]! : { k: 'alt', start, end: this.i, alts };
  }

  /** `first` is true only for the top-level sequence before any '|': the one place global flags may appear. */
  private sequence(first: boolean): Node {
    const start = this.i;
    const items: Node[] = [];
    for (;;) {
      const c = this.p[this.i];
      if (c === undefined || c === '|' || c === ')') break;
      const atStart = first && items.every((n) => n.k === 'global-flags');
      let item = this.atom(atStart);
      item = this.quantified(item);
      items.push(item);
    }
    if (items.length === 0) return { k: 'empty', start, end: start };
    return items.length === 1 ? items[0]! : { k: 'concat', start, end: this.i, items };
  }

  /** Applies any quantifiers after `item`; Python allows one (plus a lazy `?`). */
  private quantified(item: Node): Node {
    const q = this.quantifier();
    if (q === null) return item;
    if (item.k === 'assert' || item.k === 'global-flags') this.fail('syntax', q.opStart, 'nothing to repeat', '');
    let lazy = false;
    if (this.p[this.i] === '?') {
      lazy = true;
      this.i++;
    } else if (this.p[this.i] === '+') {
      this.fail('possessive', this.i - 1, `possessive quantifier …${this.p[this.i - 1] ?? ''}+`, HINTS.possessive);
    }
    const node: Node = {
      k: 'repeat',
      start: item.start,
      end: this.i,
      min: q.min,
      max: q.max,
      lazy,
      opStart: q.opStart,
      sub: item,
    };
    const again = this.i;
    if (this.quantifier() !== null) this.fail('syntax', again, 'multiple repeat', '');
    return node;
  }

  /** `* + ? {m} {m,} {m,n}` at the cursor (consumed), or null (a `{` that is not a repeat is a literal). */
  private quantifier(): { min: number; max: number; opStart: number } | null {
    const opStart = this.i;
    const c = this.p[this.i];
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      return { min: c === '+' ? 1 : 0, max: c === '?' ? 1 : Infinity, opStart };
    }
    if (c !== '{') return null;
    const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(this.p.slice(this.i, this.i + 48));
    if (m === null || m[0] === '{}') return null;
    const [text, lo = '', comma, hi = ''] = m;
    if (lo === '') {
      this.fail(
        'empty-min-repeat',
        opStart,
        `${text} means {0,${hi}} in Python but is a literal string in RE2`,
        HINTS.emptyMin(hi),
      );
    }
    const min = Number(lo);
    const max = comma === undefined ? min : hi === '' ? Infinity : Number(hi);
    if (max < min) this.fail('syntax', opStart + 1, 'min repeat greater than max repeat', '');
    this.i += text.length;
    return { min, max, opStart };
  }

  private atom(atStart: boolean): Node {
    const start = this.i;
    const c = this.peekChar()!;
    switch (c) {
      case '(':
        return this.group(atStart);
      case '[':
        return this.set();
      case '.':
        this.i++;
        return { k: 'dot', start, end: this.i, dotAll: this.flags.s };
      case '^':
      case '$':
        this.i++;
        return {
          k: 'assert',
          start,
          end: this.i,
          what: c === '^' ? 'line-start' : 'line-end',
          multiline: this.flags.m,
        };
      case '\\':
        return this.escapeAtom();
      case '*':
      case '+':
      case '?':
        return this.fail('syntax', start, 'nothing to repeat', '');
      case '{':
        if (this.quantifier() !== null) this.fail('syntax', start, 'nothing to repeat', '');
        this.i = start + 1;
        return { k: 'literal', start, end: this.i, cp: 0x7b, ci: this.flags.i };
      default:
        this.i += c.length;
        return { k: 'literal', start, end: this.i, cp: c.codePointAt(0)!, ci: this.flags.i };
    }
  }

  private escapeAtom(): Node {
    const start = this.i;
    const d = this.p[this.i + 1];
    if (d === 'A' || d === 'Z' || d === 'b' || d === 'B') {
      this.i += 2;
      const what =
        d === 'A' ? 'text-start' : d === 'Z' ? 'text-end' : d === 'b' ? 'word-boundary' : 'not-word-boundary';
      return { k: 'assert', start, end: this.i, what, multiline: this.flags.m };
    }
    if (isDigit(d) && d !== '0') {
      // Python: three octal digits are an octal escape; anything else is a group reference.
      if (isOct(d) && isOct(this.p[this.i + 2]) && isOct(this.p[this.i + 3])) {
        const cp = parseInt(this.p.slice(this.i + 1, this.i + 4), 8);
        if (cp > 0o377)
          this.fail(
            'syntax',
            start,
            `octal escape value ${this.p.slice(start, start + 4)} outside of range 0-0o377`,
            '',
          );
        this.i += 4;
        return { k: 'literal', start, end: this.i, cp, ci: this.flags.i };
      }
      let j = this.i + 1;
      while (j < this.p.length && j < this.i + 3 && isDigit(this.p[j])) j++;
      this.fail('backreference', start, `backreference ${this.p.slice(start, j)}`, HINTS.backref);
    }
    const e = this.escape(false);
    if (e.k === 'char') return { k: 'literal', start, end: this.i, cp: e.cp, ci: this.flags.i };
    return this.classNode(start, [], classEscapeSet(e.letter), false, e.letter.toLowerCase() === 'w');
  }

  /**
   * The escape at the cursor (a backslash), shared by sets and the top level (`inSet` changes `\b` and octal).
   * Assertions and group references are handled by the caller.
   */
  private escape(inSet: boolean): Escaped {
    const start = this.i;
    const d = this.peekCharAt(this.i + 1);
    if (d === undefined) this.fail('syntax', start, 'bad escape (end of pattern)', '');
    this.i += 1 + d.length;
    if (CLASS_ESCAPES.includes(d)) return { k: 'class', letter: d };
    const simple = SIMPLE_ESCAPES[d];
    if (simple !== undefined) return { k: 'char', cp: simple };
    switch (d) {
      case 'x':
      case 'u':
      case 'U': {
        const digits = d === 'x' ? 2 : d === 'u' ? 4 : 8;
        const hex = this.p.slice(this.i, this.i + digits);
        if (d === 'x' && this.p[this.i] === '{') {
          this.fail(
            'bad-escape',
            start,
            'incomplete escape \\x (\\x{…} is RE2 syntax)',
            'write \\xHH, \\uHHHH or \\UHHHHHHHH',
          );
        }
        if (hex.length !== digits || ![...hex].every(isHex)) {
          let j = this.i;
          while (j < this.i + digits && isHex(this.p[j])) j++;
          this.fail('syntax', start, `incomplete escape ${this.p.slice(start, j)}`, '');
        }
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff) this.fail('syntax', start, `bad escape ${this.p.slice(start, this.i + digits)}`, '');
        this.i += digits;
        return { k: 'char', cp };
      }
      case 'N':
        return this.fail('named-char', start, 'named character escape \\N{…}', HINTS.namedChar);
      case 'b':
        if (inSet)
          this.fail('class-backspace', start, '[\\b] (backspace) inside a character set', HINTS.classBackspace);
        break;
      case '0': {
        let j = this.i;
        while (j < this.i + 2 && isOct(this.p[j])) j++;
        const cp = parseInt(this.p.slice(this.i - 1, j), 8);
        this.i = j;
        return { k: 'char', cp };
      }
      default:
    }
    if (inSet && isOct(d)) {
      let j = this.i;
      while (j < this.i + 2 && isOct(this.p[j])) j++;
      const cp = parseInt(this.p.slice(this.i - 1, j), 8);
      if (cp > 0o377)
        this.fail('syntax', start, `octal escape value ${this.p.slice(start, j)} outside of range 0-0o377`, '');
      this.i = j;
      return { k: 'char', cp };
    }
    if (isDigit(d) || isAsciiLetter(d)) {
      const hint = RE2_ONLY_ESCAPES[d];
      if (d === 'C') this.fail('any-byte', start, '\\C (any byte)', HINTS.anyByte);
      this.fail(hint === undefined ? 'syntax' : 'bad-escape', start, `bad escape \\${d}`, hint ?? '');
    }
    return { k: 'char', cp: d.codePointAt(0)! };
  }

  private peekCharAt(i: number): string | undefined {
    const cp = this.p.codePointAt(i);
    return cp === undefined ? undefined : String.fromCodePoint(cp);
  }

  private classNode(
    start: number,
    positive: CharSet,
    categories: CharSet,
    negated: boolean,
    usesAsciiWord: boolean,
  ): Class {
    return { k: 'class', start, end: this.i, positive, categories, negated, ci: this.flags.i, usesAsciiWord };
  }

  /** `[…]`, Python's rules: `]` first is a member, `-` first or last is a member, ranges need plain ends. */
  private set(): Class {
    const start = this.i;
    this.i++; // [
    const negated = this.p[this.i] === '^';
    if (negated) this.i++;
    const ranges: (readonly [number, number])[] = [];
    const categories: (readonly [number, number])[] = [];
    /** A single member: a class escape's go to `categories`. */
    const add = (e: Escaped): void => {
      if (e.k === 'char') ranges.push([e.cp, e.cp]);
      else categories.push(...classEscapeSet(e.letter));
    };
    let members = 0;
    let usesAsciiWord = false;
    let astralCased = -1; // offset of a single cased member beyond U+FFFF
    const unterminated = (): never => this.fail('syntax', start, 'unterminated character set', '');
    for (;;) {
      const itemStart = this.i;
      const c = this.peekChar();
      if (c === undefined) unterminated();
      if (c === ']' && members > 0) {
        this.i++;
        break;
      }
      if (c === '[' && this.p[this.i + 1] === ':') {
        this.fail(
          'posix-class',
          this.i,
          'POSIX class syntax [:…:] inside a set has a different meaning in Python',
          HINTS.posixClass,
        );
      }
      const lo = this.setItem();
      members++;
      if (lo.k === 'class' && lo.letter.toLowerCase() === 'w') usesAsciiWord = true;
      if (this.p[this.i] === '-') {
        this.i++;
        const that = this.peekChar();
        if (that === undefined) unterminated();
        if (that === ']') {
          this.i++;
          add(lo);
          ranges.push([0x2d, 0x2d]);
          break;
        }
        const hiStart = this.i;
        const hi = this.setItem();
        if (lo.k !== 'char' || hi.k !== 'char' || hi.cp < lo.cp) {
          this.fail(
            'syntax',
            itemStart,
            `bad character range ${this.p.slice(itemStart, hiStart - 1)}-${this.p.slice(hiStart, this.i)}`,
            '',
          );
        }
        ranges.push([lo.cp, hi.cp]);
      } else {
        if (lo.k === 'char' && lo.cp > 0xffff && isCased(lo.cp) && astralCased < 0) astralCased = itemStart;
        add(lo);
      }
    }
    if (this.flags.i && astralCased >= 0) {
      // CPython 3.11 compares the lower-cased subject character with such a member as written, so
      // (?i)[𐐀] does not even match 𐐀; RE2 cannot reproduce that, and nobody means it.
      this.fail(
        'ignorecase-astral-set',
        astralCased,
        'a case-insensitive set with a cased character beyond U+FFFF',
        HINTS.astralSet,
      );
    }
    return this.classNode(start, normalise(ranges), normalise(categories), negated, usesAsciiWord);
  }

  private setItem(): Escaped {
    const c = this.peekChar()!;
    if (c === '\\') return this.escape(true);
    this.i += c.length;
    return { k: 'char', cp: c.codePointAt(0)! };
  }

  private group(atStart: boolean): Node {
    const start = this.i;
    this.i++; // (
    let name: string | null = null;
    let capture = true;
    let flags: FlagChange | null = null;
    if (this.p[this.i] === '?') {
      const e = this.p[this.i + 1];
      const f = this.p[this.i + 2];
      if (e === undefined) this.fail('syntax', this.i + 1, 'unexpected end of pattern', '');
      if (e === 'P' && f === '<') {
        const close = this.p.indexOf('>', this.i + 3);
        if (close < 0) this.fail('syntax', this.i + 3, 'missing >, unterminated name', '');
        name = this.p.slice(this.i + 3, close);
        if (name === '') this.fail('syntax', this.i + 3, 'missing group name', '');
        // Python requires `name.isidentifier()` (RE2 would take `0`): so a capture key is never
        // integer-like, and a plain object keeps the groups in the pattern's order.
        if (!isPyIdentifier(name)) this.fail('syntax', this.i + 3, `bad character in group name ${strRepr(name)}`, '');
        this.i = close + 1;
      } else if (e === 'P' && f === '=') {
        this.fail('backreference', start, 'named backreference (?P=name)', HINTS.backref);
      } else if (e === 'P') {
        if (f === undefined) this.fail('syntax', this.i + 2, 'unexpected end of pattern', '');
        this.fail('syntax', this.i, `unknown extension ?P${f}`, '');
      } else if (e === '<' && (f === '=' || f === '!')) {
        this.fail('lookbehind', start, `lookbehind (?<${f}…)`, HINTS.lookaround);
      } else if (e === '<') {
        // Python 3.11 rejects (?<name>…) ("unknown extension"), so a recipe using it would not load in the original.
        this.fail(
          'named-group-spelling',
          start,
          'named group (?<name>…)',
          'write (?P<name>…): Python 3.11 only knows that spelling',
        );
      } else if (e === '=' || e === '!') {
        this.fail('lookahead', start, `lookahead (?${e}…)`, HINTS.lookaround);
      } else if (e === '>') {
        this.fail('atomic-group', start, 'atomic group (?>…)', HINTS.atomic);
      } else if (e === '#') {
        this.fail('comment-group', start, 'comment group (?#…)', HINTS.comment);
      } else if (e === '(') {
        this.fail('conditional', start, 'conditional group (?(…)…)', HINTS.conditional);
      } else if (e === ':') {
        capture = false;
        this.i += 2;
      } else if (/[a-zA-Z-]/.test(e)) {
        const change = this.flagLetters();
        if (this.p[this.i] === ')') {
          this.i++;
          if (change.off !== '') this.fail('syntax', this.i - 1, 'missing :', '');
          if (!atStart)
            this.fail(
              'global-flag-position',
              start,
              `global flag group ${this.p.slice(start, this.i)} not at the start of the pattern`,
              HINTS.globalFlag,
            );
          this.flags = applyFlags(this.flags, change);
          if (change.on.includes('m')) this.setsMultiline = true;
          return { k: 'global-flags', start, end: this.i, on: change.on };
        }
        if (this.p[this.i] !== ':') {
          this.fail('syntax', this.i, this.i >= this.p.length ? 'missing -, : or )' : `unknown flag`, '');
        }
        this.i++;
        capture = false;
        flags = change;
        if (change.on.includes('m')) this.setsMultiline = true;
      } else {
        this.fail('syntax', this.i, `unknown extension ?${e}`, '');
      }
    }
    const bodyStart = this.i;
    const index = capture ? this.groups.length + 1 : 0;
    const outer = this.flags;
    if (flags !== null) this.flags = applyFlags(outer, flags);
    // The group is registered before its body so groups are numbered by their opening parenthesis.
    const slot = capture ? this.groups.length : -1;
    if (capture) this.groups.push(undefined as unknown as Group);
    const body = this.alternation(false);
    this.flags = outer;
    if (this.p[this.i] !== ')') this.fail('syntax', start, 'missing ), unterminated subpattern', '');
    this.i++;
    const node: Group = { k: 'group', start, end: this.i, index, name, flags, bodyStart, body };
    if (slot >= 0) this.groups[slot] = node;
    return node;
  }

  /** Inline flag letters after `(?`, up to `)` or `:`; only i, m and s mean the same in RE2. */
  private flagLetters(): FlagChange {
    let on = '';
    let off = '';
    let negative = false;
    this.i++; // ?
    for (;;) {
      const letter = this.p[this.i];
      if (letter === undefined || letter === ')' || letter === ':') break;
      if (letter === '-') {
        if (negative) this.fail('syntax', this.i, 'unknown flag', '');
        negative = true;
        this.i++;
        const next = this.p[this.i];
        if (next === undefined || next === ':' || next === ')')
          this.fail('syntax', this.i, next === undefined ? 'missing flag' : 'missing flag', '');
        continue;
      }
      if (!/[A-Za-z]/.test(letter)) this.fail('syntax', this.i, 'unknown flag', '');
      if (!'ims'.includes(letter)) {
        const { kind, hint } = flagHint(letter);
        if (!'aiLmsuxU'.includes(letter)) this.fail('syntax', this.i, 'unknown flag', ''); // U: a hint for RE2's ungreedy flag
        this.fail(kind, this.i, `inline flag (?${letter}) is not supported by RE2`, hint);
      }
      if (negative) off += letter;
      else on += letter;
      this.i++;
    }
    for (const l of off)
      if (on.includes(l)) this.fail('syntax', this.i, 'bad inline flags: flag turned on and off', '');
    if (this.i >= this.p.length) this.fail('syntax', this.i, 'missing -, : or )', '');
    return { on, off };
  }
}

function applyFlags(flags: Flags, change: FlagChange): Flags {
  const has = (l: 'i' | 'm' | 's') => (change.on.includes(l) ? true : change.off.includes(l) ? false : flags[l]);
  return { i: has('i'), m: has('m'), s: has('s') };
}

/**
 * The set of `\d \D \w \W \s \S`, one object per letter: a recipe of many patterns repeats them, and the passes
 * that memoise per set (members.ts, translate.ts) then see the same one.
 */
function classEscapeSet(letter: string): CharSet {
  let set = escapeSets.get(letter);
  if (set === undefined) {
    const base = CLASS_ESCAPE[letter.toLowerCase() as 'd' | 'w' | 's'];
    set = letter === letter.toUpperCase() ? complement(base) : base;
    escapeSets.set(letter, set);
  }
  return set;
}
const escapeSets = new Map<string, CharSet>();

/**
 * Parses `pattern` (Python `re` syntax) compiled with `flags` (normalised letters from "ims") into the tree,
 * or throws `RegexSyntaxError`.
 */
export function parsePythonRegex(pattern: string, flags = ''): RegexTree {
  return new Parser(pattern, { i: flags.includes('i'), m: flags.includes('m'), s: flags.includes('s') }).parse();
}
