/**
 * The capturing groups of a pattern's regex, and which of them may not participate in a match.
 *
 * A condition sees only the named groups that participated in the match (`src/regex/match.ts`),
 * so `capture['k']` raises KeyError when `k` is not a named group at all, and also when its group
 * sits in a part of the regex a match can skip: an alternative of `|`, or anything under a
 * quantifier whose minimum is 0 (`?`, `*`, `{0,n}`).
 *
 * The names come from RE2 itself (the compiled program's group names), so they are exactly what
 * the scanner will produce. Optionality comes from a small structural parse of the pattern (the
 * Python-syntax source; `translatePythonRegex` has already rejected every construct whose meaning
 * differs, so what is left parses the same in both engines). If that parse fails or disagrees
 * with RE2 on the named groups, optionality is reported as unknown and no optional-group warning
 * is made — never a wrong one.
 */
import { compileRegex } from '../regex/index.js';
import type { CaptureModel } from './analyze.js';

export interface RegexGroup {
  /** 1-based group number, in order of the opening parenthesis (as RE2 numbers them). */
  readonly index: number;
  /** The `(?P<name>…)` name, or null for a plain `(…)`. */
  readonly name: string | null;
  /** Offsets in the pattern (UTF-16): the `(` and just past the `)`. */
  readonly start: number;
  readonly end: number;
  /** Offset just past the group's opening (`(`, `(?P<name>`), where its body starts. */
  readonly bodyStart: number;
  /**
   * Why a match may leave the group unset: 'quantifier' when the only reason is the group's own
   * quantifier (`(?P<x>…)?`), 'context' when an enclosing `|` or optional quantifier is involved
   * (possibly as well), null when the group participates in every match.
   */
  readonly optional: 'quantifier' | 'context' | null;
  /** The group's own quantifier as written (`?`, `*`, `{0,3}?`), with its end offset; null if none. */
  readonly quantifier: { readonly text: string; readonly end: number } | null;
}

export interface RegexGroups {
  /** Named groups, in group-number order, exactly as RE2 reports them. */
  readonly names: readonly string[];
  /** Every capturing group, named or not, from the structural parse; null when that parse was not trusted. */
  readonly groups: readonly RegexGroup[] | null;
}

/**
 * Groups of `pattern` (Python `re` syntax, as written in the recipe), or null when the pattern
 * does not compile on RE2 (a loader configured without the RE2 check may hand us one).
 */
export function regexGroups(pattern: string, flags = ''): RegexGroups | null {
  let rawNames: readonly (string | undefined)[];
  try {
    const handle = compileRegex(pattern, flags);
    rawNames = handle.groupNames;
    handle.dispose();
  } catch {
    return null;
  }
  const names = rawNames.filter((n): n is string => n !== undefined);
  let groups: RegexGroup[] | null;
  try {
    groups = new GroupParser(pattern).parse();
  } catch (e) {
    if (!(e instanceof Unsupported)) throw e;
    groups = null;
  }
  // Trust the parse only when it numbers and names the groups exactly as RE2 does.
  if (groups !== null) {
    const same = groups.length === rawNames.length && groups.every((g, k) => g.name === (rawNames[k] ?? null));
    if (!same) groups = null;
  }
  return { names, groups };
}

class Unsupported extends Error {}

interface MutableGroup {
  index: number;
  name: string | null;
  start: number;
  end: number;
  bodyStart: number;
  ownQuantifier: { text: string; end: number; optional: boolean } | null;
  inOptionalContext: boolean;
}

/** Recursive descent over alternation → concatenation → quantified atoms. */
class GroupParser {
  private i = 0;
  private readonly groups: MutableGroup[] = [];

  constructor(private readonly p: string) {}

  parse(): RegexGroup[] {
    this.alternation();
    if (this.i !== this.p.length) throw new Unsupported();
    return this.groups.map((g) => ({
      index: g.index,
      name: g.name,
      start: g.start,
      end: g.end,
      bodyStart: g.bodyStart,
      optional: g.inOptionalContext ? 'context' : g.ownQuantifier?.optional ? 'quantifier' : null,
      quantifier: g.ownQuantifier === null ? null : { text: g.ownQuantifier.text, end: g.ownQuantifier.end },
    }));
  }

  /** Groups created from `from` on lie inside something a match may skip. */
  private markOptional(from: number): void {
    for (let k = from; k < this.groups.length; k++) this.groups[k]!.inOptionalContext = true;
  }

  private alternation(): void {
    const first = this.groups.length;
    this.concat();
    let branches = 1;
    while (this.p[this.i] === '|') {
      this.i++;
      this.concat();
      branches++;
    }
    // With two or more alternatives, a match takes only one of them.
    if (branches > 1) this.markOptional(first);
  }

  private concat(): void {
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const before = this.groups.length;
      const group = this.atom();
      const q = this.quantifier();
      if (q === null) continue;
      if (group !== null) {
        // The group's own quantifier; groups nested inside it are skipped along with it.
        group.ownQuantifier = q;
        if (q.optional) this.markOptional(before + 1);
      } else if (q.optional) {
        this.markOptional(before);
      }
    }
  }

  /** `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`, each optionally lazy; null when there is none. */
  private quantifier(): { text: string; end: number; optional: boolean } | null {
    const start = this.i;
    const c = this.p[this.i];
    let optional: boolean;
    if (c === '*' || c === '?') {
      optional = true;
      this.i++;
    } else if (c === '+') {
      optional = false;
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(this.p.slice(this.i, this.i + 24));
      if (m === null) return null; // a literal '{' (the translator rejected `{,n}`)
      optional = Number(m[1]) === 0;
      this.i += m[0].length;
    } else {
      return null;
    }
    if (this.p[this.i] === '?') this.i++; // lazy
    return { text: this.p.slice(start, this.i), end: this.i, optional };
  }

  /** Parses one atom; returns the capturing group it opened, if it was one. */
  private atom(): MutableGroup | null {
    const c = this.p[this.i]!;
    if (c === '(') return this.group();
    if (c === '[') {
      this.charClass();
      return null;
    }
    if (c === '\\') {
      this.escape();
      return null;
    }
    if (c === '*' || c === '+' || c === '?') throw new Unsupported(); // RE2 rejected these already
    this.i += c.length;
    return null;
  }

  private group(): MutableGroup | null {
    const start = this.i;
    this.i++; // (
    let group: MutableGroup | null = null;
    if (this.p[this.i] === '?') {
      const rest = this.p.slice(this.i, this.i + 300);
      const named = /^\?P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      const flags = /^\?([imsU-]*)(:|\))/.exec(rest);
      if (named !== null) {
        this.i += named[0].length;
        group = this.open(named[1]!, start);
      } else if (flags !== null) {
        this.i += flags[0].length;
        if (flags[2] === ')') return null; // `(?i)`: sets flags, matches nothing
      } else {
        throw new Unsupported();
      }
    } else {
      group = this.open(null, start);
    }
    this.alternation();
    if (this.p[this.i] !== ')') throw new Unsupported();
    this.i++;
    if (group !== null) group.end = this.i;
    return group;
  }

  private open(name: string | null, start: number): MutableGroup {
    const g: MutableGroup = {
      index: this.groups.length + 1, name, start, end: -1, bodyStart: this.i, ownQuantifier: null, inOptionalContext: false,
    };
    this.groups.push(g);
    return g;
  }

  private escape(): void {
    this.i++; // backslash
    const c = this.p[this.i];
    if (c === undefined) throw new Unsupported();
    this.i++;
    if (c === 'Q') {
      // RE2 quoting: literal text up to \E or the end.
      const end = this.p.indexOf('\\E', this.i);
      this.i = end < 0 ? this.p.length : end + 2;
      return;
    }
    if ((c === 'x' || c === 'p' || c === 'P') && this.p[this.i] === '{') {
      const end = this.p.indexOf('}', this.i);
      if (end < 0) throw new Unsupported();
      this.i = end + 1;
      return;
    }
    // `\pL`, `\x41`, `\u0041`, `\U0001F600`, octal `\012`: the rest is ordinary characters.
    if (c === 'p' || c === 'P') this.i++;
  }

  /** Skips a character set: a `]` first is literal; escapes are skipped whole. */
  private charClass(): void {
    this.i++; // [
    if (this.p[this.i] === '^') this.i++;
    if (this.p[this.i] === ']') this.i++;
    while (this.i < this.p.length && this.p[this.i] !== ']') {
      if (this.p[this.i] === '\\') {
        const c = this.p[this.i + 1];
        if ((c === 'x' || c === 'p' || c === 'P') && this.p[this.i + 2] === '{') {
          const end = this.p.indexOf('}', this.i);
          if (end < 0) throw new Unsupported();
          this.i = end + 1;
        } else {
          this.i += 2;
        }
      } else {
        this.i++;
      }
    }
    if (this.i >= this.p.length) throw new Unsupported();
    this.i++; // ]
  }
}

/**
 * What `capture` can hold for this regex. Optional groups get an explanation; when the group is
 * optional only through its own `?`, the fix is to move the `?` inside (`(?P<x>(?:…)?)`): the group
 * then always participates, as '' when the part is absent.
 */
export function captureModel(pattern: string, flags = ''): CaptureModel | null {
  const info = regexGroups(pattern, flags);
  if (info === null) return null;
  const optional = new Map<string, string>();
  for (const g of info.groups ?? []) {
    if (g.name === null || g.optional === null) continue;
    const groupText = pattern.slice(g.start, g.quantifier?.end ?? g.end);
    let why: string;
    if (g.optional === 'quantifier' && g.quantifier !== null && /^\?\??$/.test(g.quantifier.text)) {
      const open = pattern.slice(g.start, g.bodyStart);
      const body = pattern.slice(g.bodyStart, g.end - 1);
      why = `${groupText} is optional in the regex; write ${open}(?:${body})${g.quantifier.text}) so it always participates ('' when absent)`;
    } else if (g.optional === 'quantifier') {
      why = `${groupText} may be repeated zero times`;
    } else {
      why = `${groupText} sits in an alternative (|) or an optional part of the regex`;
    }
    optional.set(g.name, why);
  }
  let nameGroupHint: ((key: string) => string) | null = null;
  const firstPlain = info.names.length === 0 ? info.groups?.find((g) => g.name === null) : undefined;
  if (firstPlain !== undefined) {
    nameGroupHint = (key) =>
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
        ? `${pattern.slice(0, firstPlain.start)}(?P<${key}>${pattern.slice(firstPlain.bodyStart)}`
        : `(?P<name>…)`;
  }
  return { names: info.names, optional, nameGroupHint };
}
