#!/usr/bin/env node
// One-off exhaustive check of src/condition/unicode-tables.ts against the running python3
// (CPython 3.11): every code point for the four predicates, and every character name,
// alias and named sequence (plus case/spacing variants, all 4/5-digit CJK hex suffixes and
// jamo soups) for lookupUnicodeName, each judged by evaluating a real "\N{...}" literal.
// Not part of the test suite (needs python3 and ~1 minute).
//
//   node scripts/verify_unicode_tables.mjs
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const work = mkdtempSync(join(tmpdir(), 'verify-unicode-'));

const PY = String.raw`
import ctypes, json, sys, unicodedata
assert sys.version_info[:2] == (3, 11), sys.version
out_dir = sys.argv[1]
MAX = 0x10FFFF
chars = [chr(cp) for cp in range(MAX + 1)]
with open(out_dir + '/predicates.json', 'w') as f:
    json.dump({
        'isXidStart': ''.join('1' if c.isidentifier() and c != '_' else '0' for c in chars),
        'isXidContinue': ''.join('1' if ('a' + c).isidentifier() else '0' for c in chars),
        'isPySpace': ''.join('1' if c.isspace() else '0' for c in chars),
        'isPrintable': ''.join('1' if c.isprintable() else '0' for c in chars),
    }, f)

# Aliases and named sequences from unicodedata's name C API (PUA U+F0000.. of its name table).
get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
get_pointer.restype = ctypes.c_void_p
get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
GETNAME = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_int, ctypes.c_int)
getname = GETNAME.from_address(get_pointer(unicodedata._ucnhash_CAPI, b'unicodedata._ucnhash_CAPI'))
pua_names = []
for cp in range(0xF0000, 0xF1000):
    buf = ctypes.create_string_buffer(300)
    if getname(cp, buf, 300, 1):
        pua_names.append(buf.value.decode())

def truth(name):
    try:
        v = eval('"\\N{' + name + '}"')
    except SyntaxError:
        return None
    return ord(v)

names = [unicodedata.name(c, None) for c in chars]
names = [n for n in names if n]
base = names + pua_names
cands = set(base)
for n in base:
    cands.add(n.lower())
    cands.add(n.title())
    cands.add(n + ' ')
    cands.add(' ' + n)
    cands.add(n[:-1])
    cands.add(n.replace(' ', '  ', 1))
    cands.add(n.replace('-', ' ', 1))
    cands.add(n.replace(' ', '-', 1))
hexd = '0123456789ABCDEF'
for v in range(0x10000):
    cands.add('CJK UNIFIED IDEOGRAPH-%04X' % v)
for v in range(0x100000):
    cands.add('CJK UNIFIED IDEOGRAPH-%05X' % v)
for v in range(0x3400, 0x32000, 7):
    cands.add('CJK UNIFIED IDEOGRAPH-%x' % v)
    cands.add('CJK UNIFIED IDEOGRAPH-%06X' % v)
    cands.add('CJK UNIFIED IDEOGRAPH-%03X' % v)
    cands.add('cjk unified ideograph-%X' % v)
for prefix in ('CJK COMPATIBILITY IDEOGRAPH-', 'KHITAN SMALL SCRIPT CHARACTER-', 'NUSHU CHARACTER-'):
    for v in range(0x32000):
        cands.add(prefix + '%04X' % v)
    for v in range(0xF800, 0xFB00):
        cands.add(prefix + '0%04X' % v)
        cands.add(prefix + '%x' % v)
L = 'G GG N D DD R M B BB S SS _ J JJ C K T P H'.replace('_', '').split(' ')
V = 'A AE YA YAE EO E YEO YE O WA WAE OE YO U WEO WE WI YU EU YI I'.split(' ')
T = '_ G GG GS N NJ NH D L LG LM LB LS LT LP LH M B BS S SS NG J C K T P H'.replace('_', '').split(' ')
pieces = sorted(set(L + V + T) - {''}) + ['X', ' ', '-']
for a in [''] + pieces:
    for b in [''] + pieces:
        for c in [''] + pieces:
            cands.add('HANGUL SYLLABLE ' + a + b + c)
for a in L:
    for b in V:
        for c in T:
            cands.add('HANGUL SYLLABLE ' + (a + b + c).lower())
            cands.add('Hangul Syllable ' + a + b + c)
cands = sorted(n for n in cands if n and not any(ch in n for ch in '"\\}\n\r\0'))
cands.append('')
with open(out_dir + '/names.tsv', 'w') as f:
    for n in cands:
        t = truth(n) if n else None
        assert '\t' not in n
        f.write(n + '\t' + ('' if t is None else str(t)) + '\n')
print(len(cands), 'name candidates;', len(pua_names), 'aliases + named sequences', file=sys.stderr)
`;

try {
  const t0 = Date.now();
  execFileSync(
    'npx',
    [
      'tsc',
      '--outDir',
      work,
      '--target',
      'ES2022',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--strict',
      '--types',
      'node',
      join(root, 'src/condition/unicode-tables.ts'),
    ],
    { stdio: 'inherit', cwd: root },
  );
  const py = spawnSync('python3', ['-c', PY, work], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (py.status !== 0) throw new Error('python3 failed');
  console.log(`reference data: ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const mod = await import(pathToFileURL(join(work, 'unicode-tables.js')).href);
  let failures = 0;

  const preds = JSON.parse(readFileSync(join(work, 'predicates.json'), 'utf8'));
  for (const [name, bits] of Object.entries(preds)) {
    const fn = mod[name];
    let bad = 0;
    let count = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const want = bits.charCodeAt(cp) === 49;
      if (want) count++;
      if (fn(cp) !== want) {
        if (bad < 10) console.log(`  ${name}(U+${cp.toString(16).toUpperCase()}) want ${want}`);
        bad++;
      }
    }
    console.log(`${name}: ${bits.length} code points, ${count} true, ${bad} mismatches`);
    failures += bad;
  }

  const lines = readFileSync(join(work, 'names.tsv'), 'utf8').split('\n');
  lines.pop();
  let bad = 0;
  let accepted = 0;
  for (const line of lines) {
    const tab = line.lastIndexOf('\t');
    const name = line.slice(0, tab);
    const want = tab + 1 === line.length ? undefined : Number(line.slice(tab + 1));
    if (want !== undefined) accepted++;
    const got = mod.lookupUnicodeName(name);
    if (got !== want) {
      if (bad < 20) console.log(`  lookupUnicodeName(${JSON.stringify(name)}) = ${got}, want ${want}`);
      bad++;
    }
  }
  console.log(`lookupUnicodeName: ${lines.length} names (${accepted} accepted by CPython), ${bad} mismatches`);
  failures += bad;
  console.log(failures === 0 ? 'VERIFIED: no mismatches' : `FAILED: ${failures} mismatches`);
  process.exitCode = failures === 0 ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
