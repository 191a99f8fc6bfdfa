// Checks the generated CPython 3.11 Unicode tables against the golden file written by
// scripts/gen_unicode_tables.py (every expectation there comes from CPython itself).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  UNICODE_DATA_VERSION,
  isPrintable,
  isPySpace,
  isXidContinue,
  isXidStart,
  lookupUnicodeName,
} from '../src/condition/unicode-tables.js';

interface Golden {
  python: string;
  unidata_version: string;
  predicates: Record<string, { initial: boolean; transitions: number[] }>;
  names: Record<string, [string, number | null][]>;
}

const golden = JSON.parse(
  readFileSync(new URL('../fixtures/unicode/golden-unicode.json', import.meta.url), 'utf8'),
) as Golden;

const MAX_CP = 0x10ffff;

const predicates: Record<string, (cp: number) => boolean> = {
  isXidStart,
  isXidContinue,
  isPySpace,
  isPrintable,
};

function hex(cp: number): string {
  return 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
}

describe('unicode-tables', () => {
  it('is generated from the same Unicode version as the golden file', () => {
    expect(golden.unidata_version).toBe('14.0.0');
    expect(UNICODE_DATA_VERSION).toBe(golden.unidata_version);
  });

  describe('code point predicates (every code point)', () => {
    for (const [name, fn] of Object.entries(predicates)) {
      it(name, () => {
        const spec = golden.predicates[name];
        expect(spec, `golden has ${name}`).toBeDefined();
        const { initial, transitions } = spec!;
        const mismatches: string[] = [];
        let expected = initial;
        let next = 0;
        let count = 0;
        for (let cp = 0; cp <= MAX_CP; cp++) {
          if (next < transitions.length && transitions[next] === cp) {
            expected = !expected;
            next++;
          }
          if (expected) count++;
          if (fn(cp) !== expected && mismatches.length < 20) mismatches.push(`${hex(cp)} expected ${expected}`);
        }
        expect(next).toBe(transitions.length);
        expect(mismatches).toEqual([]);
        expect(count).toBeGreaterThan(0);
      });
    }

    it('treats out-of-range numbers as not in any set', () => {
      for (const fn of Object.values(predicates)) {
        expect(fn(-1)).toBe(false);
        expect(fn(MAX_CP + 1)).toBe(false);
        expect(fn(0x7fffffff)).toBe(false);
      }
    });

    it('spot checks', () => {
      expect(isXidStart(0x5f)).toBe(false); // '_' is handled by the tokenizer itself
      expect(isXidContinue(0x5f)).toBe(true);
      expect(isXidStart(0x41)).toBe(true);
      expect(isXidStart(0x30)).toBe(false);
      expect(isXidContinue(0x30)).toBe(true);
      expect(isPySpace(0x1c)).toBe(true); // FILE SEPARATOR: str.isspace() is True
      expect(isPySpace(0x200b)).toBe(false); // ZERO WIDTH SPACE
      expect(isPySpace(0x3000)).toBe(true);
      expect(isPrintable(0x20)).toBe(true);
      expect(isPrintable(0xa0)).toBe(false); // NO-BREAK SPACE (Zs)
      expect(isPrintable(0xad)).toBe(false); // SOFT HYPHEN (Cf)
      // Assigned after Unicode 14: must follow Python 3.11, not the JS engine.
      expect(isXidStart(0x11f04)).toBe(false); // KAWI LETTER A (Unicode 15)
      expect(isPrintable(0x1f6dc)).toBe(false); // WIRELESS (Unicode 15)
      expect(isXidStart(0x31350)).toBe(false); // CJK Extension H (Unicode 15)
    });
  });

  describe('lookupUnicodeName (\\N{...} in a str literal)', () => {
    for (const [kind, cases] of Object.entries(golden.names)) {
      it(`${kind} (${cases.length} cases)`, () => {
        const mismatches: string[] = [];
        for (const [name, cp] of cases) {
          const got = lookupUnicodeName(name);
          const want = cp === null ? undefined : cp;
          if (got !== want && mismatches.length < 20) {
            mismatches.push(
              `${JSON.stringify(name)}: got ${got === undefined ? 'rejected' : hex(got)}, ` +
                `want ${want === undefined ? 'rejected' : hex(want)}`,
            );
          }
        }
        expect(mismatches).toEqual([]);
      });
    }

    it('covers accepted and rejected names of every algorithmic kind', () => {
      const all = Object.values(golden.names).flat();
      const accepted = all.filter(([, cp]) => cp !== null).map(([n]) => n.toUpperCase());
      for (const prefix of [
        'HANGUL SYLLABLE ',
        'CJK UNIFIED IDEOGRAPH-',
        'CJK COMPATIBILITY IDEOGRAPH-',
        'KHITAN SMALL SCRIPT CHARACTER-',
        'NUSHU CHARACTER-',
      ]) {
        expect(accepted.filter((n) => n.startsWith(prefix)).length, prefix).toBeGreaterThan(10);
      }
      expect(all.length).toBeGreaterThan(5000);
      expect(all.filter(([, cp]) => cp === null).length).toBeGreaterThan(300);
    });

    it('documented examples', () => {
      expect(lookupUnicodeName('LATIN SMALL LETTER A')).toBe(0x61);
      expect(lookupUnicodeName('latin Small letter a')).toBe(0x61);
      expect(lookupUnicodeName('LF')).toBe(0x0a);
      expect(lookupUnicodeName('bom')).toBe(0xfeff);
      expect(lookupUnicodeName('HANGUL SYLLABLE GAG')).toBe(0xac01);
      expect(lookupUnicodeName('hangul syllable GAG')).toBeUndefined();
      expect(lookupUnicodeName('CJK UNIFIED IDEOGRAPH-04E00')).toBe(0x4e00);
      expect(lookupUnicodeName('CJK UNIFIED IDEOGRAPH-4e00')).toBeUndefined();
      expect(lookupUnicodeName('cjk compatibility ideograph-f900')).toBe(0xf900);
      expect(lookupUnicodeName('TANGUT IDEOGRAPH-17000')).toBeUndefined();
      expect(lookupUnicodeName('KEYCAP NUMBER SIGN')).toBeUndefined(); // named sequence
      expect(lookupUnicodeName('')).toBeUndefined();
      expect(lookupUnicodeName('LATIN SMALL LETTER A ')).toBeUndefined();
      expect(lookupUnicodeName('CRO\u00df MARK')).toBeUndefined(); // JS would upper-case to "CROSS MARK"
      // Unicode 15 additions must not be known.
      expect(lookupUnicodeName('KAWI LETTER A')).toBeUndefined();
      expect(lookupUnicodeName('CJK UNIFIED IDEOGRAPH-31350')).toBeUndefined();
    });
  });
});
