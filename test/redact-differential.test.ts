/**
 * The scrubber's passes try only the positions their cursors give (src/redact/text.ts, header): proved against the
 * plain definition — each pass as `text.replace(globalRegex, …)` over the whole window, in the same order — on
 * random text built from the fragments that make the cursors' edge cases (runs of `/`, `:`, `.`, hex, digits,
 * brackets, non-ASCII and astral digits, every rule's literal, line ends), short and past the piece size.
 */
import { describe, expect, it } from 'vitest';
import { ipv4Valid, ipv6Valid } from '../src/redact/ip.js';
import { REFERENCE_REGEXES, SECRET_RULES, TextScrubber, type TextScrubOptions } from '../src/redact/text.js';
import { rng } from './support/rng.js';

/** The secret assignment as first written: `[…]*keyword[…]*` (quadratic on a long run, same matches). */
const ASSIGNMENT_AS_WRITTEN =
  /(?<![<A-Za-z0-9_.-])[A-Za-z0-9_.-]*(?:password|passwd|pwd|passphrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key)[A-Za-z0-9_.-]*["']?[^\S\r\n]*[=:][^\S\r\n]*["']?(?<secret>[^\s"',;&<>]{4,})/gi;

class Numbering {
  private readonly seen = new Map<string, number>();
  constructor(private readonly tag: string) {}
  of(v: string): string {
    if (!this.seen.has(v)) this.seen.set(v, this.seen.size);
    return `<${this.tag}:${this.seen.get(v)}>`;
  }
}

/** The definition: sequential global replaces over the whole text. */
function reference(text: string, o: TextScrubOptions): { out: string; counts: number[] } {
  const [secret, path, v6, v4] = ['SECRET', 'PATH', 'IPV6', 'IPV4'].map((t) => new Numbering(t)) as Numbering[];
  const counts = [0, 0, 0];
  let out = text;
  if (o.scrubSecrets) {
    const rules = REFERENCE_REGEXES.secrets.map((re, i, all) => (i === all.length - 1 ? ASSIGNMENT_AS_WRITTEN : re));
    for (const re of rules) {
      out = out.replace(new RegExp(re.source, re.flags), (...args: unknown[]) => {
        const match = args[0] as string;
        const s = (args[args.length - 1] as { secret: string }).secret;
        counts[2]!++;
        const at = match.lastIndexOf(s);
        return match.slice(0, at) + secret!.of(s) + match.slice(at + s.length);
      });
    }
  }
  if (o.scrubPaths)
    out = out.replace(new RegExp(REFERENCE_REGEXES.path), (m) => {
      counts[0]!++;
      return path!.of(m);
    });
  if (o.scrubIpAddresses) {
    out = out.replace(new RegExp(REFERENCE_REGEXES.ipv6Bracketed), (m, inner: string) => {
      if (!ipv6Valid(inner)) return m;
      counts[1]!++;
      return v6!.of(inner);
    });
    out = out.replace(new RegExp(REFERENCE_REGEXES.ipv6Unbracketed), (m) => {
      if (!ipv6Valid(m)) return m;
      counts[1]!++;
      return v6!.of(m);
    });
    out = out.replace(new RegExp(REFERENCE_REGEXES.ipv4), (m) => {
      if (!ipv4Valid(m)) return m;
      counts[1]!++;
      return v4!.of(m);
    });
  }
  return { out, counts };
}

const FRAGMENTS = [
  '/',
  '//',
  '/home/alice/',
  'data',
  '.',
  '..',
  ':',
  '::',
  ':::',
  '[',
  ']',
  '[::1]',
  '10',
  '192',
  '255',
  '256',
  '0',
  '01',
  '1',
  '12',
  '300',
  'fe80',
  'abcd',
  'ffff',
  'g',
  'x',
  '_',
  '-',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '=',
  ': ',
  '"',
  "'",
  '<',
  '>',
  '@',
  '%',
  ',',
  ';',
  '&',
  'é',
  '٣',
  '𝟙',
  '𝒜',
  '\u00a0',
  'Bearer ',
  'Basic ',
  'Token ',
  'https://',
  'git+ssh://',
  'x.y://',
  'user:pass@',
  'AKIA',
  'ASIA',
  'ABCDEFGHIJKLMNOP',
  'aws_secret_access_key',
  'ghp_',
  'github_pat_',
  'glpat-',
  'xoxb-',
  'hf_',
  'sk-',
  'sk-proj-',
  'eyJ',
  'eyJhbGciOi.eyJzdWIi.',
  'password',
  'PassWord',
  'token',
  'tokens/s',
  'secret',
  'api_key',
  'apikey',
  'access-key',
  'private_key',
  '-----BEGIN RSA PRIVATE KEY-----',
  '-----BEGIN PRIVATE KEY-----',
  '-----END RSA PRIVATE KEY-----',
  '-----END PRIVATE KEY-----',
  '-----BEGIN ',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  '0123456789abcdef0123',
  '<SECRET:0>',
  '<PATH:1>',
  'ckpt',
  'step_0001.pt',
  '192.168.1.1',
  '255.255.255.255',
  '10.0.0.',
  '.1',
  '1.2.3.4',
  '0.0.0.0',
  '2001:db8::1',
  '::ffff:10.0.0.1',
  'fe80::',
  '1:2:3:4:5:6:7:8',
  '12:30',
  '10:00:12.345',
  '١٢٣.',
  'tokentoken',
  'x-token: ',
  '::',
];

function randomText(r: () => number, fragments: number): string {
  let s = '';
  for (let i = 0; i < fragments; i++) s += FRAGMENTS[Math.floor(r() * FRAGMENTS.length)];
  return s;
}

const OPTIONS: TextScrubOptions[] = [
  { scrubPaths: true, scrubIpAddresses: true, scrubSecrets: true },
  { scrubPaths: true, scrubIpAddresses: true, scrubSecrets: false },
  { scrubPaths: false, scrubIpAddresses: true, scrubSecrets: false },
  { scrubPaths: false, scrubIpAddresses: false, scrubSecrets: true },
];

function same(text: string, o: TextScrubOptions): void {
  const s = new TextScrubber(o);
  const got = s.scrub(text);
  const want = reference(text, o);
  if (got !== want.out) {
    let i = 0;
    while (got[i] === want.out[i]) i++;
    const at = Math.max(0, i - 30);
    // The first difference, with its context: the whole text would be too long to read.
    expect({ input: text.slice(at, i + 60), got: got.slice(at, i + 60) }).toEqual({
      input: text.slice(at, i + 60),
      got: want.out.slice(at, i + 60),
    });
    expect(got).toBe(want.out);
  }
  expect([s.counts.pathsRewritten, s.counts.ipsRewritten, s.counts.secretsRedacted]).toEqual(want.counts);
}

describe('the scrubber equals its definition (sequential global replaces)', () => {
  it('4,000 short random texts, every option set', () => {
    const r = rng(37);
    for (let i = 0; i < 4000; i++) {
      const text = randomText(r, 1 + Math.floor(r() * 40));
      same(text, OPTIONS[i % OPTIONS.length]!);
    }
  });

  it('texts past the piece size: numbering across pieces is the window order', () => {
    const r = rng(4242);
    for (let i = 0; i < 3; i++) {
      const text = randomText(r, 60_000);
      expect(text.length).toBeGreaterThan(1 << 17);
      same(text, OPTIONS[0]!);
    }
    // Bracketed IPv6 are numbered before unbracketed ones in a window, however far apart.
    const far = `::2\n${'x '.repeat(100_000)}\n[::3]\n`;
    expect(new TextScrubber(OPTIONS[1]!).scrub(far)).toBe(`<IPV6:1>\n${'x '.repeat(100_000)}\n<IPV6:0>\n`);
  });

  it('a window given as functions that make its pieces scrubs as the same window given as text', async () => {
    const { linePieces } = await import('../src/redact/windows.js');
    const r = rng(3737);
    for (let i = 0; i < 40; i++) {
      const text = randomText(r, 500 + Math.floor(r() * 12_000));
      const o = OPTIONS[i % OPTIONS.length]!;
      const asText = new TextScrubber(o);
      const want = asText.scrub(text);
      const asMade = new TextScrubber(o);
      let made = 0;
      const pieces = linePieces(text).map((p) => () => {
        made++;
        return p;
      });
      expect([...asMade.scrubbedPieces(pieces)].join('')).toBe(want);
      expect(asMade.counts).toEqual(asText.counts);
      // Each piece is made at most twice (the first look, the last pass) but where a whole-window rule joins it.
      if (!text.includes('-----BEGIN ')) expect(made).toBeLessThanOrEqual(2 * pieces.length);
    }
  });

  it("a rule `within` another matches only where that rule's cursor has a position", () => {
    const r = rng(5151);
    const nested = SECRET_RULES.filter((rule) => rule.within !== undefined);
    expect(nested.map((rule) => [rule.name, rule.within])).toEqual([['AWS secret access key', 'secret assignment']]);
    let matched = 0;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const key = (): string => [...'aws_secret_access_key'].map((c) => (r() < 0.3 ? c.toUpperCase() : c)).join('');
    for (let i = 0; i < 20_000; i++) {
      // Fragments around a key, a separator of every shape the rule takes (and some it does not), a value.
      const text =
        randomText(r, Math.floor(r() * 4)) +
        pick(['', '.', '-', 'x', ' ', '"']) +
        key() +
        pick(['', '"', "'", '.', '-', 'x']) +
        pick(['', ' ', '\t', '\u00a0', '\n']) +
        pick(['=', ':', '', '/']) +
        pick(['', ' ', "'"]) +
        pick(['A'.repeat(40), 'abc/+='.repeat(7).slice(0, 40), 'a'.repeat(39)]) +
        randomText(r, Math.floor(r() * 4));
      for (const rule of nested) {
        if (!new RegExp(rule.re.source, rule.re.flags).test(text)) continue;
        matched++;
        const outer = SECRET_RULES.find((o) => o.name === rule.within)!;
        expect(outer.starts!(text)(0), text).not.toBe(-1);
      }
    }
    // The corpus makes matches of it, not only misses.
    expect(matched).toBeGreaterThan(1_000);
  });

  it('stays linear on the inputs that make its cursors revisit text', () => {
    const M = 2 ** 20;
    for (const text of [
      'token'.repeat(M / 5),
      ':'.repeat(M),
      '1.'.repeat(M / 2),
      'a'.repeat(M) + '://x',
      '-----BEGIN PRIVATE KEY-----\n'.repeat(M / 28),
      '['.repeat(M),
      'Bearer '.repeat(M / 7),
    ]) {
      const t0 = performance.now();
      const s = new TextScrubber(OPTIONS[0]!);
      s.scrub(text);
      // A generous bound that a quadratic pass (10¹² steps here) could never meet.
      expect(performance.now() - t0).toBeLessThan(5_000);
    }
  });
});

describe('WindowSplitter: lineWindows of text that arrives in pieces', () => {
  it('gives the same windows however the text is cut, long lines and non-ASCII included', async () => {
    const { lineWindows, WindowSplitter } = await import('../src/redact/windows.js');
    const r = rng(7);
    const pieces = ['a', 'bb ', '/x/y', 'é', '𝟙', '\n', '\r\n', ' ', 'zzzzzzzzzzzzzzzzzzzz', 'q'.repeat(90), '\n\n'];
    for (let round = 0; round < 600; round++) {
      let text = '';
      const n = 1 + Math.floor(r() * 60);
      for (let i = 0; i < n; i++) text += pieces[Math.floor(r() * pieces.length)];
      const [budget, chunk] = r() < 0.5 ? [64, 16] : [40, 10];
      const want = lineWindows(text, budget, chunk);
      // Told which pushes are ASCII (on some rounds), it must only say so of a held piece that is.
      const hold = (piece: string, ascii: boolean): string => {
        if (ascii) expect(piece).toMatch(/^[\x00-\x7f]*$/);
        return piece;
      };
      const split = new WindowSplitter(budget, chunk, hold);
      const got: string[][] = [];
      for (let at = 0; at < text.length; ) {
        const len = 1 + Math.floor(r() * (round % 2 === 0 ? 30 : 300));
        const part = text.slice(at, at + len);
        got.push(...split.push(part, round % 3 !== 0 && /^[\x00-\x7f]*$/.test(part)));
        at += len;
      }
      got.push(...split.end());
      expect(got.map((pieces) => pieces.join(''))).toEqual(want);
    }
  });
});
