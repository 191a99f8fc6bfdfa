/**
 * Scrubbing free text (a log, a Markdown matrix, a JSON string leaf): the original's path and IP rewrites
 * (ROCm/aorta `probe/redaction.py`, upstream-probe-runs.md §1.3, its newest regexes, verbatim) and, beyond it (its
 * open issue #420), credentials — each replaced by a numbered placeholder, `<PATH:N>`, `<IPV4:N>`, `<IPV6:N>`,
 * `<SECRET:N>`, `<REDACTED:N>`, N counted from 0 per kind in order of first sight across one file (one `TextScrubber`
 * per file, as the original's newest shared `_PathIndex`/`_IpIndex`). No reverse map is kept anywhere: the indexes
 * live in memory for one file and are dropped with the scrubber.
 *
 * Order per window: secrets (so a token inside a URL or a path is never half-rewritten as a path first), the
 * recipe's `extra_patterns`, paths, bracketed IPv6, unbracketed IPv6, IPv4 (the original's IP order). An IP
 * candidate is rewritten only when Python's `ipaddress` accepts it (ip.ts): `12:30` survives.
 *
 * Speed without a second meaning. Each pass means exactly `text.replace(pass.re, …)` with its global regex `re`
 * (the reference the tests hold it to). A global regex tries every position left to right and, after a match,
 * resumes at the match's end. A pass here does the same over fewer positions: its `starts` cursor yields, in
 * increasing order, a superset of the positions where `re` can match (found with `indexOf` or a literal finder,
 * which run at gigabytes a second), and the sticky copy of `re` is tried at each one, in the whole text, so
 * look-behinds and look-aheads see what they would have seen. Invariant for every cursor: **no position where `re`
 * matches is ever skipped** — each cursor states why below. Resuming after a match at its end, as `replace` does,
 * keeps the matches and their order identical; the counts and the placeholder numbering follow.
 *
 * The fixed regexes run on V8's engine: each is linear on its own (no nested quantifier over one character class;
 * the path regex's components are delimited by `/`, the IPv6 groups by `:`), and each cursor visits a character a
 * bounded number of times, checked by the original's DoS case, ten million `/` (test/redact-text.test.ts). The
 * recipe's `extra_patterns` are untrusted and run on RE2.
 */
import { compileRegex, matchAll, type RegexHandle } from '../regex/index.js';
import { ipv4Valid, ipv6Valid } from './ip.js';
import { linePieces, pieceText, type WindowPiece } from './windows.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

/** Yields candidate match starts ≥ `from`, ascending; -1 when there are no more. One cursor per pass per text. */
type Cursor = (from: number) => number;
type Starts = (text: string) => Cursor;

// The original's newest regexes (upstream-probe-runs.md §1.3), as JavaScript.
const PATH_RE = /(?<![A-Za-z0-9_.-])\/(?:[A-Za-z0-9_.-]+\/)+[A-Za-z0-9_.-]+/g;
// Python's str `\b` and `\d` are Unicode-aware: `\b` as the lookarounds on `[\p{L}\p{N}_]` (str.isalnum() or
// '_'), `\d` as `\p{Nd}` (a non-ASCII digit then fails `ipaddress`, as in the original).
const IPV4_RE =
  /(?<![\p{L}\p{N}_])(?:(?:25[0-5]|2[0-4]\p{Nd}|[01]?\p{Nd}\p{Nd}?)\.){3}(?:25[0-5]|2[0-4]\p{Nd}|[01]?\p{Nd}\p{Nd}?)(?![\p{L}\p{N}_])/gu;
const IPV6_BRACKETED_RE = /\[([0-9a-fA-F:.]+)\]/g;
const IPV6_UNBRACKETED_RE =
  /(?<![0-9a-fA-F:.])(?:(?:[0-9a-fA-F]{0,4}:)+[0-9a-fA-F]{0,4}|::(?:[0-9a-fA-F]{0,4}:){0,6}[0-9a-fA-F]{0,4}|[0-9a-fA-F]{0,4}::(?:[0-9a-fA-F]{0,4}:){0,6}[0-9a-fA-F]{0,4})(?![0-9a-fA-F:.])/g;

const isPathChar = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) ||
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x30 && c <= 0x39) ||
  c === 0x5f ||
  c === 0x2e ||
  c === 0x2d;
const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const isV6Char = (c: number): boolean => isHex(c) || c === 0x3a || c === 0x2e;
const isAsciiDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isWordChar = (c: number): boolean => isPathChar(c) && c !== 0x2e && c !== 0x2d; // JS `\w` (no /u)

/** Positions of any of `literals` (case-sensitive): for a regex whose every match begins with one of them. */
function atLiterals(...literals: string[]): Starts {
  return (text) => {
    const next = literals.map(() => -2);
    return (from) => {
      let best = -1;
      for (let i = 0; i < literals.length; i++) {
        if (next[i] !== -1 && next[i]! < from) next[i] = text.indexOf(literals[i]!, from);
        const p = next[i]!;
        if (p !== -1 && (best === -1 || p < best)) best = p;
      }
      return best;
    };
  };
}

/** Where a match of `finder` (global, the rule's flags) begins: for a rule whose every match begins with one. */
function atFinder(finder: RegExp): Starts {
  return (text) => {
    const re = new RegExp(finder.source, finder.flags);
    return (from) => {
      re.lastIndex = from;
      return re.exec(text)?.index ?? -1;
    };
  };
}

const KEYWORDS = /password|passwd|pwd|passphrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key/gi;
/**
 * The secret assignment begins where a run of `[A-Za-z0-9_.-]` holding a keyword begins (inside the run its
 * look-behind fails; the keywords are made of that class), and only when what follows the run is `["']?`, inline
 * space, `=` or `:`. The cursor finds a keyword (`test`, no match object), takes its whole run once, and yields
 * the run's start or passes the whole run over (linear on `tokentoken…`; `tokens/s` costs no regex run).
 */
const atKeyRuns: Starts = (text) => {
  const re = new RegExp(KEYWORDS.source, KEYWORDS.flags);
  return (from) => {
    re.lastIndex = from;
    while (re.test(text)) {
      let s = re.lastIndex - 1; // inside the run
      while (s > 0 && isPathChar(text.charCodeAt(s - 1))) s--;
      let e = re.lastIndex;
      while (e < text.length && isPathChar(text.charCodeAt(e))) e++;
      if (s >= from && assignsAfter(text, e)) return s;
      re.lastIndex = e;
    }
    return -1;
  };
};

const INLINE_SPACE = /[^\S\r\n]/;
/**
 * Whether the key run ending at `j` is followed by what the rule needs next: `["']?[^\S\r\n]*[=:]`. A run that is
 * not (`tokens/s`, `secretary`) cannot start a match, and is passed over without running the regex.
 */
function assignsAfter(text: string, j: number): boolean {
  let c = text.charCodeAt(j);
  if (c === 0x22 || c === 0x27) c = text.charCodeAt(++j);
  while (c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c || (c > 0x7f && INLINE_SPACE.test(text[j]!)))
    c = text.charCodeAt(++j);
  return c === 0x3d || c === 0x3a;
}

/**
 * URL userinfo, `\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/…`: a match ends its scheme at a `://` and its scheme lies in the
 * run of `[a-zA-Z0-9+.-]` just before it (no `:` inside). Every start in that run shares the rest of the match, so
 * the leftmost one the regex allows (a letter with `\b` before it) matches iff any does; the cursor yields that one,
 * then moves on to the next `://`.
 */
const SCHEME_CHAR = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) ||
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x30 && c <= 0x39) ||
  c === 0x2b ||
  c === 0x2e ||
  c === 0x2d;
const atSchemes: Starts = (text) => {
  let sep = -1; // the `://` the last candidate came from
  return (from) => {
    let i = sep !== -1 && from <= sep ? sep + 1 : from;
    for (;;) {
      const c = text.indexOf('://', i);
      if (c === -1) return -1;
      let r = c;
      while (r > 0 && SCHEME_CHAR(text.charCodeAt(r - 1))) r--;
      for (let s = Math.max(r, from); s < c; s++) {
        const ch = text.charCodeAt(s);
        const letter = (ch >= 0x61 && ch <= 0x7a) || (ch >= 0x41 && ch <= 0x5a);
        if (letter && (s === 0 || !isWordChar(text.charCodeAt(s - 1)))) {
          sep = c;
          return s;
        }
      }
      i = c + 1;
    }
  };
};

/**
 * A private key block: a header line, then lazily up to the first footer. A header that is well formed but has no
 * footer after it cost a scan to the end of the text, and so would every later header: the first such failure
 * ends the pass (no later header can find a footer either), keeping the pass linear.
 */
const KEY_HEADER = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/y;
const atKeyHeaders: Starts = (text) => {
  const headers = atLiterals('-----BEGIN ')(text);
  let lastHeader = -1;
  return (from) => {
    // Called again at lastHeader + 1 only after the block starting there failed to match.
    if (lastHeader !== -1 && from === lastHeader + 1) {
      KEY_HEADER.lastIndex = lastHeader;
      if (KEY_HEADER.test(text)) return -1;
    }
    lastHeader = headers(from);
    return lastHeader;
  };
};

/**
 * Credentials in free text, each a regex whose `secret` group (or whole match) is replaced; what is kept around it
 * (a key name, `Bearer `, a URL's scheme and host) stays readable. The false-positive policy: a rule needs a
 * shape a credential has and ordinary log text does not (a vendor prefix and length, a PEM armour line, a key
 * named like a secret followed by `=` or `:`), so a hash, a UUID or a hex address is left alone; docs/redaction.md
 * lists them. `literals`: every match holds one of them (a window without any skips the rule); `starts`: where a
 * match can begin (see the header), by default where a literal is.
 */
export interface SecretRule {
  readonly name: string;
  readonly re: RegExp;
  readonly literals?: readonly string[];
  readonly starts?: Starts;
  /**
   * The rule whose cursor has a position wherever this one matches: a text where that cursor has none holds no
   * match of this rule either, so it is not looked at for this one (`TextScrubber.scrubbedPieces`' first look).
   */
  readonly within?: string;
}
export const SECRET_RULES: readonly SecretRule[] = [
  {
    name: 'private key block',
    re: /(?<secret>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)/g,
    literals: ['-----BEGIN '],
    starts: atKeyHeaders,
  },
  {
    name: 'HTTP authorization',
    re: /\b(?:Bearer|Basic|Token)[^\S\r\n]+(?<secret>[A-Za-z0-9._~+/=-]{8,})/g,
    literals: ['Bearer', 'Basic', 'Token'],
  },
  {
    name: 'URL userinfo',
    // No `<`/`>`: a placeholder (`<SECRET:0>`) has the shape of `user:password` and must not be taken again.
    re: /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/(?<secret>[^\s/@:<>]+:[^\s/@<>]+)@/g,
    literals: ['://'],
    starts: atSchemes,
  },
  {
    name: 'AWS access key id',
    re: /\b(?<secret>(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16})\b/g,
    literals: ['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA'],
  },
  {
    name: 'AWS secret access key',
    re: /\baws_secret_access_key\b["']?[^\S\r\n]*[=:][^\S\r\n]*["']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    starts: atFinder(/aws_secret_access_key/gi),
    // Its key holds the keyword `secret` and ends a run of `[A-Za-z0-9_.-]` (what follows it, `["']?`, a space,
    // `=` or `:`, is outside the class) that `["']?`, inline space and `=` or `:` follow: where it matches, the
    // secret assignment's cursor yields the start of that run.
    within: 'secret assignment',
  },
  {
    name: 'GitHub token',
    re: /\b(?<secret>gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
    literals: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
  },
  { name: 'GitLab token', re: /\b(?<secret>glpat-[A-Za-z0-9_-]{20,})/g, literals: ['glpat-'] },
  {
    name: 'Slack token',
    re: /\b(?<secret>xox[abposr]-[A-Za-z0-9-]{10,})/g,
    literals: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-'],
  },
  { name: 'Hugging Face token', re: /\b(?<secret>hf_[A-Za-z0-9]{30,})\b/g, literals: ['hf_'] },
  { name: 'OpenAI-style key', re: /\b(?<secret>sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,})/g, literals: ['sk-'] },
  {
    name: 'JWT',
    re: /\b(?<secret>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,})/g,
    literals: ['eyJ'],
  },
  {
    name: 'secret assignment',
    // Not inside a placeholder already written (`<SECRET:0>` names a secret too), and the value is no placeholder.
    // A key is a run of `[A-Za-z0-9_.-]` holding a keyword (the look-ahead), matched once: `[…]*keyword[…]*`
    // would backtrack over every keyword of a long run, quadratic on `tokentoken…`; a match is the same either way,
    // since what follows the key (`"`, `'`, a space, `=`, `:`) is outside the run.
    re: /(?<![<A-Za-z0-9_.-])(?=[A-Za-z0-9_.-]*(?:password|passwd|pwd|passphrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key))[A-Za-z0-9_.-]+["']?[^\S\r\n]*[=:][^\S\r\n]*["']?(?<secret>[^\s"',;&<>]{4,})/gi,
    starts: atKeyRuns,
  },
];

/** A path begins at a `/` not preceded by a path character and followed by one. */
const pathStarts: Starts = (text) => (from) => {
  let i = from;
  for (;;) {
    const p = text.indexOf('/', i);
    if (p === -1) return -1;
    if ((p === 0 || !isPathChar(text.charCodeAt(p - 1))) && isPathChar(text.charCodeAt(p + 1))) return p;
    i = p + 1;
  }
};

/**
 * Unbracketed IPv6: the look-behind and look-ahead both exclude `[0-9a-fA-F:.]` and the body only consumes
 * `[0-9a-fA-F:]`, so a match is a whole maximal run of `[0-9a-fA-F:.]` (it can neither begin nor end inside one)
 * that holds a `:` and no `.`. The cursor yields the start of each such run once and jumps over the rest of it.
 * (This pass, and the bracketed one, only rewrite what `ipaddress` accepts; a run it would reject may be passed
 * over, as rewriting nothing and being passed over leave the same text.)
 */
const ipv6Starts: Starts = (text) => {
  let runEnd = -1;
  return (from) => {
    let i = from;
    for (;;) {
      const c = text.indexOf(':', Math.max(i, runEnd));
      if (c === -1) return -1;
      let s = c;
      while (s > 0 && isV6Char(text.charCodeAt(s - 1))) s--;
      let e = c + 1;
      let dot = false;
      let colons = 1;
      while (e < text.length) {
        const ch = text.charCodeAt(e);
        if (!isV6Char(ch)) break;
        if (ch === 0x2e) dot = true;
        else if (ch === 0x3a) colons++;
        e++;
      }
      for (let k = s; k < c && !dot; k++) if (text.charCodeAt(k) === 0x2e) dot = true;
      runEnd = e;
      // A run with one `:` or over 45 characters matches but is never an address (`ipaddress` wants three parts
      // and at most 45 characters): passing it over rewrites the same nothing.
      if (!dot && colons >= 2 && e - s <= 45 && s >= from) return s;
      i = e;
    }
  };
};

const ND = /^\p{Nd}$/u;
/** Code point ending just before `at`, and its length in UTF-16 units. */
function codePointBefore(text: string, at: number): [number, number] {
  const lo = text.charCodeAt(at - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && at >= 2) {
    const hi = text.charCodeAt(at - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return [(hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000, 2];
  }
  return [lo, 1];
}
const isNd = (cp: number): boolean => isAsciiDigit(cp) || (cp > 0x7f && ND.test(String.fromCodePoint(cp)));

/**
 * IPv4: a match's first octet is 1–3 `\p{Nd}` right before its first `.`, with no letter, number or `_` before
 * it (the look-behind). So it begins where the run of digits before some `.` begins, when that run is 1–3 long.
 * An ASCII shape check (`d{1,3}.d{1,3}.d{1,3}.d`) skips the decimals of a log before the regex is tried; any
 * non-ASCII character leaves the decision to the regex.
 */
function dottedShape(text: string, dot: number): boolean {
  let j = dot + 1;
  for (let octet = 1; octet <= 3; octet++) {
    let n = 0;
    while (n < 4 && j < text.length) {
      const c = text.charCodeAt(j);
      if (c > 0x7f) return true;
      if (!isAsciiDigit(c)) break;
      n++;
      j++;
    }
    if (n === 0 || n > 3) return false;
    if (octet < 3) {
      if (text.charCodeAt(j) !== 0x2e) return false;
      j++;
    }
  }
  return true;
}
const ipv4Starts: Starts = (text) => (from) => {
  let i = from;
  for (;;) {
    const d = text.indexOf('.', i);
    if (d === -1) return -1;
    let s = d;
    let digits = 0;
    while (digits < 4 && s > 0) {
      const c = text.charCodeAt(s - 1);
      if (isAsciiDigit(c)) {
        s--;
      } else {
        if (c < 0x80) break;
        const [cp, len] = codePointBefore(text, s);
        if (!isNd(cp)) break;
        s -= len;
      }
      digits++;
    }
    if (digits >= 1 && digits <= 3 && s >= from && dottedShape(text, d)) return s;
    i = d + 1;
  }
};

/**
 * A bracketed IPv6 begins at a `[`: its body is the run of `[0-9a-fA-F:.]` after it, and it matches when a `]` ends
 * that run. A body with fewer than two `:` matches but is never an address — passed over, it rewrites the same
 * nothing (and no other match can begin inside it: the body holds no `[`).
 */
const bracketStarts: Starts = (text) => (from) => {
  let i = from;
  for (;;) {
    const p = text.indexOf('[', i);
    if (p === -1) return -1;
    let e = p + 1;
    let colons = 0;
    for (let c = text.charCodeAt(e); isV6Char(c); c = text.charCodeAt(++e)) if (c === 0x3a) colons++;
    if (colons >= 2 && text.charCodeAt(e) === 0x5d) return p;
    i = Math.max(e, p + 1);
  }
};

export interface RedactionCounts {
  pathsRewritten: number;
  ipsRewritten: number;
  secretsRedacted: number;
  /** Matches of the recipe's `extra_patterns`. */
  patternsRedacted: number;
}

export interface TextScrubOptions {
  readonly scrubPaths: boolean;
  readonly scrubIpAddresses: boolean;
  readonly scrubSecrets: boolean;
  /** Python `re` sources, run on RE2 (untrusted). */
  readonly extraPatterns?: readonly string[];
}

/** `new TextScrubber`'s option keys (text/options.ts). */
export const TEXT_SCRUB_OPTION_KEYS = {
  scrubPaths: OPTION,
  scrubIpAddresses: OPTION,
  scrubSecrets: OPTION,
  extraPatterns: OPTION,
} satisfies OptionTable<TextScrubOptions>;

/**
 * Distinct values of one kind, numbered in order of first sight. A value is a match cut from a 32 KiB piece, and
 * V8 keeps a substring of 13 characters or more as a view of the text it was cut from: kept as a key for the whole
 * file, it would keep that piece alive (on a log of distinct paths, most of the log, copied by the collector again
 * and again: a third of the time of a 100 MiB bundle). So a new key is stored as a copy of its own — `'<' + value`
 * is a concatenation whose `slice` flattens it into a fresh string first. (A dictionary object's interned keys are
 * copies too, but interning each lookup cost a 100 MiB log 140–200 ms against the Map's ~100.)
 */
class Index {
  private readonly seen = new Map<string, string>();
  constructor(private readonly tag: string) {}
  placeholder(value: string): string {
    let p = this.seen.get(value);
    if (p === undefined) {
      p = `<${this.tag}:${this.seen.size}>`;
      this.seen.set(`<${value}`.slice(1), p);
    }
    return p;
  }
}

const sticky = (re: RegExp): RegExp => new RegExp(re.source, re.flags.replace('g', '') + 'y');

/**
 * `text.replace(re, …)` for a global `re` whose matches are never empty, trying only the cursor's positions (see
 * the header). `replace` returns the replacement, or `undefined` to keep the match as it is.
 */
function replaceAt(
  text: string,
  at: RegExp,
  starts: Starts,
  replace: (m: RegExpExecArray) => string | undefined,
): string {
  const next = starts(text);
  const parts: string[] = [];
  let copied = 0;
  let from = 0;
  while (from < text.length) {
    const p = next(from);
    if (p === -1) break;
    at.lastIndex = p;
    const m = at.exec(text);
    if (m === null) {
      from = p + 1;
      continue;
    }
    const end = p + m[0].length;
    const r = replace(m);
    if (r !== undefined) {
      parts.push(text.slice(copied, p), r);
      copied = end;
    }
    from = end > p ? end : p + 1;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

const SECRET_STICKY = SECRET_RULES.map((r) => sticky(r.re));
const SECRET_STARTS = SECRET_RULES.map((r) => r.starts ?? atLiterals(...r.literals!));
/** Every rule's literals in one regex: one scan of a window tells which rules can match in it at all. */
const SECRET_LITERALS = new RegExp(
  [...new Set(SECRET_RULES.flatMap((r) => r.literals ?? []))]
    .map((l) => l.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))
    .join('|'),
  'g',
);
/** The literals present in `text`: a replacement never creates one (a placeholder holds none of them, nor `<`/`>`). */
function literalsIn(text: string): Set<string> {
  const seen = new Set<string>();
  SECRET_LITERALS.lastIndex = 0;
  for (let m = SECRET_LITERALS.exec(text); m !== null; m = SECRET_LITERALS.exec(text)) {
    seen.add(m[0]);
    SECRET_LITERALS.lastIndex = m.index + 1; // literals may overlap
  }
  return seen;
}
/** The private key block's literal: where it is, the window is joined for rule 0. */
const KEY_BLOCK_LITERAL = SECRET_RULES[0]!.literals![0]!;
/**
 * The cursors of the rules without literals (but those `within` another): a piece is held when one of them has a
 * position in it.
 */
const UNLITERAL_STARTS = SECRET_RULES.filter((r) => r.literals === undefined && r.within === undefined).map(
  (r) => r.starts!,
);

/** The valid bracketed IPv6 addresses of `text`, in order (the bracketed pass's matches it would rewrite). */
function bracketedAddresses(text: string): string[] {
  const found: string[] = [];
  replaceAt(text, IPV6_BRACKETED_STICKY, bracketStarts, (m) => {
    if (ipv6Valid(m[1]!)) found.push(m[1]!);
    return undefined;
  });
  return found;
}

const PATH_STICKY = sticky(PATH_RE);
const IPV4_STICKY = sticky(IPV4_RE);
const IPV6_BRACKETED_STICKY = sticky(IPV6_BRACKETED_RE);
const IPV6_UNBRACKETED_STICKY = sticky(IPV6_UNBRACKETED_RE);

/** One file's scrubbing state: its placeholder numbering and its counts. */
export class TextScrubber {
  readonly counts: RedactionCounts = { pathsRewritten: 0, ipsRewritten: 0, secretsRedacted: 0, patternsRedacted: 0 };
  private readonly paths = new Index('PATH');
  private readonly v4 = new Index('IPV4');
  private readonly v6 = new Index('IPV6');
  private readonly secrets = new Index('SECRET');
  private readonly redacted = new Index('REDACTED');
  private readonly extra: RegexHandle[];

  constructor(private readonly options: TextScrubOptions) {
    checkOptions('new TextScrubber', options, TEXT_SCRUB_OPTION_KEYS);
    this.extra = (options.extraPatterns ?? []).map((p) => compileRegex(p, ''));
  }

  /** Releases the RE2 programs of `extra_patterns`. */
  dispose(): void {
    for (const r of this.extra) r.dispose();
  }

  /** One window of text (a whole line or more; a token is never split across two calls by `lineWindows`). */
  scrub(text: string): string {
    const pieces: string[] = [];
    this.scrubTo(text, (p) => pieces.push(p));
    return pieces.length === 1 ? pieces[0]! : pieces.join('');
  }

  /**
   * `scrub`, handing the result to `emit` in pieces that concatenate to it. Paths, IPs and every credential but a
   * private key block never span a line end (nor do their look-arounds see past one: a `\n` before a piece's start
   * is, to each of them, the start of the text), so their passes run over line-aligned pieces of the window, each
   * pass over all pieces in order — the placeholder numbering is the window's. Building one string per piece instead of one per window and pass
   * keeps the copies in memory the process already has: a fresh 10 MiB string costs page faults, not copying.
   */
  scrubTo(text: string, emit: (piece: string) => void): void {
    this.scrubWindow(linePieces(text), emit);
  }

  /**
   * One window given as line-aligned pieces (each ends at a line end, but the window's last): `WindowSplitter`'s
   * windows, never joined unless a private key block or the recipe's patterns need the whole window.
   */
  scrubWindow(window: readonly WindowPiece[], emit: (piece: string) => void): void {
    for (const piece of this.scrubbedPieces(window)) emit(piece);
  }

  /**
   * `scrubWindow`'s pieces, each yielded as soon as it is scrubbed: a caller that writes it before asking for the
   * next lets it die young. A piece may be given as a function that makes its text (a window held as bytes,
   * bundle/text-stream.ts): it is then made when a pass needs it and dropped after, so the window's text never
   * lives long on the heap — held strings survive the collector's young generation and are copied out of it, which
   * costs more than making them again.
   */
  *scrubbedPieces(window: readonly WindowPiece[]): Generator<string, void, undefined> {
    const secrets = this.options.scrubSecrets;
    const ips = this.options.scrubIpAddresses;
    let pieces: readonly WindowPiece[] = window;
    // held[k]: piece k's text as the credential passes left it, kept only where one of them may change it.
    let held: (string | undefined)[] = new Array<string | undefined>(pieces.length);
    let lits: (Set<string> | undefined)[] = new Array<Set<string> | undefined>(pieces.length);
    // bracketed[k]: the valid bracketed IPv6 addresses of piece k, in order, once its text is final.
    let bracketed: (string[] | undefined)[] = new Array<string[] | undefined>(pieces.length);
    let keyBlock = false;
    // The first look, each piece made once. A credential rule matches in a piece only where its cursor has a
    // position, and with literals only where one of them is (a replacement never makes one, nor a cursor position
    // a regex accepts): a piece where no rule has one is never changed by any, is not held, and its bracketed
    // addresses are final now. Rule by rule over the held pieces then numbers <SECRET:N> in the order the rules
    // run, as over all of them.
    for (let k = 0; k < pieces.length; k++) {
      const t = pieceText(pieces[k]!);
      if (secrets) {
        const found = literalsIn(t);
        if (found.has(KEY_BLOCK_LITERAL)) keyBlock = true;
        if (found.size > 0 || UNLITERAL_STARTS.some((starts) => starts(t)(0) !== -1)) {
          held[k] = t;
          lits[k] = found;
          continue;
        }
      }
      if (ips) bracketed[k] = bracketedAddresses(t);
    }
    // A private key block spans lines: it is the one rule run over the whole window (rule 0, before the others).
    if (keyBlock) {
      const joined = pieces.map((p, k) => held[k] ?? pieceText(p)).join('');
      const out = replaceAt(joined, SECRET_STICKY[0]!, SECRET_STARTS[0]!, this.secret);
      if (out !== joined) {
        pieces = held = linePieces(out);
        lits = held.map((t) => literalsIn(t!));
        bracketed = [];
      }
    }
    if (secrets)
      for (let i = 1; i < SECRET_RULES.length; i++) {
        const ruleLits = SECRET_RULES[i]!.literals;
        for (let k = 0; k < pieces.length; k++) {
          const t = held[k];
          if (t !== undefined && (ruleLits === undefined || ruleLits.some((l) => lits[k]!.has(l))))
            held[k] = replaceAt(t, SECRET_STICKY[i]!, SECRET_STARTS[i]!, this.secret);
        }
      }
    if (this.extra.length > 0) {
      // The recipe's patterns may span lines: over the window.
      let out = pieces.map((p, k) => held[k] ?? pieceText(p)).join('');
      for (const re of this.extra) out = this.replaceRe2(re, out);
      pieces = held = linePieces(out);
      bracketed = [];
    }
    // Paths and IPs piece by piece (each piece through every pass, then handed on: short-lived strings). The
    // passes do not touch each other's numbering but IPv6's: the original numbers every bracketed address of a
    // window before any unbracketed one, so the bracketed ones are registered first, in window order. (A path's
    // characters hold no `[`, `]` or `:`; rewriting paths first leaves the bracketed matches as they were.)
    // A piece without a valid bracketed address has none to rewrite either: its rewrite pass is skipped (the paths
    // pass before it neither adds nor removes a bracketed match, as said above).
    if (ips)
      for (let k = 0; k < pieces.length; k++) {
        // Undefined only where the text is held (a piece that is not was looked at first).
        const found = (bracketed[k] ??= bracketedAddresses(held[k] ?? pieceText(pieces[k]!)));
        for (const address of found) this.v6.placeholder(address);
      }
    for (let k = 0; k < pieces.length; k++) {
      let piece = held[k] ?? pieceText(pieces[k]!);
      held[k] = undefined;
      if (this.options.scrubPaths) piece = replaceAt(piece, PATH_STICKY, pathStarts, this.path);
      if (this.options.scrubIpAddresses) {
        if (bracketed[k]!.length > 0) piece = replaceAt(piece, IPV6_BRACKETED_STICKY, bracketStarts, this.bracketed);
        piece = replaceAt(piece, IPV6_UNBRACKETED_STICKY, ipv6Starts, this.unbracketed);
        piece = replaceAt(piece, IPV4_STICKY, ipv4Starts, this.ipv4);
      }
      yield piece;
    }
  }

  private readonly secret = (m: RegExpExecArray): string => {
    const match = m[0];
    const value = m.groups?.secret ?? match;
    this.counts.secretsRedacted++;
    const at = match.lastIndexOf(value);
    return match.slice(0, at) + this.secrets.placeholder(value) + match.slice(at + value.length);
  };
  private readonly path = (m: RegExpExecArray): string => {
    this.counts.pathsRewritten++;
    return this.paths.placeholder(m[0]);
  };
  private readonly bracketed = (m: RegExpExecArray): string | undefined => {
    if (!ipv6Valid(m[1]!)) return undefined;
    this.counts.ipsRewritten++;
    return this.v6.placeholder(m[1]!);
  };
  private readonly unbracketed = (m: RegExpExecArray): string | undefined => {
    if (!ipv6Valid(m[0])) return undefined;
    this.counts.ipsRewritten++;
    return this.v6.placeholder(m[0]);
  };
  private readonly ipv4 = (m: RegExpExecArray): string | undefined => {
    if (!ipv4Valid(m[0])) return undefined;
    this.counts.ipsRewritten++;
    return this.v4.placeholder(m[0]);
  };

  private replaceRe2(re: RegexHandle, text: string): string {
    let out = '';
    let from = 0;
    for (const m of matchAll(re, text)) {
      // An empty match rewrites nothing.
      if (m.end === m.index) continue;
      out += text.slice(from, m.index) + this.redacted.placeholder(m.match);
      this.counts.patternsRedacted++;
      from = m.end;
    }
    return out + text.slice(from);
  }
}

/** The passes as plain global regexes, in order: the reference `TextScrubber` is tested against. */
export const REFERENCE_REGEXES = {
  secrets: SECRET_RULES.map((r) => r.re),
  path: PATH_RE,
  ipv6Bracketed: IPV6_BRACKETED_RE,
  ipv6Unbracketed: IPV6_UNBRACKETED_RE,
  ipv4: IPV4_RE,
} as const;
