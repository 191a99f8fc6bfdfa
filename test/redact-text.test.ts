/**
 * The text scrubber (issue 37 §2): the original's path and IP rewrites against Python (`re` + `ipaddress`, the
 * original's newest regexes: fixtures/redact/paths-ips.json from scripts/gen_redact_golden.py), its DoS case, and
 * our credential rules, each with what it keeps and what it replaces.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TextScrubber } from '../src/redact/text.js';
import { lineWindows } from '../src/redact/windows.js';

const golden = JSON.parse(readFileSync('fixtures/redact/paths-ips.json', 'utf8')) as {
  cases: { input: string; output: string; paths: number; ips: number }[];
  bytes: { input_hex: string; output_hex: string; paths: number; ips: number }[];
};

const scrubber = (over: Partial<ConstructorParameters<typeof TextScrubber>[0]> = {}) =>
  new TextScrubber({ scrubPaths: true, scrubIpAddresses: true, scrubSecrets: false, ...over });

describe("paths and IPs: the original's rewrites (Python oracle)", () => {
  it('every golden case: the same text and the same counts', () => {
    const wrong = golden.cases.filter((c) => {
      const s = scrubber();
      const out = s.scrub(c.input);
      return out !== c.output || s.counts.pathsRewritten !== c.paths || s.counts.ipsRewritten !== c.ips;
    });
    expect(wrong.map((c) => c.input)).toEqual([]);
    expect(golden.cases.length).toBe(422);
  });

  it('bytes that are not UTF-8: decoded as the bundle decodes (U+FFFD, BOM kept), the same bytes out', () => {
    const wrong = golden.bytes.filter((c) => {
      const s = scrubber();
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.from(c.input_hex, 'hex'));
      const out = Buffer.from(
        lineWindows(text)
          .map((w) => s.scrub(w))
          .join(''),
        'utf8',
      ).toString('hex');
      return out !== c.output_hex || s.counts.pathsRewritten !== c.paths || s.counts.ipsRewritten !== c.ips;
    });
    expect(wrong.map((c) => c.input_hex)).toEqual([]);
    expect(golden.bytes.length).toBe(112);
  });

  it('numbers per file across windows, in order of first sight', () => {
    const s = scrubber();
    expect(s.scrub('/home/a/x 10.0.0.1\n')).toBe('<PATH:0> <IPV4:0>\n');
    expect(s.scrub('/home/b/y /home/a/x 10.0.0.2 ::1\n')).toBe('<PATH:1> <PATH:0> <IPV4:1> <IPV6:0>\n');
    expect(s.counts).toEqual({ pathsRewritten: 3, ipsRewritten: 3, secretsRedacted: 0, patternsRedacted: 0 });
  });

  it("the original's DoS case: ten million '/' in well under its 15 s", () => {
    const t0 = performance.now();
    const text = '/'.repeat(10 * 1024 * 1024);
    expect(scrubber().scrub(text)).toBe(text);
    expect(performance.now() - t0).toBeLessThan(15_000);
  });
});

describe('credentials (beyond the original, its issue #420)', () => {
  it.each([
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', '<SECRET:0>'],
    ['Authorization: Bearer abc.def-ghi_jkl', 'Authorization: Bearer <SECRET:0>'],
    ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic <SECRET:0>'],
    ['git clone https://bob:hunter22@git.example.com/r.git', 'git clone https://<SECRET:0>@git.example.com/r.git'],
    ['key AKIAIOSFODNN7EXAMPLE used', 'key <SECRET:0> used'],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_access_key = <SECRET:0>'],
    [`token ghp_${'a'.repeat(36)} end`, 'token <SECRET:0> end'],
    [`glpat-${'x'.repeat(20)}`, '<SECRET:0>'],
    ['xoxb-1234567890-abcdefghij', '<SECRET:0>'],
    [`HF_TOKEN=hf_${'A'.repeat(34)}`, 'HF_TOKEN=<SECRET:0>'],
    [`OPENAI_API_KEY=sk-proj-${'b'.repeat(24)}`, 'OPENAI_API_KEY=<SECRET:0>'],
    ['jwt eyJhbGciOi.eyJzdWIiOiIx.SflKxwRJSMeKKF2QT4fw', 'jwt <SECRET:0>'],
    ['password=s3cr3t! db_token: abcd1234', 'password=<SECRET:0> db_token: <SECRET:1>'],
  ])('%j → %j', (input, output) => {
    expect(scrubber({ scrubSecrets: true, scrubPaths: false, scrubIpAddresses: false }).scrub(input)).toBe(output);
  });

  it('leaves ordinary log text alone: hashes, UUIDs, hex addresses, step counters', () => {
    const text =
      'sha256 9cf615b6e7aec3e21cf516864b69daf375c233af28451f46f39960a964dded94 uuid 123e4567-e89b-12d3-a456-426614174000 addr 0x7ffd1234abcd step 5 loss=0.25 tokens/s=1234\n';
    const s = scrubber({ scrubSecrets: true, scrubPaths: false, scrubIpAddresses: false });
    expect(s.scrub(text)).toBe(text);
    expect(s.counts.secretsRedacted).toBe(0);
  });

  it('a secret before a path: the token is replaced, not rewritten as part of a path', () => {
    const s = scrubber({ scrubSecrets: true });
    expect(s.scrub('https://u:p4ss@host:8080 cloned to /home/u/repo')).toBe(
      'https://<SECRET:0>@host:8080 cloned to <PATH:0>',
    );
  });
});

describe("the recipe's extra_patterns (RE2)", () => {
  it('each match becomes <REDACTED:N>, numbered per file', () => {
    const s = scrubber({ scrubPaths: false, scrubIpAddresses: false, extraPatterns: ['cust-[0-9]{6}', 'x*'] });
    try {
      expect(s.scrub('cust-123456 and cust-654321 and cust-123456')).toBe(
        '<REDACTED:0> and <REDACTED:1> and <REDACTED:0>',
      );
      expect(s.counts.patternsRedacted).toBe(3);
    } finally {
      s.dispose();
    }
  });
});

describe('windows (the DoS bound)', () => {
  it('concatenate to the input, split at line ends within the budget, CRLF kept', async () => {
    const { lineWindows } = await import('../src/redact/windows.js');
    const text = 'a\r\n'.repeat(10) + 'b\rc\n' + 'é'.repeat(5) + '\n';
    const w = lineWindows(text, 12, 6);
    expect(w.join('')).toBe(text);
    expect(w.every((x) => Buffer.byteLength(x) <= 12)).toBe(true);
    expect(w[0]).toBe('a\r\na\r\na\r\na\r\n');
  });

  it('a line over the budget is hard-split after the last non-token character within the look-back', async () => {
    const { lineWindows } = await import('../src/redact/windows.js');
    const line = `${'x'.repeat(10)} /home/alice/data ${'y'.repeat(10)}`;
    const w = lineWindows(line, 16, 20);
    expect(w.join('')).toBe(line);
    // The first cut falls inside the path: moved back to just after the space before it.
    expect(w[0]).toBe(`${'x'.repeat(10)} `);
    expect(w[1]!.startsWith('/home/alice/data')).toBe(true);
  });
});

describe("JSON documents: the original's env locations, every string scrubbed", () => {
  it('removes env keys by glob where the kind says, scrubs kept values and every other string', async () => {
    const { documentKind, scrubDocument } = await import('../src/redact/json.js');
    expect(
      [
        'none-none/trial_0/result.json',
        'host_env.json',
        'matrix.json',
        'run.json',
        'sidecars/s.json',
        'x/y.json',
        'a.log',
      ].map(documentKind),
    ).toEqual(['result', 'snapshot', 'matrix', 'run', 'sidecar', 'json', null]);
    const record = {
      verdict: 'fail',
      argv: ['/home/alice/train.py'],
      cell_env: { AWS_SECRET_ACCESS_KEY: 'x', LD_LIBRARY_PATH: '/home/alice/lib', RETRIES: 3, NOTHING: null },
      note: { AWS_KEEP: 'not an env location' },
    };
    const s = scrubber({ scrubSecrets: true });
    const { doc, envKeysRemoved } = scrubDocument(record, 'result', s, ['AWS_*']);
    expect(envKeysRemoved).toBe(1);
    expect(doc).toEqual({
      verdict: 'fail',
      argv: ['<PATH:0>'],
      cell_env: { LD_LIBRARY_PATH: '<PATH:1>', RETRIES: 3, NOTHING: null },
      note: { AWS_KEEP: 'not an env location' },
    });
  });

  it('fails closed when two keys collapse into one, and keeps a __proto__ key as data', async () => {
    const { scrubDocument, RedactionError } = await import('../src/redact/json.js');
    expect(() => scrubDocument({ '/a/b': 1, '/c/d': 2, '<PATH:0>': 3 }, 'json', scrubber(), [])).toThrow(
      RedactionError,
    );
    const hostile = JSON.parse('{"__proto__": {"polluted": "/home/x/y"}}') as Record<string, unknown>;
    const { doc } = scrubDocument(hostile as never, 'json', scrubber(), []);
    expect(JSON.stringify(doc)).toBe('{"__proto__":{"polluted":"<PATH:0>"}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
