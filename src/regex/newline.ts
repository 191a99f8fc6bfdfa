/**
 * Conservative test: can a (translated, RE2-syntax) pattern ever match a "\n" character?
 *
 * If it cannot, every match lies inside one line, so the match functions may hand re2-wasm line-aligned windows
 * instead of the whole remaining subject (see match.ts), which removes both the per-match full copy and the
 * total-size limit. Returns true whenever unsure.
 */

const SAFE_PROPS = new Set([
  'L', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'M', 'Mn', 'Mc', 'Me', 'N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi',
  'Pf', 'Po', 'S', 'Sm', 'Sc', 'Sk', 'So', 'Latin', 'Greek', 'Cyrillic', 'Han', 'Hiragana', 'Katakana', 'Hangul',
  'Arabic', 'Hebrew', 'Thai', 'Devanagari',
]);
const SAFE_POSIX = new Set(['alpha', 'digit', 'alnum', 'upper', 'lower', 'punct', 'graph', 'print', 'word', 'xdigit', 'blank']);
const NL_POSIX = new Set(['space', 'cntrl', 'ascii']);

type Esc =
  | { len: number; kind: 'char'; cp: number }
  | { len: number; kind: 'nl-set' } // a class that contains \n (\s \D \W)
  | { len: number; kind: 'no-nl' } // a class or assertion that cannot match \n
  | { len: number; kind: 'unknown' };

function readEscape(p: string, i: number): Esc {
  const d = p[i + 1];
  if (d === undefined) return { len: 1, kind: 'unknown' };
  switch (d) {
    case 'd': case 'w': case 'S': case 'b': case 'B': case 'A': case 'z':
      return { len: 2, kind: 'no-nl' };
    case 's': case 'D': case 'W':
      return { len: 2, kind: 'nl-set' };
    case 'n': return { len: 2, kind: 'char', cp: 10 };
    case 't': return { len: 2, kind: 'char', cp: 9 };
    case 'r': return { len: 2, kind: 'char', cp: 13 };
    case 'f': return { len: 2, kind: 'char', cp: 12 };
    case 'v': return { len: 2, kind: 'char', cp: 11 };
    case 'a': return { len: 2, kind: 'char', cp: 7 };
    case 'x': {
      const braced = /^\\x\{([0-9A-Fa-f]{1,8})\}/.exec(p.slice(i, i + 13));
      if (braced) return { len: braced[0].length, kind: 'char', cp: parseInt(braced[1] as string, 16) };
      const two = /^\\x([0-9A-Fa-f]{2})/.exec(p.slice(i, i + 4));
      if (two) return { len: 4, kind: 'char', cp: parseInt(two[1] as string, 16) };
      return { len: 2, kind: 'unknown' };
    }
    case 'p': {
      const m = /^\\p(?:\{(\^?)([A-Za-z_]+)\}|([A-Za-z]))/.exec(p.slice(i, i + 40));
      if (!m) return { len: 2, kind: 'unknown' };
      const name = (m[2] ?? m[3]) as string;
      return { len: m[0].length, kind: m[1] === '' || m[1] === undefined ? (SAFE_PROPS.has(name) ? 'no-nl' : 'unknown') : 'unknown' };
    }
    case 'Q': {
      const end = p.indexOf('\\E', i + 2);
      const body = end < 0 ? p.slice(i + 2) : p.slice(i + 2, end);
      return { len: end < 0 ? p.length - i : end + 2 - i, kind: body.includes('\n') ? 'nl-set' : 'no-nl' };
    }
    default:
      if (d >= '0' && d <= '7') {
        const m = /^\\([0-7]{1,3})/.exec(p.slice(i, i + 4)) as RegExpExecArray;
        return { len: m[0].length, kind: 'char', cp: parseInt(m[1] as string, 8) };
      }
      if (/[A-Za-z0-9]/.test(d)) return { len: 2, kind: 'unknown' };
      return { len: 2, kind: 'char', cp: d.codePointAt(0) as number };
  }
}

/** Parses the set starting at p[i] === '['; returns its length and whether it can match "\n". */
function readClass(p: string, i: number): { len: number; mayNl: boolean } {
  let j = i + 1;
  const negated = p[j] === '^';
  if (negated) j++;
  let hasNl = false; // definitely contains \n
  let mayNl = false; // might contain \n
  let first = true;
  const item = (): { lo: number | null; kind: 'char' | 'set' } => {
    // returns a char code point (possible range endpoint) or marks set membership flags
    const c = p[j] as string;
    if (c === '[' && p[j + 1] === ':') {
      const end = p.indexOf(':]', j + 2);
      if (end >= 0) {
        const name = p.slice(j + 2, end);
        j = end + 2;
        if (NL_POSIX.has(name)) hasNl = mayNl = true;
        else if (!SAFE_POSIX.has(name)) mayNl = true;
        return { lo: null, kind: 'set' };
      }
    }
    if (c === '\\') {
      const e = readEscape(p, j);
      j += e.len;
      if (e.kind === 'char') return { lo: e.cp, kind: 'char' };
      if (e.kind === 'nl-set') hasNl = mayNl = true;
      else if (e.kind === 'unknown') mayNl = true;
      return { lo: null, kind: 'set' };
    }
    const cp = p.codePointAt(j) as number;
    j += cp > 0xffff ? 2 : 1;
    return { lo: cp, kind: 'char' };
  };
  while (j < p.length && (p[j] !== ']' || first)) {
    first = false;
    const a = item();
    if (a.kind === 'char' && p[j] === '-' && p[j + 1] !== ']' && j + 1 < p.length) {
      j++;
      const b = item();
      if (b.kind !== 'char' || a.lo === null || b.lo === null) {
        mayNl = true;
      } else if (a.lo <= 10 && 10 <= b.lo) {
        hasNl = mayNl = true;
      }
      continue;
    }
    if (a.kind === 'char' && a.lo === 10) hasNl = mayNl = true;
  }
  const len = j + 1 - i;
  return { len, mayNl: negated ? !hasNl : mayNl };
}

export function mayMatchNewline(p: string, dotAll: boolean): boolean {
  // Any inline flag group that mentions s makes "." unsafe (conservative: also for (?-s)).
  const dotUnsafe = dotAll || /\(\?[imsU-]*s[imsU-]*[:)]/.test(p);
  for (let i = 0; i < p.length; ) {
    const c = p[i] as string;
    if (c === '\n') return true;
    if (c === '\\') {
      const e = readEscape(p, i);
      if (e.kind === 'nl-set' || e.kind === 'unknown' || (e.kind === 'char' && e.cp === 10)) return true;
      i += e.len;
      continue;
    }
    if (c === '[') {
      const k = readClass(p, i);
      if (k.mayNl) return true;
      i += k.len;
      continue;
    }
    if (c === '.' && dotUnsafe) return true;
    i++;
  }
  return false;
}
