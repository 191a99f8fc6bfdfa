import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_EXPR_LEN, MAX_INT_CONSTANT, RecipeSchemaError, SandboxError, validateCondition } from '../src/index.js';

function rejection(text: unknown): SandboxError {
  try {
    validateCondition(text);
  } catch (e) {
    if (e instanceof SandboxError) return e;
    throw e;
  }
  throw new Error(`accepted: ${JSON.stringify(text)}`);
}

// The hostile corpus, read as the original test reads it.
const hostile = readFileSync(new URL('../fixtures/conditions/hostile.txt', import.meta.url), 'utf8')
  .split(/\r?\n/)
  .filter((line) => line.trim() !== '');

// First error for every hostile line, derived by running the original walker under CPython 3.11
// (the original's src/aorta/probe/sandbox.py (ROCm/aorta)).
const HOSTILE_FIRST_ERROR: [string, string][] = [
  ['Call', "condition: forbidden call: __import__('os').system"],
  ['Call', 'condition: forbidden call: 0 .__class__.__bases__[0].__subclasses__'],
  ['Subscript', 'condition: subscript only allowed on capture[...]'],
  ['Call', "condition: forbidden call: open('/etc/passwd').read"],
  ['Call', 'condition: forbidden call: exec'],
  ['Call', 'condition: forbidden call: eval'],
  ['Lambda', 'condition: forbidden AST node: Lambda'],
  ['ListComp', 'condition: forbidden AST node: ListComp'],
  ['DictComp', 'condition: forbidden AST node: DictComp'],
  ['Call', 'condition: forbidden call: capture.update'],
  ['Call', 'condition: forbidden call: type'],
  ['Call', "condition: forbidden call: getattr(capture, 'pop')"],
  ['Attribute', "condition: forbidden attribute access: capture['x'].__class__"],
  ['Call', 'condition: forbidden call: math.__loader__.load_module'],
  ['Pow', 'condition: forbidden AST node: Pow'],
  ['Mult', 'condition: forbidden AST node: Mult'],
  ['Mod', 'condition: forbidden AST node: Mod'],
  ['Mult', 'condition: forbidden AST node: Mult'],
  ['In', 'condition: forbidden AST node: In'],
];

describe('hostile corpus', () => {
  it('has the 19 lines of the newest original (1081 characters)', () => {
    expect(hostile).toHaveLength(19);
    expect(readFileSync(new URL('../fixtures/conditions/hostile.txt', import.meta.url), 'utf8')).toHaveLength(1081);
  });

  it.each(hostile.map((line, i) => [line, ...HOSTILE_FIRST_ERROR[i]!] as const))(
    'rejects %s with %s',
    (line, node, detail) => {
      const err = rejection(line);
      expect(err.node).toBe(node);
      expect(err.detail).toBe(detail);
    },
  );
});

describe('allowed worked examples', () => {
  it.each([
    "math.isnan(float(capture['loss']))",
    'walltime_sec > 60 and peak_vram_mib > 0',
    "exit_code == 137 and len(capture['msg']) > 0",
    "int(capture['code']) == 137",
    '(1 if exit_code != 0 else 0) or (walltime_sec > 0)',
    'math.isnan',
    '1 < exit_code < 3',
    'capture[0] == capture[exit_code]',
    '1.5e12 > walltime_sec',
  ])('accepts %s', (text) => {
    expect(validateCondition(text).source).toBe(text);
  });

  it('returns the stripped source and a CPython-shaped tree', () => {
    const checked = validateCondition("  int(capture['code']) == 137\n");
    expect(checked.source).toBe("int(capture['code']) == 137");
    const body = checked.tree.body;
    expect(body.type).toBe('Compare');
    if (body.type !== 'Compare') return;
    expect(body.ops.map((o) => o.type)).toEqual(['Eq']);
    expect(body.left.type).toBe('Call');
    expect(body.comparators[0]).toMatchObject({ type: 'Constant', value: { kind: 'int', value: 137n } });
    expect(body.loc).toEqual({ line: 1, col: 1, endLine: 1, endCol: 28 });
  });
});

describe('length, emptiness and type', () => {
  it('caps the stripped length at 256 code points', () => {
    expect(MAX_EXPR_LEN).toBe(256);
    const ok = `exit_code == 1${' + 1'.repeat(60)}`.padEnd(256, ' ').replace(/ +$/, '');
    const at256 = `${'1 + '.repeat(63)}1   `; // 253 chars
    expect(validateCondition(`   ${ok}   `).source).toBe(ok);
    const exactly256 = `(${at256.trim()})`.padEnd(256, '#');
    expect([...exactly256]).toHaveLength(256);
    expect(validateCondition(`\n ${exactly256} \t`).source).toBe(exactly256);
    const err = rejection(`${exactly256}#`);
    expect(err.kind).toBe('too-long');
    expect(err.node).toBeNull();
    expect(err.detail).toBe(
      'condition: expression length 257 exceeds the 256-character cap (rejected before ast.parse to bound parse-time work)',
    );
    expect([err.line, err.col]).toEqual([1, 257]);
  });

  it('counts code points, not UTF-16 units', () => {
    const astral = `capture['${'😀'.repeat(200)}'] == '${'😀'.repeat(30)}'`;
    expect([...astral]).toHaveLength(247);
    expect(astral.length).toBeGreaterThan(256);
    expect(() => validateCondition(astral)).not.toThrow();
  });

  it('rejects the original length-cap test input', () => {
    expect(rejection(`1${' + 1'.repeat(70)}`).detail).toMatch(/^condition: expression length 281 exceeds/);
  });

  it.each(['', '   ', '\n\t', '\x1c\x1d\x1e\x1f\x85\u3000'])('rejects empty %j', (text) => {
    const err = rejection(text);
    expect(err.kind).toBe('empty');
    expect(err.detail).toBe('condition: expression must be non-empty');
    expect(err.node).toBeNull();
  });

  it('strips what Python strips, not what JS trims', () => {
    // U+FEFF is not whitespace to Python: it stays and is an invalid character.
    expect(rejection('\ufeffexit_code').detail).toBe(
      'condition: syntax error: invalid non-printable character U+FEFF (line 1, col 1)',
    );
    expect(validateCondition('\x1cexit_code\x85').source).toBe('exit_code');
  });

  it.each([
    [42, 'int'],
    [true, 'bool'],
    [1.5, 'float'],
    [null, 'NoneType'],
    [['x'], 'list'],
    [{ a: 1 }, 'dict'],
  ])('rejects the non-string %j', (value, name) => {
    const err = rejection(value);
    expect(err.kind).toBe('not-a-string');
    expect(err.detail).toBe(`condition: must be a string, got ${name}`);
  });
});

describe('integer constant cap', () => {
  it('accepts 999999999 and rejects 10**9 in every spelling', () => {
    expect(MAX_INT_CONSTANT).toBe(1_000_000_000);
    expect(() => validateCondition('exit_code == 999999999')).not.toThrow();
    expect(() => validateCondition('exit_code == -999999999')).not.toThrow();
    for (const text of [
      'exit_code == 1000000000',
      'exit_code == -1000000000',
      'exit_code == 0x3B9ACA00',
      'exit_code == 1_000_000_000',
      'exit_code == 0o7346545000',
      'exit_code == 0b111011100110101100101000000000',
      'exit_code == 123456789012345678901234567890',
    ]) {
      const err = rejection(text);
      expect(err.node, text).toBe('Constant');
      expect(err.kind).toBe('int-constant');
    }
    expect(rejection('exit_code == 1000000000').detail).toBe(
      'condition: integer constant magnitude 1000000000 >= 1000000000 (rejected to prevent resource exhaustion)',
    );
  });

  it('does not cap floats, complex numbers or bools', () => {
    for (const text of [
      'walltime_sec > 1e300',
      'walltime_sec > 1000000000.0',
      'exit_code == True',
      'walltime_sec != 1000000000j',
    ]) {
      expect(() => validateCondition(text), text).not.toThrow();
    }
  });
});

describe('walker order and node names', () => {
  it.each([
    ['(1,) * 999999998', 'Tuple', 'condition: forbidden AST node: Tuple'],
    ['exit_code is None', 'Is', 'condition: forbidden AST node: Is'],
    ['float(x=1)', 'keyword', 'condition: forbidden AST node: keyword'],
    ['len(*capture)', 'Starred', 'condition: forbidden AST node: Starred'],
    ["f'{exit_code}'", 'JoinedStr', 'condition: forbidden AST node: JoinedStr'],
    ['x', 'Name', 'condition: forbidden name: x'],
    ["capture.get('x')", 'Call', 'condition: forbidden call: capture.get'],
    ['math.pi', 'Attribute', 'condition: forbidden attribute access: math.pi'],
    ["capture['a']['b']", 'Subscript', 'condition: subscript only allowed on capture[...]'],
    ["'abc'[0]", 'Subscript', 'condition: subscript only allowed on capture[...]'],
    ['2 ** 31', 'Pow', 'condition: forbidden AST node: Pow'],
    ["10 ** int(capture['exp'])", 'Pow', 'condition: forbidden AST node: Pow'],
    ['exit_code % 2', 'Mod', 'condition: forbidden AST node: Mod'],
    ['(x := 1)', 'NamedExpr', 'condition: forbidden AST node: NamedExpr'],
    ['~exit_code', 'Invert', 'condition: forbidden AST node: Invert'],
    ['exit_code << 1', 'LShift', 'condition: forbidden AST node: LShift'],
    ["capture['x'] not in 'abc'", 'NotIn', 'condition: forbidden AST node: NotIn'],
    ['ｅｘｉｔ_code is 1', 'Is', 'condition: forbidden AST node: Is'],
    ['Ｔｒｕｅ', 'Name', 'condition: forbidden name: True'],
  ])('%s → %s', (text, node, detail) => {
    const err = rejection(text);
    expect(err.node).toBe(node);
    expect(err.detail).toBe(detail);
  });

  it('normalises identifiers with NFKC, as CPython does', () => {
    const tree = validateCondition('ｅｘｉｔ_code == 0').tree;
    expect(tree.body).toMatchObject({ type: 'Compare', left: { type: 'Name', id: 'exit_code' } });
  });
});

describe('errors', () => {
  it('are SandboxError < RecipeSchemaError < Error', () => {
    const err = rejection('lambda x: x');
    expect(err).toBeInstanceOf(RecipeSchemaError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('SandboxError');
  });

  it('show the expression with a caret under the offending node', () => {
    const err = rejection("exit_code == 0 and capture['x'].__class__");
    expect([err.node, err.line, err.col]).toEqual(['Attribute', 1, 20]);
    expect(err.message).toBe(
      "condition: forbidden attribute access: capture['x'].__class__ (Attribute at line 1, col 20)\n" +
        "  exit_code == 0 and capture['x'].__class__\n" +
        '                     ^^^^^^^^^^^^^^^^^^^^^^',
    );
  });

  it('point at an operator token for a forbidden operator', () => {
    const err = rejection('exit_code ** 2');
    expect([err.node, err.line, err.col, err.endCol]).toEqual(['Pow', 1, 11, 13]);
    expect(err.message.split('\n')[2]).toBe('            ^^');
  });

  it('messages CPython gives without a position, or with column 0 at the end of input, say so', () => {
    // CPython 3.11: ast.parse raises these with lineno None / offset 0; the caret still points in.
    const nul = rejection('exit_code\0');
    expect(nul.detail).toBe(
      'condition: syntax error: source code string cannot contain null bytes (line None, col None)',
    );
    expect([nul.line, nul.col]).toEqual([1, 1]);
    const eof = rejection('exit_code ==');
    expect(eof.detail).toBe('condition: syntax error: invalid syntax (line 1, col 0)');
    expect([eof.line, eof.col]).toEqual([1, 13]);
  });

  it('point into later lines of a multi-line expression', () => {
    const err = rejection('(exit_code == 1 and\n   walltime_sec @ 2)');
    expect([err.node, err.line, err.col]).toEqual(['MatMult', 2, 17]);
    expect(err.message.split('\n').slice(1)).toEqual(['     walltime_sec @ 2)', '                  ^']);
  });

  it.each([
    ['capture[', "'[' was never closed", 1, 8],
    ['(', "'(' was never closed", 1, 1],
    [')', "unmatched ')'", 1, 1],
    ["'abc", 'unterminated string literal (detected at line 1)', 1, 1],
    ['07', 'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers', 1, 1],
    ['1__0', 'invalid decimal literal', 1, 2],
    ['0b102', "invalid digit '2' in binary literal", 1, 5],
    ['exit_code €', "invalid character '€' (U+20AC)", 1, 11],
    ["'a' b'b'", 'cannot mix bytes and nonbytes literals', 1, 8],
    [
      "'\\N{NO SUCH NAME}'",
      "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-15: unknown Unicode character name",
      1,
      18,
    ],
    ["f'{'", "f-string: expecting '}'", 1, 4],
    // The second pass: CPython's invalid_* rules, with CPython's own positions.
    ['(exit_code = 137)', "invalid syntax. Maybe you meant '==' or ':=' instead of '='?", 1, 2],
    ["(capture['x'] = 1)", "cannot assign to subscript here. Maybe you meant '==' instead of '='?", 1, 2],
    ["float(capture['x']=1)", 'expression cannot contain assignment, perhaps you meant "=="?', 1, 7],
    ["float(capture['x'] 1)", 'invalid syntax. Perhaps you forgot a comma?', 1, 7],
    ['exit_code == 1 if 2', "expected 'else' after 'if' expression", 1, 1],
    ['print exit_code', "Missing parentheses in call to 'print'. Did you mean print(...)?", 1, 1],
    // The legacy check compares the NFKC-normalised name, as CPython's Name id is.
    ['f(**a, ｐrint [1])', "Missing parentheses in call to 'print'. Did you mean print(...)?", 1, 8],
    ['len(x for x in capture, 1)', 'Generator expression must be parenthesized', 1, 5],
    ['(exit_code.real := 1)', 'cannot use assignment expressions with attribute', 1, 2],
    ['float(**capture, *capture)', 'iterable argument unpacking follows keyword argument unpacking', 1, 18],
    // A bracket left open on an earlier line replaces the second pass's message, unless the last
    // token fetched ends the input: scanning it set the tokenizer's E_EOF, and CPython then skips
    // the check of the rest of the source.
    ['[\nexit_code 1,', 'invalid syntax. Perhaps you forgot a comma?', 2, 1],
    ['[\nexit_code if 1,', "expected 'else' after 'if' expression", 2, 1],
    ['[\n(*exit_code),', "'[' was never closed", 1, 1],
    // The generic error is compared with the last token either pass fetched (`p->tokens[p->fill - 1]`).
    ['exit_code {.,', 'invalid syntax', 1, 11],
    ['exit_code {\n.,', "'{' was never closed", 1, 11],
    ['exit_code = 137', 'invalid syntax', 1, 11],
    ['exit_code == 1 and or 2', 'invalid syntax', 1, 20],
    // dict's '{' invalid_double_starred_kvpairs '}' does not start with an invalid rule, so pegen
    // runs it in the first pass too (nested expressions without the invalid rules), and the error it
    // raises there is final: the key after the first pair gets no comma or 'else' hint.
    ["{'a': 1, capture 'b'}", "':' expected after dictionary key", 1, 16],
    ['{**capture, exit_code if 1}', "':' expected after dictionary key", 1, 21],
    ["{'a': 1, float(capture 'b')}", "':' expected after dictionary key", 1, 14],
    ["{'a': 1, (capture 1)}", 'invalid syntax. Perhaps you forgot a comma?', 1, 11],
    ['{capture 1}', 'invalid syntax. Perhaps you forgot a comma?', 1, 2],
    ["{'a': 1, 'b': capture 1}", 'invalid syntax. Perhaps you forgot a comma?', 1, 15],
  ])('syntax error for %j: %s', (text, msg, line, col) => {
    const err = rejection(text);
    expect(err.kind).toBe('syntax');
    expect(err.node).toBeNull();
    expect(err.detail).toBe(`condition: syntax error: ${msg} (line ${line}, col ${col})`);
    expect([err.line, err.col]).toEqual([line, col]);
  });

  it('reject a lone surrogate instead of crashing like the original', () => {
    const err = rejection('capture["\ud800"]');
    expect(err.kind).toBe('syntax');
    expect(err.detail).toContain('surrogates not allowed');
  });
});
