/**
 * Issue 35 §5: a rejected condition carries a one-line hint for the constructs authors commonly try. The hint is
 * its own field: `detail`, `message` and (from the loader) `reason` keep CPython's and the original's text.
 */
import { describe, expect, it } from 'vitest';
import { SandboxError, withHint } from '../src/condition/errors.js';
import { validateCondition } from '../src/condition/validate.js';
import { loadRecipe } from '../src/recipe/index.js';
import { onePatternYaml } from './support/recipes.js';

function rejection(text: unknown): SandboxError {
  try {
    validateCondition(text);
  } catch (e) {
    if (e instanceof SandboxError) return e;
    throw e;
  }
  throw new Error(`accepted: ${String(text)}`);
}

describe('hints for commonly rejected conditions', () => {
  it.each([
    [
      "'oom' in capture['msg']",
      'condition: forbidden AST node: In',
      "`in` is not allowed: put the substring in the regex (e.g. `(?P<msg>.*out of memory.*)`); for one of a few values write `x == 'a' or x == 'b'`",
    ],
    [
      "capture['m'] not in 'abc'",
      'condition: forbidden AST node: NotIn',
      "`not in` is not allowed: put the text you expect in the regex instead of excluding it here; for none of a few values write `x != 'a' and x != 'b'`",
    ],
    [
      "capture['lvl'].lower() == 'error'",
      "condition: forbidden call: capture['lvl'].lower",
      'string methods are not allowed: for a case-insensitive match start the regex with `(?i)` (e.g. `(?i)(?P<level>error)`) and compare the capture as it is',
    ],
    [
      "capture['lvl'].upper() == 'ERROR'",
      "condition: forbidden call: capture['lvl'].upper",
      'string methods are not allowed: for a case-insensitive match start the regex with `(?i)` (e.g. `(?i)(?P<level>error)`) and compare the capture as it is',
    ],
    [
      "capture['lvl'].casefold() == 'error'",
      "condition: forbidden call: capture['lvl'].casefold",
      'string methods are not allowed: for a case-insensitive match start the regex with `(?i)` (e.g. `(?i)(?P<level>error)`) and compare the capture as it is',
    ],
    [
      "capture['m'].startswith('NCCL')",
      "condition: forbidden call: capture['m'].startswith",
      'string methods are not allowed: anchor the text in the regex instead (e.g. `(?P<msg>NCCL.*)` for a prefix, `(?P<msg>.*timeout)` for a suffix)',
    ],
    [
      "capture['m'].endswith('timeout')",
      "condition: forbidden call: capture['m'].endswith",
      'string methods are not allowed: anchor the text in the regex instead (e.g. `(?P<msg>NCCL.*)` for a prefix, `(?P<msg>.*timeout)` for a suffix)',
    ],
    [
      "capture['m'].strip() == 'x'",
      "condition: forbidden call: capture['m'].strip",
      'string methods are not allowed: capture exactly the part you need in the regex (e.g. `step (?P<step>\\d+)`) and compare that',
    ],
    [
      "len(capture['m'].split()) > 2",
      "condition: forbidden call: capture['m'].split",
      'string methods are not allowed: capture exactly the part you need in the regex (e.g. `step (?P<step>\\d+)`) and compare that',
    ],
    [
      "f'{exit_code}' == '0'",
      'condition: forbidden AST node: JoinedStr',
      "f-strings are not allowed (a condition builds no strings): compare the capture itself, e.g. `capture['rank'] == '0'`",
    ],
    ...['[x for x in capture]', '{x for x in capture}', '{k: 1 for k in capture}', 'len(x for x in capture)'].map(
      (c) => [
        c,
        `condition: forbidden AST node: ${c.startsWith('[') ? 'ListComp' : c.startsWith('len') ? 'GeneratorExp' : c.includes(':') ? 'DictComp' : 'SetComp'}`,
        "comprehensions are not allowed (a condition has no loops): test this match's values directly and combine them with `and` / `or`",
      ],
    ),
    [
      'any(x for x in capture)',
      'condition: forbidden call: any',
      '`any()` and `all()` are not allowed (a condition has no loops): combine the tests with `or` and `and`',
    ],
    [
      'lambda x: x',
      'condition: forbidden AST node: Lambda',
      '`lambda` is not allowed (a condition defines no functions): write the test itself',
    ],
    [
      'exit_code is None',
      'condition: forbidden AST node: Is',
      '`is` and `is not` are not allowed: compare values with `==` and `!=`',
    ],
    [
      "capture.get('x') == '1'",
      'condition: forbidden call: capture.get',
      "method calls are not allowed: read a group as `capture['name']`",
    ],
    ['capture.loss', 'condition: forbidden attribute access: capture.loss', "read a group as `capture['loss']`"],
    [
      'walltime_sec > math.pi',
      'condition: forbidden attribute access: math.pi',
      'only `math.isnan` and `math.isinf` can be used from `math`: write `3.141592653589793` for `math.pi`',
    ],
    [
      'exitcode == 0',
      'condition: forbidden name: exitcode',
      "names in scope: capture, exit_code, walltime_sec, peak_vram_mib, math, float, int, len (did you mean 'exit_code'?)",
    ],
    [
      'loss > 1',
      'condition: forbidden name: loss',
      "names in scope: capture, exit_code, walltime_sec, peak_vram_mib, math, float, int, len; a regex group is read as `capture['loss']`",
    ],
    ['exit_code == null', 'condition: forbidden name: null', 'Python spells these `True`, `False` and `None`'],
    [
      "str(exit_code) == '0'",
      'condition: forbidden call: str',
      "`str()` is not allowed: a capture is already a str, so compare it with a string (`capture['code'] == '137'`)",
    ],
    ["isnan(float(capture['loss']))", 'condition: forbidden call: isnan', 'write `math.isnan(…)`'],
    [
      "re.search('x', capture['m'])",
      'condition: forbidden call: re.search',
      "a condition cannot run a regex: put the test in the pattern's regex, whose named groups arrive as `capture['name']`",
    ],
    [
      "capture['x'][:3] == 'abc'",
      'condition: subscript only allowed on capture[...]',
      "only `capture['name']` can be subscripted: to read part of a value, capture that part as its own group in the regex",
    ],
    [
      'exit_code == (1, 2)',
      'condition: forbidden AST node: Tuple',
      'tuples, lists, sets and dicts are not allowed: compare one value at a time, e.g. `x == 1 or x == 2`',
    ],
    [
      '2 * walltime_sec > 60',
      'condition: forbidden AST node: Mult',
      '`*` is not allowed (it also repeats strings): divide the other side instead, e.g. `a > b / 2` for `2 * a > b`',
    ],
    [
      "int(capture['x'], base=16) > 0",
      'condition: forbidden AST node: keyword',
      "keyword arguments are not allowed: pass arguments by position, e.g. `int(capture['x'], 16)`",
    ],
    [
      'exit_code == 1 | exit_code == 2',
      'condition: forbidden AST node: BitOr',
      '`|` is not allowed: for logic write `or`',
    ],
    [
      'exit_code != 0 && walltime_sec > 60',
      'condition: syntax error: invalid syntax (line 1, col 17)',
      'Python writes `and`, `or` and `not` for `&&`, `||` and `!`',
    ],
  ])('%s', (text, detail, hint) => {
    const err = rejection(text);
    expect(err.detail).toBe(detail);
    expect(err.hint).toBe(hint);
    expect(err.message).not.toContain('hint');
  });

  it('object-graph walks and plain syntax errors get no hint', () => {
    expect(rejection("capture['x'].__class__").hint).toBeNull();
    expect(rejection('(0).__class__.__bases__[0].__subclasses__()').hint).toBeNull();
    expect(rejection("exit_code == 'a!' +").hint).toBeNull();
    expect(rejection('').hint).toBeNull();
  });

  it('leaves the message byte for byte, and withHint adds the hint as the last line', () => {
    const err = rejection("'oom' in capture['msg']");
    const message =
      'condition: forbidden AST node: In (In at line 1, col 7)\n' + "  'oom' in capture['msg']\n" + '        ^^';
    expect(err.message).toBe(message);
    expect(withHint(err)).toBe(
      `${message}\n  hint: \`in\` is not allowed: put the substring in the regex (e.g. \`(?P<msg>.*out of memory.*)\`); for one of a few values write \`x == 'a' or x == 'b'\``,
    );
    const plain = rejection("capture['x'].__class__");
    expect(withHint(plain)).toBe(plain.message);
  });

  it('a condition rejected in a recipe keeps the hint, with reason and message unchanged', () => {
    const text = onePatternYaml({ regex: 'CUDA error: (?P<msg>.*)', condition: "'out of memory' in capture['msg']" });
    let err: unknown;
    try {
      loadRecipe(text, 'r.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SandboxError);
    const e = err as SandboxError & { reason: string };
    expect(e.reason).toBe('recipe.custom_patterns[0].match.condition: condition: forbidden AST node: In');
    expect(e.message.split('\n')[0]).toMatch(
      /^r\.yaml:\d+:\d+: recipe\.custom_patterns\[0\]\.match\.condition: condition: forbidden AST node: In$/,
    );
    expect(e.message).not.toContain('hint');
    expect(e.hint).toBe(
      "`in` is not allowed: put the substring in the regex (e.g. `(?P<msg>.*out of memory.*)`); for one of a few values write `x == 'a' or x == 'b'`",
    );
    expect(withHint(e).split('\n').at(-1)).toBe(`  hint: ${e.hint}`);
  });

  it('a non-string condition is told to quote it', () => {
    expect(rejection(5).hint).toBe('quote the expression in the YAML, e.g. `condition: "exit_code != 0"`');
  });
});
