import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';

async function check(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runCli(['check', ...args], { stdin: new PassThrough(), stdout, stderr });
  return { code, out, err };
}

const GOOD = 'fixtures/recipes/example-probe-smoke.yaml';
const BAD = 'fixtures/recipes/invalid-condition.yaml';

describe('aorta-probe check', () => {
  it('reports a valid recipe with its pattern count, exit 0', async () => {
    expect(await check(GOOD)).toEqual({ code: 0, out: `${GOOD}: valid (2 custom patterns)\n`, err: '' });
    expect(JSON.parse((await check(GOOD, '--json')).out)).toEqual({ valid: true, file: GOOD, custom_patterns: 2 });
  });

  it("points a condition's forbidden node at its line and column in the YAML file, exit 1", async () => {
    const r = await check(BAD);
    expect(r.code).toBe(1);
    expect(r.out).toBe(
      `${BAD}:5:68: recipe.custom_patterns[0].match.condition: condition: forbidden AST node: Pow\n` +
        `        condition: "math.isnan(float(capture['loss'])) and exit_code ** 2"\n` +
        `                                                                     ^^\n`,
    );
    const json = JSON.parse((await check(BAD, '--json')).out) as { valid: boolean; error: Record<string, unknown> };
    expect(json.valid).toBe(false);
    expect(json.error).toMatchObject({
      type: 'SandboxError',
      node: 'Pow',
      line: 5,
      col: 68,
      reason: 'recipe.custom_patterns[0].match.condition: condition: forbidden AST node: Pow',
    });
  });

  it('usage errors and unreadable files exit 2', async () => {
    const missing = await check();
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^aorta-probe: check: missing RECIPE\n/);
    expect((await check(GOOD, '--bogus')).code).toBe(2);
    const unreadable = await check('fixtures/recipes/does-not-exist.yaml');
    expect(unreadable.code).toBe(2);
    expect(unreadable.err).toMatch(/^aorta-probe check: cannot read fixtures\/recipes\/does-not-exist\.yaml: ENOENT/);
  });

  it('--help tells the truth about the command', async () => {
    const r = await check('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: aorta-probe check RECIPE \[--json\]/);
  });
});
