/**
 * `repr(capture)` keeps insertion order on every CLI path (issue 13 §1), against the CPython golden
 * fixtures/capture/golden-capture-order.jsonl (scripts/gen_capture_order_golden.py):
 *   - `eval EXPR --capture NAME=VALUE...`: the options' order;
 *   - `eval --jsonl`: the order the line's JSON object wrote the keys in (as `json.loads`);
 *   - `scan` and `run`: the regex's named groups in the pattern's order.
 * A JavaScript object would list integer-like keys such as "0" first.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readGoldenJsonl } from './support/goldens.js';
import { cliInProcess as cli } from './support/run-cli.js';
import { onePatternYaml } from './support/recipes.js';

interface DictCase {
  entries: [string, string][];
  repr: string;
  len: number;
}
interface RegexCase {
  regex: string;
  text: string;
  repr: string;
  len: number;
}
interface BadName {
  regex: string;
  error: string;
  pos: number;
}
type Golden = Partial<DictCase & RegexCase & BadName>;

const { meta, records } = readGoldenJsonl<Golden>('fixtures/capture/golden-capture-order.jsonl');
const dicts = records.filter((r): r is DictCase => r.entries !== undefined);
const regexes = records.filter((r): r is RegexCase => r.regex !== undefined && r.text !== undefined);
const badNames = records.filter((r): r is BadName => r.error !== undefined);

const root = mkdtempSync(join(tmpdir(), 'aorta-capture-order-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A recipe with one custom pattern (no condition) and a log holding `text`; returns their paths. */
function recipeAndLog(regex: string, text: string): { recipe: string; log: string } {
  const dir = join(root, `c${++n}`);
  const recipe = `${dir}.yaml`;
  const log = `${dir}.log`;
  writeFileSync(recipe, onePatternYaml({ regex, onMatch: 'warn' }));
  writeFileSync(log, `${text}\n`);
  return { recipe, log };
}

/** The `capture: {…}` line of a human-readable scan or run report. */
const captureLine = (out: string): string | undefined => out.split('\n').find((l) => l.startsWith('capture: '));

describe('repr(capture) on the CLI paths keeps insertion order (CPython golden)', () => {
  it('has the generator header and each kind of case', () => {
    expect(meta).toMatchObject({ generator: 'scripts/gen_capture_order_golden.py' });
    expect(dicts.length).toBeGreaterThanOrEqual(30);
    expect(dicts.some((d) => d.entries.some(([k]) => /^\d+$/.test(k)))).toBe(true);
    expect(regexes.length).toBeGreaterThanOrEqual(5);
    expect(badNames.length).toBeGreaterThanOrEqual(3);
  });

  // --capture takes NAME=VALUE once per NAME: an empty name, one with '=' or a repeated one cannot be given.
  const expressible = dicts.filter(
    (d) =>
      d.entries.every(([k]) => k !== '' && !k.includes('=')) &&
      new Set(d.entries.map(([k]) => k)).size === d.entries.length,
  );
  it.each(expressible)('eval --capture: $repr', async ({ entries, repr, len }) => {
    const args = entries.flatMap(([k, v]) => ['--capture', `${k}=${v}`]);
    expect(await cli(['eval', 'capture', ...args])).toEqual({
      code: len > 0 ? 0 : 1,
      out: `value: ${repr}\ntype:  dict\nfired: ${len > 0 ? 'yes' : 'no'}\n`,
      err: '',
    });
  });

  it('eval --capture covers most of the golden', () => {
    expect(expressible.length).toBeGreaterThanOrEqual(dicts.length - 3);
  });

  it('eval --jsonl: each line in the order its object wrote the keys (repeated keys included)', async () => {
    // Written by hand: JSON.stringify of an object would already have moved the integer-like keys.
    const obj = (entries: [string, string][]): string =>
      `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
    const input = dicts
      .map(
        (d) =>
          `{"condition": "capture", "capture": ${obj(d.entries)}, "exit_code": 0, "walltime_sec": 1.5, "peak_vram_mib": null}\n`,
      )
      .join('');
    const r = await cli(['eval', '--jsonl'], input);
    expect(r.err).toBe('');
    expect(r.out.split('\n').slice(0, -1)).toEqual(
      dicts.map((d) => JSON.stringify({ valid: true, fired: d.len > 0, value: { type: 'dict', repr: d.repr } })),
    );
  });

  it('eval --jsonl: nested values and a "capture" key inside another field do not confuse the order', async () => {
    const line =
      '{"exit_code": 0, "x": {"capture": {"z": "1"}, "a": [1, {"b": "]"}]}, "capture": {"b": "1", "0": "2"}, ' +
      '"condition": "capture", "walltime_sec": 0, "peak_vram_mib": null}\n';
    const r = await cli(['eval', '--jsonl'], line);
    expect(r.out).toBe(
      `${JSON.stringify({ valid: true, fired: true, value: { type: 'dict', repr: "{'b': '1', '0': '2'}" } })}\n`,
    );
  });

  it.each(regexes)('scan: $regex on $text → $repr', async ({ regex, text, repr }) => {
    const { recipe, log } = recipeAndLog(regex, text);
    const r = await cli(['scan', '--recipe', recipe, log]);
    expect(r.err).toBe('');
    expect(captureLine(r.out)).toBe(`capture: ${repr}`);
  });

  it.each(regexes)(
    'run: $regex on $text → $repr',
    async ({ regex, text, repr }) => {
      const { recipe } = recipeAndLog(regex, text);
      const out = join(root, `run${++n}`);
      const r = await cli([
        'run',
        '--recipe',
        recipe,
        '--out',
        out,
        '--gpu-tool',
        'none',
        '--',
        'node',
        '-e',
        `console.log(${JSON.stringify(text)})`,
      ]);
      expect(captureLine(r.out)).toBe(`capture: ${repr}`);
    },
    30_000,
  );

  // re rejects these, so no capture key is integer-like. A name RE2 takes (`0`) gets re's message;
  // the others RE2 refuses first, with its hint.
  const RE2_HINT = 'hint: group names must be ASCII letters, digits and _ (not starting with a digit)';
  it.each(badNames)(
    'a group name that is not an identifier is rejected as re does: $regex',
    async ({ regex, error }) => {
      const { recipe, log } = recipeAndLog(regex, 'x');
      const r = await cli(['scan', '--recipe', recipe, log]);
      expect(r.code).toBe(2);
      expect(r.err.includes(`invalid regex (${error}`) || r.err.includes(RE2_HINT), r.err).toBe(true);
      if (/^\(\?P<\d+>/.test(regex)) expect(r.err).toContain(`invalid regex (${error}`);
    },
  );
});
