/**
 * The literal prefilter: from a pattern (RE2 syntax, as `translatePythonRegex` produces it) derive
 * a set of strings at least one of which every match must contain. A window of log text that
 * contains none of them cannot match, so the scanner may skip it without calling RE2. Patterns
 * for which no such set can be proven get `null` and always run.
 *
 * Soundness is what matters (a wrong set would lose matches); a weak set only costs speed. So
 * the analysis is conservative: anything it does not fully understand yields "no guarantee".
 */

export interface LiteralSet {
  /** Non-empty strings; every match contains at least one of them. */
  readonly literals: readonly string[];
  /** Compare case-insensitively (the pattern has `i` somewhere, or was compiled with it). */
  readonly caseInsensitive: boolean;
}

/** Larger alternations are not worth a prefilter (and their checks cost more than RE2's). */
const MAX_LITERALS = 16;

type Req = readonly string[] | null;

interface Parsed {
  /** Required literals of the whole node, or null. */
  req: Req;
  /** When the node is exactly one literal character (unquantified), that character. */
  char: string | null;
}

class LiteralParser {
  private i = 0;
  /** Set when an `i` flag appears anywhere: all literals are then compared case-insensitively. */
  sawCaseInsensitive = false;

  constructor(private readonly p: string) {}

  /** alternation: concat ('|' concat)* */
  alternation(): Req {
    const branches: Req[] = [this.concat()];
    while (this.p[this.i] === '|') {
      this.i++;
      branches.push(this.concat());
    }
    if (branches.length === 1) return branches[0]!;
    const all = new Set<string>();
    for (const b of branches) {
      if (b === null) return null;
      for (const s of b) all.add(s);
    }
    return all.size <= MAX_LITERALS ? [...all] : null;
  }

  /** concat: (atom quantifier?)* — runs of plain characters join into longer literals. */
  private concat(): Req {
    let best: Req = null;
    let run = '';
    const consider = (req: Req): void => {
      if (req !== null && score(req) > (best === null ? -1 : score(best))) best = req;
    };
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const atom = this.atom();
      const q = this.quantifier();
      if (q === 'one' && atom.char !== null) {
        run += atom.char;
        continue;
      }
      if (run !== '') consider([run]);
      run = '';
      // A quantifier with a minimum of one keeps the atom's guarantee; zero loses it.
      if (q === 'one' || q === 'at-least-one') consider(atom.req);
      // A repeated single character still guarantees that character.
    }
    if (run !== '') consider([run]);
    return best;
  }

  /** Returns 'one' (no quantifier), 'at-least-one' or 'optional' (minimum 0). */
  private quantifier(): 'one' | 'at-least-one' | 'optional' {
    const c = this.p[this.i];
    let kind: 'one' | 'at-least-one' | 'optional' = 'one';
    if (c === '*' || c === '?') {
      kind = 'optional';
      this.i++;
    } else if (c === '+') {
      kind = 'at-least-one';
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d*)(,(\d*))?\}/.exec(this.p.slice(this.i));
      if (m === null || m[1] === '') return 'one'; // RE2 reads a malformed brace as a literal '{'
      this.i += m[0].length;
      kind = Number(m[1]) >= 1 ? 'at-least-one' : 'optional';
    } else {
      return 'one';
    }
    if (this.p[this.i] === '?' || this.p[this.i] === '+') this.i++; // lazy (RE2 has no possessive)
    return kind;
  }

  private atom(): Parsed {
    const c = this.p[this.i]!;
    if (c === '(') return this.group();
    if (c === '[') {
      this.skipClass();
      return { req: null, char: null };
    }
    if (c === '\\') return this.escape();
    this.i++;
    if (c === '.' || c === '^' || c === '$') return { req: null, char: null };
    // A plain character, possibly astral (two UTF-16 units).
    const code = c.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdbff && this.i < this.p.length) {
      const pair = c + this.p[this.i]!;
      this.i++;
      return { req: [pair], char: pair };
    }
    return { req: [c], char: c };
  }

  private group(): Parsed {
    this.i++; // (
    if (this.p[this.i] === '?') {
      const rest = this.p.slice(this.i);
      const named = /^\?P<[A-Za-z_][A-Za-z0-9_]*>/.exec(rest);
      const flags = /^\?([imsU-]*)(:|\))/.exec(rest);
      if (named !== null) {
        this.i += named[0].length;
      } else if (flags !== null) {
        if (flags[1]!.includes('i')) this.sawCaseInsensitive = true;
        this.i += flags[0].length;
        // `(?i)` alone sets flags for the rest of the group; it matches nothing itself.
        if (flags[2] === ')') return { req: null, char: null };
      } else {
        throw new Unsupported();
      }
    }
    const req = this.alternation();
    if (this.p[this.i] !== ')') throw new Unsupported();
    this.i++;
    return { req, char: null };
  }

  private escape(): Parsed {
    this.i++; // backslash
    const c = this.p[this.i];
    if (c === undefined) throw new Unsupported();
    this.i++;
    // Classes, anchors and Unicode properties guarantee no literal.
    if ('dDwWsSbBAzC'.includes(c)) return { req: null, char: null };
    if (c === 'p' || c === 'P') {
      if (this.p[this.i] === '{') this.skipTo('}');
      else this.i++;
      return { req: null, char: null };
    }
    if (c === 'x') {
      let hex: string;
      if (this.p[this.i] === '{') {
        const end = this.p.indexOf('}', this.i);
        if (end < 0) throw new Unsupported();
        hex = this.p.slice(this.i + 1, end);
        this.i = end + 1;
      } else {
        hex = this.p.slice(this.i, this.i + 2);
        this.i += 2;
      }
      if (!/^[0-9A-Fa-f]+$/.test(hex)) throw new Unsupported();
      const ch = String.fromCodePoint(parseInt(hex, 16));
      return { req: [ch], char: ch };
    }
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', a: '\x07' };
    if (simple[c] !== undefined) return { req: [simple[c]!], char: simple[c]! };
    if (/[0-9]/.test(c)) throw new Unsupported(); // octal: rare, not worth modelling
    if (/[A-Za-z]/.test(c)) throw new Unsupported(); // an escape we do not model
    return { req: [c], char: c }; // an escaped punctuation character is itself
  }

  /** Skips a character class, `]` first and `[:name:]` included. */
  private skipClass(): void {
    this.i++; // [
    if (this.p[this.i] === '^') this.i++;
    if (this.p[this.i] === ']') this.i++;
    while (this.i < this.p.length && this.p[this.i] !== ']') {
      if (this.p[this.i] === '\\') this.i += 2;
      else if (this.p.startsWith('[:', this.i)) {
        const end = this.p.indexOf(':]', this.i + 2);
        this.i = end < 0 ? this.i + 1 : end + 2;
      } else this.i++;
    }
    if (this.i >= this.p.length) throw new Unsupported();
    this.i++;
  }

  private skipTo(ch: string): void {
    const end = this.p.indexOf(ch, this.i);
    if (end < 0) throw new Unsupported();
    this.i = end + 1;
  }

  atEnd(): boolean {
    return this.i >= this.p.length;
  }
}

class Unsupported extends Error {}

/** How selective a set is: its shortest literal's length (longer is rarer in a log). */
function score(req: readonly string[]): number {
  let min = Infinity;
  for (const s of req) min = Math.min(min, s.length);
  return min;
}

/**
 * The required literals of a pattern in RE2 syntax, or null when none can be proven.
 * `flags` are the compile flags (an `i` makes the set case-insensitive).
 */
export function requiredLiterals(re2Pattern: string, flags = ''): LiteralSet | null {
  try {
    const parser = new LiteralParser(re2Pattern);
    const req = parser.alternation();
    if (!parser.atEnd() || req === null || req.length === 0 || req.some((s) => s.length === 0)) return null;
    const caseInsensitive = flags.includes('i') || parser.sawCaseInsensitive;
    if (caseInsensitive && req.some((s) => !foldsSafely(s))) return null;
    return { literals: caseInsensitive ? req.map((s) => s.toLowerCase()) : [...req], caseInsensitive };
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

/**
 * Case-insensitive literals are compared against `foldWindow(window)`. That finds every RE2 case
 * match for ASCII literals: RE2's simple case folding adds only two non-ASCII partners to ASCII
 * letters, the Kelvin sign (which JS lowercases to 'k') and 'ſ' U+017F (which `foldWindow` maps
 * to 's'). Non-ASCII literals get no prefilter.
 */
function foldsSafely(s: string): boolean {
  return /^[\x00-\x7f]*$/.test(s);
}

/** The window as case-insensitive literals are compared with it (same length in UTF-16 units). */
export function foldWindow(window: string): string {
  return window.toLowerCase().replace(/\u017f/g, 's');
}

/**
 * Whether `window` (from UTF-16 offset `from`) contains one of the set's literals: if not, no
 * match can lie there. `lowered` may pass `foldWindow(window)` when the caller already has it.
 * Lowercasing keeps UTF-16 offsets only for most text, so a case-insensitive check looks at the
 * whole window (a superset: never a missed match).
 */
export function windowMayMatch(set: LiteralSet, window: string, from = 0, lowered?: string): boolean {
  if (set.caseInsensitive) {
    const text = lowered ?? foldWindow(window);
    for (const lit of set.literals) if (text.includes(lit)) return true;
    return false;
  }
  for (const lit of set.literals) if (window.indexOf(lit, from) !== -1) return true;
  return false;
}
