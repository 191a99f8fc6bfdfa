#!/usr/bin/env python3
"""Differential regex corpus: Python's `re` (3.11, str patterns) is the oracle.

Generates patterns from pieces of Python syntax (and near-misses of it) and texts rich in ASCII,
Latin-1, astral, whitespace and case-folding characters, and records what Python does with each:
whether the pattern compiles (and Python's message if not) and, per text, every match of
`finditer` as UTF-16 offsets plus its groups. test/regex-corpus.test.ts replays the file against
`compileRegex`/`matchAll` and requires 100% agreement: same acceptance (or a rejection with a hint
for a construct RE2 cannot run), and the same matches.

The documented deviations are kept out of the generated space (docs/regex.md): `\\w \\W \\b \\B` are
ASCII-only here, so they are generated only with ASCII texts; `$` without MULTILINE does not match
before a final newline, so `$` is generated only under MULTILINE; a quantified group whose body can
match the empty string is not generated; texts are never empty (Python's `\\B` does not match in "").

    python3 scripts/gen_regex_corpus.py
"""
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_meta  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures', 'regex', 'golden-corpus.jsonl')

SEED = 20261201
N_VALID = 2200
N_NOISE = 1800
TEXTS_PER_PATTERN = 5

CASE_CHARS = ['i', 'I', '\u0130', '\u0131', 's', 'S', '\u017f', 'k', 'K', '\u212a', '\u00df', '\u1e9e',
              '\u03c3', '\u03c2', '\u03a3', '\u00b5', '\u03bc', '\u00e9', '\u00c9', '\u0398', '\u03d1', '\u03b8',
              '\u01c5', '\u01c4', '\u01c6', '\U00010400', '\U00010428']
SPACE_CHARS = [' ', '\t', '\n', '\x0b', '\x0c', '\r', '\x1c', '\x1f', '\x85', '\xa0', '\u1680', '\u2000',
               '\u2028', '\u2029', '\u3000', '\u200b']
# U+FEFF is left out: re2-wasm's decoding drops it at the start of a match or capture (a known engine bug,
# docs/regex.md), which is not a question of regex meaning.
DIGIT_CHARS = ['0', '7', '9', '\u0663', '\u0969', '\uff10', '\U0001d7ce', '\u00b2', '\u2460', '\u0f33']
ASCII_CHARS = list('abcxyz019 _-.:=()[]{}*+?|^$\\/"\'') + ['\n']
# The ASCII letters with non-ASCII case partners (K: U+212A, s: U+017F, i: U+0130/U+0131): an ASCII text with
# them tells whether IGNORECASE folds a class escape's members, which Python never does ((?i)\W matches no k).
ASCII_CASE = list('kKsSiI')
LATIN1 = ['\u00e9', '\u00fc', '\u00e0', '\u00ff', '\u00d7', '\u00f7', '\u00aa', '\u00ba', '\u00a7']
ASTRAL = ['\U0001f600', '\U0001d400', '\U00010400', '\U00020000', '\U0001f4a9']

ALPHABETS = {
    'ascii': ASCII_CHARS + ASCII_CASE,
    'latin1': ASCII_CHARS[:12] + LATIN1,
    'astral': ASCII_CHARS[:8] + ASTRAL + LATIN1[:2],
    'space': ['a', 'b', '1'] + SPACE_CHARS,
    'case': ['a', 'x', ' '] + CASE_CHARS,
    'digit': ['a', ' ', '-', '.'] + DIGIT_CHARS,
}


def lit(ch):
    """A pattern spelling of one character."""
    if ch in '.^$*+?{}[]\\|()':
        return '\\' + ch
    if ch == '\n':
        return random.choice(['\\n', '\\x0a', '\\012', '\n'])
    cp = ord(ch)
    r = random.random()
    if cp > 0xffff and r < 0.4:
        return '\\U%08x' % cp
    if 0x7f < cp <= 0xffff and r < 0.3:
        return '\\u%04x' % cp
    if 0x7f < cp <= 0xff and r < 0.5:
        return '\\x%02x' % cp
    return ch


def gen_class(ascii_only):
    items = []
    for _ in range(random.randint(1, 3)):
        r = random.random()
        if r < 0.25:
            items.append(random.choice(['\\d', '\\D', '\\s', '\\S'] + (['\\w', '\\W'] if ascii_only else [])))
        elif r < 0.5:
            a, b = random.choice([('a', 'z'), ('A', 'Z'), ('0', '9'), ('h', 'j'), ('\u00c0', '\u00ff'), ('\u0391', '\u03c9'),
                                  ('\u0130', '\u0131'), ('\x00', '\x1f'), ('\u2000', '\u200b'), ('r', 't'), ('J', 'L')])
            items.append(lit(a) + '-' + lit(b))
        else:
            pool = CASE_CHARS + SPACE_CHARS[:8] + list('aK-.') + DIGIT_CHARS[:4]
            items.append(lit(random.choice(pool)).replace('\\-', '-') if random.random() < 0.9 else '\\-')
    body = ''.join(items)
    if body.startswith('-') or body.startswith('^'):
        body = '\\' + body
    return '[' + ('^' if random.random() < 0.3 else '') + body + ']'


def gen_atom(depth, ascii_only, multiline):
    r = random.random()
    if r < 0.35:
        pool = CASE_CHARS + ['a', 'b', 'x', '1', ' ', '-', '.', '\n'] + (LATIN1[:3] + ASTRAL[:2])
        return lit(random.choice(pool))
    if r < 0.5:
        return random.choice(['\\d', '\\D', '\\s', '\\S', '.'] + (['\\w', '\\W'] if ascii_only else []))
    if r < 0.68:
        return gen_class(ascii_only)
    if r < 0.74:
        anchors = ['\\A', '\\Z', '^'] + (['$'] if multiline else []) + (['\\b', '\\B'] if ascii_only else [])
        return random.choice(anchors)
    if depth < 2:
        open_ = random.choice(['(', '(?:', '(?P<g%d>' % random.randint(0, 99999), '(?i:', '(?-i:', '(?s:', '(?m:' if multiline else '(?:'])
        alts = [gen_seq(depth + 1, ascii_only, multiline) for _ in range(random.choice([1, 1, 2, 3]))]
        return open_ + '|'.join(alts) + ')'
    return lit(random.choice(['a', 'i', 'k', 's']))


QUANTS = ['', '', '', '', '*', '+', '?', '*?', '+?', '??', '{2}', '{0,2}', '{1,}', '{1,3}?', '{0}']


def gen_seq(depth, ascii_only, multiline):
    out = ''
    for _ in range(random.randint(1, 4)):
        atom = gen_atom(depth, ascii_only, multiline)
        q = random.choice(QUANTS)
        if atom in ('\\A', '\\Z', '^', '$', '\\b', '\\B'):
            q = ''
        elif atom.endswith(')') and q != '':
            # Unbounded repeats of groups can make Python's backtracking exponential; bounded ones still
            # exercise group captures under repetition. A repeated group whose body can match the empty
            # string is a documented deviation (captures of its empty iterations differ), not generated.
            q = random.choice(['?', '{2}', '{0,2}'])
            try:
                if re._parser.parse(atom).getwidth()[0] == 0:
                    q = ''
            except re.error:
                pass  # an invalid group: the pattern is recorded as rejected
        out += atom + q
    return out


def gen_valid():
    ascii_only = random.random() < 0.2
    multiline = random.random() < 0.25
    body = gen_seq(0, ascii_only, multiline)
    if random.random() < 0.2:
        body += '|' + gen_seq(0, ascii_only, multiline)
    prefix = ''
    if random.random() < 0.3:
        prefix += '(?i)'
    if random.random() < 0.1:
        prefix += '(?s)'
    flags = ''
    if random.random() < 0.1:
        flags += 'i'
    if multiline:
        if random.random() < 0.5:
            flags += 'm'
        else:
            prefix += '(?m)'
    return prefix + body, flags, ascii_only


NOISE = list('ab\\()[]{}?*+|^.-:,P<>=!#012iz') + ['\\z', '\\p', '\\x{', '\\Q', '\\E', '(?i)', '(?<', '\\1', '{,', '[:', '\\u00', '\\N', '(?x)', '(?P=']


def gen_noise():
    s = ''.join(random.choice(NOISE) for _ in range(random.randint(1, 8)))
    return s, random.choice(['', '', 'i']), True


def gen_text(ascii_only):
    name = 'ascii' if ascii_only else random.choice(list(ALPHABETS))
    alpha = ALPHABETS[name]
    # Never empty: Python's \\B does not match in an empty string, RE2's does (a documented corner).
    return ''.join(random.choice(alpha) for _ in range(random.randint(1, 14)))


def u16(text, i):
    return len(text[:i].encode('utf-16-le')) // 2


PY_FLAGS = {'i': re.IGNORECASE, 'm': re.MULTILINE, 's': re.DOTALL}


def record(pattern, flags, ascii_only):
    f = 0
    for c in flags:
        f |= PY_FLAGS[c]
    try:
        rx = re.compile(pattern, f)
    except re.error as e:
        return {'p': pattern, 'f': flags, 'ok': False, 'error': e.msg, 'pos': e.pos}
    except (OverflowError, RecursionError) as e:
        return {'p': pattern, 'f': flags, 'ok': False, 'error': str(e), 'pos': None}
    texts = []
    for _ in range(TEXTS_PER_PATTERN):
        t = gen_text(ascii_only)
        ms = [[u16(t, m.start()), u16(t, m.end()), list(m.groups())] for m in rx.finditer(t)]
        texts.append([t, ms])
    return {'p': pattern, 'f': flags, 'ok': True, 'texts': texts}


def main():
    random.seed(SEED)
    records = []
    seen = set()
    for gen, n in ((gen_valid, N_VALID), (gen_noise, N_NOISE)):
        made = 0
        while made < n:
            p, flags, ascii_only = gen()
            if (p, flags) in seen:
                continue
            seen.add((p, flags))
            made += 1
            records.append(record(p, flags, ascii_only))
    meta = golden_meta.meta('scripts/gen_regex_corpus.py', 'python3 scripts/gen_regex_corpus.py', seed=SEED,
                            generated=N_VALID, noise=N_NOISE, texts_per_pattern=TEXTS_PER_PATTERN)
    with open(OUT, 'w', encoding='utf-8') as out:
        out.write(json.dumps({'meta': meta}) + '\n')
        for r in records:
            out.write(json.dumps(r, ensure_ascii=True) + '\n')


if __name__ == '__main__':
    main()
