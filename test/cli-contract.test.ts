/**
 * The CLI contract of issue 16: the exit-code table for every command, the JSON outputs against schemas/, the CI
 * formats against their published schemas (fixtures/schemas/SOURCES.md), where detectors fired, and the argument
 * layer's messages.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ajv } from 'ajv';
import AjvDraft04Module from 'ajv-draft-04';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { loadRecipe } from '../src/recipe/index.js';
import { githubAnnotations, type Annotation } from '../src/report/github.js';
import { scanLog, scanStream } from '../src/scan/index.js';
import { closest } from '../src/text/suggest.js';
import { parseNumber } from '../src/cli/args.js';
import { progressText } from '../src/cli/commands/scan.js';
import { cliInProcess as cli } from './support/run-cli.js';
import { ajv, expectValid, onlyJson } from './support/json-schemas.js';

const NAN_RECIPE = 'fixtures/recipes/nan-loss.yaml';
const NAN_LOG = 'fixtures/logs/loss-then-nan.txt';
const CLEAN = 'fixtures/logs/clean.txt';
const GOOD = 'fixtures/recipes/example-probe-smoke.yaml';
const INVALID = 'fixtures/recipes/invalid-condition.yaml';
const FOUR = 'fixtures/recipes/lint-four-bugs.yaml';
const VARS = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };

// ajv-draft-04 is CommonJS with `exports.default`: under NodeNext the default import is the module object.
const AjvDraft04 = (AjvDraft04Module as unknown as { default: new (options: object) => Ajv }).default;

describe('exit-code table: 0 pass/valid, 1 fail/invalid, 2 usage/unreadable/recipe that does not load, 3 error', () => {
  const matrix: [string, string[], number][] = [
    ['scan pass', ['scan', CLEAN], 0],
    ['scan fail', ['scan', '--recipe', NAN_RECIPE, NAN_LOG], 1],
    ['scan recipe that does not load', ['scan', '--recipe', INVALID, CLEAN], 2],
    ['scan unreadable log', ['scan', 'fixtures/logs/nope.txt'], 2],
    ['scan unreadable recipe', ['scan', '--recipe', 'nope.yaml', CLEAN], 2],
    ['scan usage', ['scan', '--exit-code', '1.5', CLEAN], 2],
    ['check valid', ['check', GOOD], 0],
    ['check warnings', ['check', FOUR], 0],
    ['check --strict warnings', ['check', '--strict', FOUR], 1],
    ['check invalid', ['check', INVALID], 1],
    ['check unreadable', ['check', 'nope.yaml'], 2],
    ['check worst of many', ['check', GOOD, INVALID], 1],
    ['check worst of many, unreadable', ['check', GOOD, INVALID, 'nope.yaml'], 2],
    ['check usage', ['check'], 2],
    ['eval evaluated', ['eval', 'exit_code == 0'], 0],
    ['eval rejected', ['eval', 'exit_code ** 2'], 1],
    ['eval usage', ['eval', '--exit-code', 'x', 'True'], 2],
    ['patterns', ['patterns'], 0],
    ['patterns usage', ['patterns', 'x'], 2],
    ['run recipe that does not load', ['run', '--recipe', INVALID, '--', 'true'], 2],
    ['run usage', ['run', 'true'], 2],
    ['demo usage', ['demo', '--bogus'], 2],
    ['playground usage', ['playground', '--port', 'x'], 2],
    ['sweep usage', ['sweep', '--recipe', GOOD, '--out', 'o', '--trials', '0', '--', 'true'], 2],
    ['sweep unreadable recipe', ['sweep', '--recipe', 'nope.yaml', '--out', 'o', '--dry-run', '--', 'true'], 2],
    [
      'sweep dry run',
      ['sweep', '--recipe', 'fixtures/recipes/retry-exit-codes.yaml', '--out', 'o', '--dry-run', '--', 'true'],
      0,
    ],
    ['sweep recipe that does not load', ['sweep', '--recipe', INVALID, '--out', 'o', '--dry-run', '--', 'true'], 2],
    ['sweep of the original example recipe', ['sweep', '--recipe', GOOD, '--out', 'o', '--dry-run', '--', 'true'], 0],
    ['report usage', ['report'], 2],
    ['report without results', ['report', 'fixtures/logs'], 1],
    ['eval --disasm', ['eval', '--disasm', 'exit_code == 0'], 0],
    ['eval --disasm rejected', ['eval', '--disasm', 'exit_code ** 2'], 1],
    ['unknown command', ['chek'], 2],
    ['help', ['help', 'scan'], 0],
    ['version', ['-V'], 0],
  ];
  it.each(matrix)('%s → exit %s', async (_name, args, code) => {
    expect((await cli(args)).code).toBe(code);
  });

  it('run: pass 0, fail 1, error 3', async () => {
    const out = mkdtempSync(join(tmpdir(), 'aorta-contract-'));
    const node = (js: string) => ['--', process.execPath, '-e', js];
    expect(
      (await cli(['run', '--quiet', '--gpu-tool', 'none', '--out', join(out, 'a'), ...node('console.log("ok")')])).code,
    ).toBe(0);
    expect(
      (await cli(['run', '--quiet', '--gpu-tool', 'none', '--out', join(out, 'b'), ...node('process.exit(1)')])).code,
    ).toBe(1);
    expect(
      (await cli(['run', '--quiet', '--gpu-tool', 'none', '--out', join(out, 'c'), '--', join(out, 'no-such-command')]))
        .code,
    ).toBe(3);
  }, 30_000);
});

describe('JSON contract: stdout holds only JSON, valid against schemas/', () => {
  it('scan --json: pass, fail with where each detector fired, and a recipe that does not load', async () => {
    const pass = await cli(['scan', '--json', CLEAN]);
    expectValid('scan', onlyJson(pass.out));
    const fail = await cli(['scan', '--format', 'json', '--recipe', NAN_RECIPE, NAN_LOG]);
    const doc = onlyJson(fail.out) as { detectors: unknown[]; tier_durations_ms: { tier4: number } };
    expectValid('scan', doc);
    expect(doc.detectors).toEqual([
      {
        id: 'tier4:nan_signature',
        kind: 'tier4',
        line: 3,
        byte_offset: 39,
        match: 'loss=nan',
        capture: {},
        who: 'user',
        transient: false,
        category: null,
      },
      {
        id: 'custom:nan_loss',
        kind: 'fail',
        line: 3,
        byte_offset: 39,
        match: 'loss=nan',
        capture: { loss: 'nan' },
        who: 'user',
        transient: false,
        category: 'numeric_silent',
      },
    ]);
    expect(Math.round(doc.tier_durations_ms.tier4 * 1000) / 1000).toBe(doc.tier_durations_ms.tier4);
    const bad = await cli(['scan', '--json', '--recipe', INVALID, CLEAN]);
    expect(bad.code).toBe(2);
    const err = onlyJson(bad.out);
    expectValid('scan', err);
    expect(err).toEqual({
      log: CLEAN,
      error: {
        type: 'SandboxError',
        message: expect.stringMatching(/^fixtures\/recipes\/invalid-condition\.yaml:5:68: /),
        detail: 'recipe.custom_patterns[0].match.condition: condition: forbidden AST node: Pow',
        file: INVALID,
        line: 5,
        col: 68,
        node: 'Pow',
      },
    });
  });

  it('check --json: one document for many files, the same error object', async () => {
    const r = await cli(['check', '--json', GOOD, INVALID, 'nope.yaml']);
    const doc = onlyJson(r.out) as {
      valid: boolean;
      files: { file: string; valid: boolean; error: { type: string } | null }[];
    };
    expectValid('check', doc);
    expect(doc.valid).toBe(false);
    expect(doc.files.map((f) => [f.file, f.valid, f.error?.type ?? null])).toEqual([
      [GOOD, true, null],
      [INVALID, false, 'SandboxError'],
      ['nope.yaml', false, 'ReadError'],
    ]);
    expectValid('check', onlyJson((await cli(['check', '--json', FOUR])).out));
  });

  it('usage errors with --json print the error object on stdout, and a short usage on stderr', async () => {
    const r = await cli(['scan', '--json', '--exit-cod', '1', CLEAN]);
    expect(r.code).toBe(2);
    expect(onlyJson(r.out)).toEqual({
      error: {
        type: 'UsageError',
        message: "unknown option '--exit-cod' (did you mean '--exit-code'?)",
        detail: "unknown option '--exit-cod' (did you mean '--exit-code'?)",
        file: null,
        line: null,
        col: null,
        node: null,
      },
    });
    expectValid('scan', onlyJson(r.out));
    expect(r.err).toBe(
      "aorta-probe: scan: unknown option '--exit-cod' (did you mean '--exit-code'?)\n\n" +
        'Usage: aorta-probe scan [--recipe RECIPE] LOG [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]\n' +
        '                        [--format text|json|junit|github]\n' +
        "See 'aorta-probe scan --help'.\n",
    );
  });

  it('eval EXPR --json and eval --jsonl lines: one record shape, `error` always the error object', async () => {
    expect(onlyJson((await cli(['eval', '--json', "capture['x']"])).out)).toEqual({
      valid: true,
      fired: false,
      exception: 'KeyError',
    });
    const rejected = await cli(['eval', '--json', 'exit_code ** 2']);
    expect(rejected.code).toBe(1);
    const doc = onlyJson(rejected.out);
    expectValid('eval', doc);
    expect(doc).toMatchObject({
      valid: false,
      error: {
        type: 'SandboxError',
        detail: 'condition: forbidden AST node: Pow',
        file: null,
        line: 1,
        col: 11,
        node: 'Pow',
      },
    });
    const lines = (await cli(['eval', '--jsonl'], readFileSync('fixtures/demo/conditions.jsonl', 'utf8'))).out
      .trimEnd()
      .split('\n');
    for (const l of lines) expectValid('eval', JSON.parse(l));
  });

  it('usage errors of every command with --json: the error object, valid against error.schema.json', async () => {
    for (const args of [
      ['eval', '--json', '--exit-code', 'x', 'True'],
      ['demo', '--json', '--bogus'],
      ['playground', '--json', '--port', '70000'],
      ['report', '--json'],
      ['run', '--json', '--timeout', '-1', '--', 'true'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      const doc = onlyJson(r.out) as { error: { type: string } };
      expect(ajv.validate('https://aorta-probe.invalid/schemas/error.schema.json', doc.error), args.join(' ')).toBe(
        true,
      );
      expect(doc.error.type).toBe('UsageError');
    }
  });

  it('patterns --json, patterns --version --json and --version --json', async () => {
    expectValid('patterns', onlyJson((await cli(['patterns', '--json'])).out));
    expectValid('patterns', onlyJson((await cli(['patterns', '--version', '--json'])).out));
    expectValid('patterns', onlyJson((await cli(['--version', '--json'])).out));
  });

  it('run --json: result.json object with located detectors; a recipe that does not load is an error object', async () => {
    const out = mkdtempSync(join(tmpdir(), 'aorta-contract-'));
    const r = await cli([
      'run',
      '--json',
      '--gpu-tool',
      'none',
      '--recipe',
      NAN_RECIPE,
      '--out',
      out,
      '--',
      process.execPath,
      '-e',
      'console.log("step 1\\nloss=nan")',
    ]);
    expect(r.code).toBe(1);
    const doc = onlyJson(r.out) as { detectors: unknown[] };
    expectValid('result', doc);
    expectValid('result', JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')));
    expect(doc.detectors).toEqual([
      {
        id: 'tier4:nan_signature',
        kind: 'tier4',
        line: 2,
        byte_offset: 7,
        match: 'loss=nan',
        capture: {},
        who: 'user',
        transient: false,
        category: null,
      },
      {
        id: 'custom:nan_loss',
        kind: 'fail',
        line: 2,
        byte_offset: 7,
        match: 'loss=nan',
        capture: { loss: 'nan' },
        who: 'user',
        transient: false,
        category: 'numeric_silent',
      },
    ]);
    const bad = await cli(['run', '--json', '--recipe', INVALID, '--', 'true']);
    expect(bad.code).toBe(2);
    expectValid('result', onlyJson(bad.out));
  }, 30_000);
});

describe('CI formats', () => {
  const xsd = readFileSync('fixtures/schemas/junit-10.xsd', 'utf8');
  const junitValid = async (xml: string) => {
    const r = await validateXML({
      xml: [{ fileName: 'report.xml', contents: xml }],
      schema: [{ fileName: 'junit-10.xsd', contents: xsd }],
    });
    expect(r.errors.map((e) => e.message)).toEqual([]);
    expect(r.valid).toBe(true);
  };

  it('scan --format junit is valid against the JUnit XSD; a failure names the detectors and their lines', async () => {
    const r = await cli(['scan', '--format', 'junit', '--recipe', NAN_RECIPE, NAN_LOG]);
    expect(r.code).toBe(1);
    await junitValid(r.out);
    expect(r.out).toContain('<testcase name="fixtures/logs/loss-then-nan.txt" classname="aorta-probe.scan"');
    expect(r.out).toContain(
      '<failure type="fail" message="fail: tier4:nan_signature at line 3, custom:nan_loss at line 3">line 3 (byte 39): tier4:nan_signature — loss=nan\nline 3 (byte 39): custom:nan_loss — loss=nan {\'loss\': \'nan\'}\n</failure>',
    );
    await junitValid((await cli(['scan', '--format', 'junit', CLEAN])).out);
  });

  it('JUnit text survives control characters and markup from a log', async () => {
    const { junitXml } = await import('../src/report/junit.js');
    const xml = junitXml({
      name: 'x<&>"',
      timestamp: '2026-01-01T00:00:00Z',
      cases: [
        {
          name: 'a\u0001b',
          classname: 'c',
          time: 0.5,
          outcome: 'error',
          message: 'm\n"',
          details: ']]> \ud800 <x>',
          systemOut: '\u001b[31mred',
        },
      ],
    });
    await junitValid(xml);
    expect(xml).toContain('<error type="error" message="m&#10;&quot;">]]&gt; \ufffd &lt;x&gt;</error>');
  });

  it('run --format junit is valid against the JUnit XSD; error verdicts are <error>', async () => {
    const out = mkdtempSync(join(tmpdir(), 'aorta-contract-'));
    const r = await cli([
      'run',
      '--format',
      'junit',
      '--gpu-tool',
      'none',
      '--out',
      out,
      '--',
      join(out, 'no-such-command'),
    ]);
    expect(r.code).toBe(3);
    await junitValid(r.out);
    expect(r.out).toMatch(/<error type="error" message="error: tier1:/);
  }, 30_000);

  it('scan --format github: one ::error per failure detector, at its line', async () => {
    const r = await cli(['scan', '--format', 'github', '--recipe', NAN_RECIPE, NAN_LOG]);
    expect(r.out).toBe(
      '::error file=fixtures/logs/loss-then-nan.txt,line=3,title=tier4%3Anan_signature::fixtures/logs/loss-then-nan.txt:3: loss=nan\n' +
        "::error file=fixtures/logs/loss-then-nan.txt,line=3,title=custom%3Anan_loss::fixtures/logs/loss-then-nan.txt:3: loss=nan {'loss': 'nan'}\n",
    );
  });

  it('github annotations: at most 10 per level shown; the 11th onward summarised in one', () => {
    const many = (n: number, level: Annotation['level']): Annotation[] =>
      Array.from({ length: n }, (_, i) => ({ level, file: 'a.log', line: i + 1, title: `t${i + 1}`, message: 'm' }));
    expect(githubAnnotations(many(10, 'error')).split('\n').filter(Boolean)).toHaveLength(10);
    const lines = githubAnnotations([...many(12, 'error'), ...many(2, 'warning')])
      .split('\n')
      .filter(Boolean);
    expect(lines.filter((l) => l.startsWith('::error'))).toHaveLength(10);
    expect(lines.at(-1)).toBe('::error title=3 more error annotations::a.log:10: t10%0Aa.log:11: t11%0Aa.log:12: t12');
    expect(githubAnnotations([{ level: 'warning', file: 'a,b:c.yaml', title: '50%', message: 'x\r\ny' }])).toBe(
      '::warning file=a%2Cb%3Ac.yaml,title=50%25::x%0D%0Ay\n',
    );
  });

  it('check --format sarif is valid SARIF 2.1.0 (the official schema), with rule ids, regions and fixes', async () => {
    const r = await cli(['check', '--format', 'sarif', FOUR, INVALID]);
    expect(r.code).toBe(1);
    const sarif = JSON.parse(r.out) as {
      runs: {
        results: {
          ruleId: string;
          level: string;
          locations: { physicalLocation: { region: { startLine: number; startColumn: number } } }[];
          fixes?: { artifactChanges: { replacements: { insertedContent: { text: string } }[] }[] }[];
        }[];
      }[];
    };
    const ajv4 = new AjvDraft04({ strict: false, validateFormats: false });
    const validate = ajv4.compile(JSON.parse(readFileSync('fixtures/schemas/sarif-schema-2.1.0.json', 'utf8')));
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    const results = sarif.runs[0]!.results;
    expect(
      results.map((x) => [
        x.ruleId,
        x.level,
        x.locations[0]!.physicalLocation.region.startLine,
        x.locations[0]!.physicalLocation.region.startColumn,
      ]),
    ).toEqual([
      ['never-fires/str-int-eq', 'warning', 6, 19],
      ['never-fires/key-error', 'warning', 10, 36],
      ['never-fires/type-error', 'warning', 14, 19],
      ['never-fires/type-error', 'warning', 18, 19],
      ['SandboxError', 'error', 5, 68],
    ]);
    expect(results[1]!.fixes![0]!.artifactChanges[0]!.replacements[0]!.insertedContent.text).toBe("capture['loss']");
  });

  it('check --format github: ::warning per lint finding, ::error for an invalid recipe', async () => {
    const r = await cli(['check', '--format', 'github', INVALID]);
    expect(r.out).toBe(
      '::error file=fixtures/recipes/invalid-condition.yaml,line=5,col=68,title=SandboxError::recipe.custom_patterns[0].match.condition: condition: forbidden AST node: Pow\n',
    );
  });
});

describe('where it fired', () => {
  const recipe = loadRecipe('custom_patterns:\n  - id: boom\n    match: {regex: "BOOM (?P<why>\\\\w+)"}\n', 'r.yaml');

  it('scanLog reports the 1-based line and UTF-8 byte offset of each firing match, across windows', () => {
    const log = 'héllo wörld\n'.repeat(50) + 'x hipError_OutOfMemory\n' + '€'.repeat(30) + '\nBOOM late\n';
    // 16-byte windows would cut the 20-byte match: a match must be decided within the overlap.
    for (const windowBytes of [100, 1 << 16]) {
      const r = scanLog(recipe, log, VARS, { windowBytes });
      const hip = Buffer.byteLength('héllo wörld\n'.repeat(50) + 'x ');
      const boom = Buffer.byteLength(log.slice(0, log.indexOf('BOOM')));
      expect(r.detectors, `window ${windowBytes}`).toEqual([
        {
          id: 'tier4:hip_error',
          kind: 'tier4',
          line: 51,
          byte_offset: hip,
          match: 'hipError_OutOfMemory',
          capture: {},
        },
        { id: 'custom:boom', kind: 'fail', line: 53, byte_offset: boom, match: 'BOOM late', capture: { why: 'late' } },
      ]);
    }
  });

  it('a stream gives the same locations as the whole text, also with invalid UTF-8', async () => {
    const bytes = Buffer.concat([Buffer.from('a\n\xff\xfe\n'), Buffer.from('line\r\nBOOM now\n')]);
    const text = new TextDecoder('utf-8').decode(bytes);
    const chunks = [...bytes].map((b) => Uint8Array.of(b));
    const streamed = await scanStream(recipe, chunks, VARS, { windowBytes: 16 });
    expect(streamed.detectors).toEqual(scanLog(recipe, text, VARS, { windowBytes: 16 }).detectors);
    expect(streamed.detectors[0]).toMatchObject({ line: 4 });
  });

  it('scan text output is compiler-style: LOG:LINE: ID — match', async () => {
    const r = await cli(['scan', '--recipe', NAN_RECIPE, NAN_LOG]);
    expect(r.out.split('\n').slice(0, 2)).toEqual([
      'fixtures/logs/loss-then-nan.txt:3: tier4:nan_signature — loss=nan',
      "fixtures/logs/loss-then-nan.txt:3: custom:nan_loss — loss=nan  {'loss': 'nan'}",
    ]);
  });
});

describe('argument layer', () => {
  it('did you mean: commands, flags', async () => {
    expect((await cli(['chek'])).err).toBe(
      "aorta-probe: unknown command 'chek' (did you mean 'check'?)\n\nUsage: aorta-probe <command> [options]\nCommands: eval, check, scan, patterns, list-mitigations, run, sweep, report, bundle, demo, playground, help\nSee 'aorta-probe --help'.\n",
    );
    expect((await cli(['check', '--strickt', GOOD])).err).toMatch(
      /^aorta-probe: check: unknown option '--strickt' \(did you mean '--strict'\?\)\n/,
    );
    expect(closest('scna', ['scan', 'check'])).toBe('scan');
    expect(closest('zzzz', ['scan', 'check'])).toBe(null);
  });

  it("'-' reads stdin for check and --recipe", async () => {
    const recipe = readFileSync(NAN_RECIPE, 'utf8');
    expect(await cli(['check', '-'], recipe)).toEqual({ code: 0, out: '<stdin>: valid (1 custom pattern)\n', err: '' });
    const r = await cli(['scan', '--recipe', '-', NAN_LOG], recipe);
    expect(r.code).toBe(1);
    expect(r.out).toContain('custom:nan_loss');
    expect((await cli(['scan', '--recipe', '-', '-'])).code).toBe(2);
  });

  it('help [CMD], -h and -V', async () => {
    expect((await cli(['help', 'check'])).out).toBe((await cli(['check', '--help'])).out);
    expect((await cli(['help'])).out).toBe((await cli(['-h'])).out);
    expect((await cli(['-V'])).out).toMatch(/^aorta-probe \d+\.\d+\.\d+/);
    expect((await cli(['help', 'chekc'])).err).toMatch(/unknown command 'chekc' \(did you mean 'check'\?\)/);
  });

  it('one number grammar for every option', () => {
    expect(parseNumber('--walltime', '+1.5e3')).toBe(1500);
    expect(parseNumber('--exit-code', '-9', { integer: true })).toBe(-9);
    expect(() => parseNumber('--walltime', 'inf')).toThrow("--walltime must be a finite number, got 'inf'");
    expect(() => parseNumber('--timeout', '-1', { positive: true, unit: 'seconds' })).toThrow(
      "--timeout must be a positive number of seconds, got '-1'",
    );
    expect(() => parseNumber('--exit-code', '0x10', { integer: true })).toThrow(
      "--exit-code must be an integer, got '0x10'",
    );
  });

  it('the progress line shows percentage, rate and ETA when the size is known', () => {
    expect(progressText(512 * 1024, 1000, 2 * 1024 * 1024)).toBe(
      'scanned 512.0 KiB of 2.0 MiB (25%) · 512.0 KiB/s · ETA 3s',
    );
    expect(progressText(512 * 1024, 1000, null)).toBe('scanned 512.0 KiB · 512.0 KiB/s');
  });
});
