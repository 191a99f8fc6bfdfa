/**
 * Python's `fnmatch.fnmatchcase(name, pat)` (3.11, `fnmatch.translate`): shell globs, case-sensitive, over code
 * points. `*` any run, `?` one code point, `[seq]` / `[!seq]` a set with `a-z` ranges (a reversed range is dropped,
 * as Python drops it), a `[` with no closing `]` literal. Used for `redaction.scrub_env_keys`, where the original
 * filters environment keys with it.
 */
const cache = new Map<string, RegExp>();

const SPECIAL = /[\\^$.*+?()[\]{}|/-]/g;

function setBody(stuff: string): string | null {
  // Python splits the set at range hyphens, drops reversed ranges, and escapes backslashes and hyphens itself.
  const negate = stuff.startsWith('!');
  const body = negate ? stuff.slice(1) : stuff;
  const cps = [...body];
  let out = '';
  let any = false;
  for (let i = 0; i < cps.length; i++) {
    const a = cps[i]!;
    if (cps[i + 1] === '-' && i + 2 < cps.length) {
      const b = cps[i + 2]!;
      i += 2;
      if (a.codePointAt(0)! > b.codePointAt(0)!) continue;
      out += `${a.replace(SPECIAL, '\\$&')}-${b.replace(SPECIAL, '\\$&')}`;
    } else out += a.replace(SPECIAL, '\\$&');
    any = true;
  }
  if (!any) return negate ? '[\\s\\S]' : null;
  return `[${negate ? '^' : ''}${out}]`;
}

function translate(pat: string): string {
  const p = [...pat];
  let out = '';
  let i = 0;
  while (i < p.length) {
    const c = p[i++]!;
    if (c === '*') {
      if (!out.endsWith('[\\s\\S]*')) out += '[\\s\\S]*';
    } else if (c === '?') out += '[\\s\\S]';
    else if (c === '[') {
      let j = i;
      if (j < p.length && p[j] === '!') j++;
      if (j < p.length && p[j] === ']') j++;
      while (j < p.length && p[j] !== ']') j++;
      if (j >= p.length) out += '\\[';
      else {
        const set = setBody(p.slice(i, j).join(''));
        i = j + 1;
        out += set ?? '(?!)';
      }
    } else out += c.replace(SPECIAL, '\\$&');
  }
  return `^(?:${out})$`;
}

export function fnmatchcase(name: string, pat: string): boolean {
  let re = cache.get(pat);
  if (re === undefined) {
    re = new RegExp(translate(pat), 'u');
    if (cache.size > 1000) cache.clear();
    cache.set(pat, re);
  }
  return re.test(name);
}
