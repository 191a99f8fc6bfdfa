import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../src/condition/errors.js';
import { compileCondition } from '../src/condition/evaluate.js';
import type { CompileFn, ConditionEvaluator } from '../src/cli/condition-cache.js';
import { evalJsonl, type EvalJsonlOptions, type EvalJsonlSummary } from '../src/cli/eval-jsonl.js';
import { runCli } from '../src/cli/main.js';

// ---------------------------------------------------------------------------------------------
// helpers

/** Collects everything written, as one string. */
class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.text += chunk.toString('utf8');
    cb();
  }
}

/** Runs evalJsonl in-process; `input` chunks are fed exactly as given. Returns output lines and the summary. */
async function runWithSummary(
  input: string | Buffer | (string | Buffer)[],
  options: EvalJsonlOptions = {},
): Promise<{ lines: string[]; summary: EvalJsonlSummary }> {
  const chunks = (Array.isArray(input) ? input : [input]).map((c) =>
    typeof c === 'string' ? Buffer.from(c, 'utf8') : c,
  );
  const sink = new Sink();
  const summary = await evalJsonl(Readable.from(chunks), sink, options);
  expect(sink.text === '' || sink.text.endsWith('\n')).toBe(true);
  return { lines: sink.text === '' ? [] : sink.text.slice(0, -1).split('\n'), summary };
}

/** Runs evalJsonl in-process; returns the output lines. */
async function run(input: string | Buffer | (string | Buffer)[], options: EvalJsonlOptions = {}): Promise<string[]> {
  return (await runWithSummary(input, options)).lines;
}

/** A well-formed input object; `over` replaces or (with undefined) removes fields. */
function record(over: Record<string, unknown> = {}): string {
  const base: Record<string, unknown> = {
    condition: 'exit_code == 137',
    capture: { msg: 'Killed process 4242 (python3)' },
    exit_code: 137,
    walltime_sec: 12.5,
    peak_vram_mib: 512,
  };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return JSON.stringify(base);
}

function inputError(line: number, message: string): string {
  return JSON.stringify({
    valid: false,
    error: {
      type: 'InputError',
      message: `input line ${line}: ${message}`,
      detail: message,
      file: null,
      line,
      col: 1,
      node: null,
    },
  });
}

function jsonParseMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${text} parses`);
}

/** Always fires with True. */
const FIRES: ConditionEvaluator = { evaluateDetailed: () => ({ fired: true, value: { type: 'bool', repr: 'True' } }) };

/** A compiler that needs neither parser nor VM: conditions starting with "ok" fire, the rest are rejected. */
function fakeCompile(condition: unknown): ConditionEvaluator {
  if (typeof condition === 'string' && condition.startsWith('ok')) return FIRES;
  throw new SandboxError({
    kind: 'forbidden-name',
    detail: `condition: forbidden name: ${String(condition)}`,
    node: 'Name',
    line: 1,
    col: 1,
    source: String(condition),
  });
}

/** The line for an accepted condition that evaluated to True. */
const VALID = '{"valid":true,"fired":true,"value":{"type":"bool","repr":"True"}}';

/** Wraps a compiler and records what it was called with. */
function counting(compile: CompileFn = compileCondition): { compile: CompileFn; calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    compile: (condition) => {
      calls.push(condition);
      return compile(condition);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// in-process: the real compiler and VM (exact values are CPython's)

describe('eval --jsonl with compileCondition', () => {
  it('rejects a lambda with node Lambda at line 1, col 1', async () => {
    const [out] = await run(`${record({ condition: 'lambda x: x' })}\n`);
    const parsed = JSON.parse(out!);
    expect(Object.keys(parsed)).toEqual(['valid', 'error']);
    expect(Object.keys(parsed.error)).toEqual(['type', 'message', 'detail', 'file', 'line', 'col', 'node']);
    expect(parsed).toEqual({
      valid: false,
      error: {
        type: 'SandboxError',
        message: expect.stringMatching(
          /^condition: forbidden AST node: Lambda \(Lambda at line 1, col 1\)\n {2}lambda x: x\n {2}\^+$/,
        ),
        detail: 'condition: forbidden AST node: Lambda',
        file: null,
        line: 1,
        col: 1,
        node: 'Lambda',
      },
    });
  });

  it('accepts exit_code == 137 and evaluates it to True', async () => {
    expect(await run(`${record({ condition: 'exit_code == 137' })}\n`)).toEqual([VALID]);
  });

  it('answers the spec examples with exact lines', async () => {
    const cases: [string, string][] = [
      [
        `{"condition":"math.isnan(float(capture['loss']))","capture":{"loss":"nan"},"exit_code":0,"walltime_sec":1,"peak_vram_mib":null}`,
        '{"valid":true,"fired":true,"value":{"type":"bool","repr":"True"}}',
      ],
      [
        `{"condition":"math.isnan(float(capture['loss']))","capture":{"loss":"0.25"},"exit_code":0,"walltime_sec":1,"peak_vram_mib":null}`,
        '{"valid":true,"fired":false,"value":{"type":"bool","repr":"False"}}',
      ],
      [
        `{"condition":"float(capture['loss'])","capture":{"loss":"nan"},"exit_code":0,"walltime_sec":1,"peak_vram_mib":null}`,
        '{"valid":true,"fired":true,"value":{"type":"float","repr":"nan"}}',
      ],
      [
        `{"condition":"math.isnan(float(capture['loss']))","capture":{},"exit_code":0,"walltime_sec":1,"peak_vram_mib":null}`,
        '{"valid":true,"fired":false,"exception":"KeyError"}',
      ],
      [
        `{"condition":"math.isnan(float(capture['loss']))","capture":{"loss":"oops"},"exit_code":0,"walltime_sec":1,"peak_vram_mib":null}`,
        '{"valid":true,"fired":false,"exception":"ValueError"}',
      ],
      [
        '{"condition":"1/0","capture":{},"exit_code":0,"walltime_sec":1,"peak_vram_mib":null}',
        '{"valid":true,"fired":false,"exception":"ZeroDivisionError"}',
      ],
      [
        // peak_vram_mib null is bound to 0
        '{"condition":"walltime_sec > 60 and peak_vram_mib > 0","capture":{},"exit_code":0,"walltime_sec":61,"peak_vram_mib":null}',
        '{"valid":true,"fired":false,"value":{"type":"bool","repr":"False"}}',
      ],
      [
        '{"condition":"walltime_sec > 60 and peak_vram_mib > 0","capture":{},"exit_code":0,"walltime_sec":61,"peak_vram_mib":512}',
        '{"valid":true,"fired":true,"value":{"type":"bool","repr":"True"}}',
      ],
      [
        `{"condition":"exit_code == 137 and len(capture['msg']) > 0","capture":{"msg":"Killed"},"exit_code":137,"walltime_sec":1,"peak_vram_mib":null}`,
        '{"valid":true,"fired":true,"value":{"type":"bool","repr":"True"}}',
      ],
      [
        `{"condition":"int(capture['code']) == 137","capture":{"code":"137"},"exit_code":-9,"walltime_sec":2.5,"peak_vram_mib":null}`,
        '{"valid":true,"fired":true,"value":{"type":"bool","repr":"True"}}',
      ],
      [
        `{"condition":"capture['msg']","capture":{"msg":""},"exit_code":0,"walltime_sec":1,"peak_vram_mib":null}`,
        `{"valid":true,"fired":false,"value":{"type":"str","repr":"''"}}`,
      ],
      [
        '{"condition":"walltime_sec","capture":{},"exit_code":0,"walltime_sec":1,"peak_vram_mib":null}',
        '{"valid":true,"fired":true,"value":{"type":"float","repr":"1.0"}}',
      ],
    ];
    const { lines, summary } = await runWithSummary(cases.map(([input]) => `${input}\n`).join(''));
    expect(lines).toEqual(cases.map(([, output]) => output));
    expect(summary).toEqual({
      lines: 12,
      valid: 12,
      fired: 6,
      notFired: 3,
      evalErrors: 3,
      sandboxErrors: 0,
      inputErrors: 0,
      internalErrors: 0,
      compiles: 8,
    });
  });

  it('counts fired, not fired, exceptions, rejections and input errors in a mixed stream', async () => {
    const input = [
      record({ condition: 'exit_code == 137' }),
      record({ condition: 'exit_code == 0' }),
      record({ condition: "capture['nope']" }),
      record({ condition: 'lambda x: x' }),
      record({ condition: 42 }),
      '{"condition": "exit_code == 0"}',
    ].join('\n');
    const { lines, summary } = await runWithSummary(input);
    expect(lines.slice(0, 3)).toEqual([
      VALID,
      '{"valid":true,"fired":false,"value":{"type":"bool","repr":"False"}}',
      '{"valid":true,"fired":false,"exception":"KeyError"}',
    ]);
    expect(JSON.parse(lines[3]!)).toMatchObject({ valid: false, error: { type: 'SandboxError', node: 'Lambda' } });
    expect(JSON.parse(lines[4]!)).toMatchObject({ valid: false, error: { type: 'SandboxError', node: null } });
    expect(lines[5]).toBe(inputError(6, 'missing field "capture"'));
    expect(summary).toEqual({
      lines: 6,
      valid: 3,
      fired: 1,
      notFired: 1,
      evalErrors: 1,
      sandboxErrors: 2,
      inputErrors: 1,
      internalErrors: 0,
      compiles: 5,
    });
  });
});

describe('eval --jsonl compiled-condition cache', () => {
  const NAN = "math.isnan(float(capture['loss']))";
  const GT = 'walltime_sec > 60 and peak_vram_mib > 0';
  const LOSS = "float(capture['loss'])";

  it('compiles each distinct condition once, and a repeated condition gives the same results every time', async () => {
    const lines: string[] = [];
    const expected: string[] = [];
    const losses = ['nan', '0.5', 'oops', '-inf', 'NaN'];
    for (let i = 0; i < 3000; i++) {
      const loss = losses[i % losses.length]!;
      switch (i % 4) {
        case 0:
          lines.push(record({ condition: NAN, capture: { loss } }));
          expected.push(
            loss === 'oops'
              ? '{"valid":true,"fired":false,"exception":"ValueError"}'
              : `{"valid":true,"fired":${/nan/i.test(loss)},"value":{"type":"bool","repr":"${/nan/i.test(loss) ? 'True' : 'False'}"}}`,
          );
          break;
        case 1:
          lines.push(record({ condition: GT, walltime_sec: i % 120, peak_vram_mib: i % 3 === 0 ? null : 1 }));
          expected.push(
            i % 120 > 60 && i % 3 !== 0
              ? '{"valid":true,"fired":true,"value":{"type":"bool","repr":"True"}}'
              : '{"valid":true,"fired":false,"value":{"type":"bool","repr":"False"}}',
          );
          break;
        case 2:
          lines.push(record({ condition: LOSS, capture: i % 7 === 0 ? {} : { loss } }));
          expected.push(
            i % 7 === 0
              ? '{"valid":true,"fired":false,"exception":"KeyError"}'
              : loss === 'oops'
                ? '{"valid":true,"fired":false,"exception":"ValueError"}'
                : `{"valid":true,"fired":true,"value":{"type":"float","repr":"${{ nan: 'nan', NaN: 'nan', '0.5': '0.5', '-inf': '-inf' }[loss]}"}}`,
          );
          break;
        default:
          lines.push(record({ condition: 'lambda: 0' }));
          expected.push('');
      }
    }
    const { compile, calls } = counting();
    const { lines: out, summary } = await runWithSummary(`${lines.join('\n')}\n`, { compile });
    expect(out.length).toBe(3000);
    out.forEach((line, i) => {
      if (i % 4 === 3)
        expect(JSON.parse(line)).toMatchObject({ valid: false, error: { type: 'SandboxError', node: 'Lambda' } });
      else expect(line).toBe(expected[i]);
    });
    // The rejection is cached too: the same SandboxError line each time.
    expect(new Set(out.filter((_, i) => i % 4 === 3)).size).toBe(1);
    expect(calls).toEqual([NAN, GT, LOSS, 'lambda: 0']);
    expect(summary.compiles).toBe(4);
    expect(summary.valid).toBe(2250);
    expect(summary.sandboxErrors).toBe(750);
  });

  it('gives the same results with the cache disabled, compiling every line', async () => {
    const input = [NAN, GT, LOSS, NAN, GT, LOSS]
      .map((condition) => record({ condition, capture: { loss: 'nan' } }))
      .join('\n');
    const cached = await runWithSummary(input);
    const { compile, calls } = counting();
    const uncached = await runWithSummary(input, { compile, cacheEntries: 0 });
    expect(uncached.lines).toEqual(cached.lines);
    expect(calls).toHaveLength(6);
    expect(cached.summary.compiles).toBe(3);
  });

  it('is bounded: the least recently used condition is evicted first', async () => {
    const { compile, calls } = counting();
    const seq = [
      'exit_code == 1',
      'exit_code == 2',
      'exit_code == 1',
      'exit_code == 3',
      'exit_code == 2',
      'exit_code == 1',
      'exit_code == 2',
    ];
    const out = await run(seq.map((condition) => record({ condition, exit_code: 2 })).join('\n'), {
      compile,
      cacheEntries: 2,
    });
    // 1 miss, 2 miss, 1 hit, 3 miss (evicts 2), 2 miss (evicts 1), 1 miss (evicts 3), 2 hit
    expect(calls).toEqual(['exit_code == 1', 'exit_code == 2', 'exit_code == 3', 'exit_code == 2', 'exit_code == 1']);
    expect(out.map((l) => (JSON.parse(l) as { fired: boolean }).fired)).toEqual([
      false,
      true,
      false,
      false,
      true,
      false,
      true,
    ]);
  });

  it('never caches non-string conditions', async () => {
    const { compile, calls } = counting();
    const { lines, summary } = await runWithSummary(
      [1, 1, null, null].map((condition) => record({ condition })).join('\n'),
      { compile },
    );
    expect(calls).toEqual([1, 1, null, null]);
    expect(lines.map((l) => (JSON.parse(l) as { error: { detail: string } }).error.detail)).toEqual([
      'condition: must be a string, got int',
      'condition: must be a string, got int',
      'condition: must be a string, got NoneType',
      'condition: must be a string, got NoneType',
    ]);
    expect(summary.sandboxErrors).toBe(4);
  });
});

// ---------------------------------------------------------------------------------------------
// in-process: stream handling and input validation (independent of the parser)

describe('eval --jsonl result shapes', () => {
  it('maps a SandboxError to type/node/message/detail/line/col', async () => {
    const err = new SandboxError({
      kind: 'forbidden-node',
      detail: 'condition: forbidden AST node: Lambda',
      node: 'Lambda',
      line: 1,
      col: 1,
      endCol: 12,
      source: 'lambda x: x',
    });
    const out = await run(`${record({ condition: 'lambda x: x' })}\n`, {
      compile: () => {
        throw err;
      },
    });
    expect(out).toEqual([
      '{"valid":false,"error":{"type":"SandboxError",' +
        '"message":"condition: forbidden AST node: Lambda (Lambda at line 1, col 1)\\n  lambda x: x\\n  ^^^^^^^^^^^",' +
        '"detail":"condition: forbidden AST node: Lambda","file":null,"line":1,"col":1,"node":"Lambda"}}',
    ]);
  });

  it('writes valid/fired/value for an accepted condition, or valid/fired/error for an exception', async () => {
    const results: ConditionEvaluator[] = [
      FIRES,
      { evaluateDetailed: () => ({ fired: false, value: { type: 'float', repr: '0.0' } }) },
      { evaluateDetailed: () => ({ fired: false, error: 'KeyError' }) },
    ];
    let i = 0;
    const { lines, summary } = await runWithSummary(
      `${record({ condition: 'a' })}\n${record({ condition: 'b' })}\n${record({ condition: 'c' })}\n`,
      { compile: () => results[i++]! },
    );
    expect(lines).toEqual([
      '{"valid":true,"fired":true,"value":{"type":"bool","repr":"True"}}',
      '{"valid":true,"fired":false,"value":{"type":"float","repr":"0.0"}}',
      '{"valid":true,"fired":false,"exception":"KeyError"}',
    ]);
    expect(summary).toEqual({
      lines: 3,
      valid: 3,
      fired: 1,
      notFired: 1,
      evalErrors: 1,
      sandboxErrors: 0,
      inputErrors: 0,
      internalErrors: 0,
      compiles: 3,
    });
  });

  it('passes the condition to the compiler as-is, whatever its JSON type, and the record as the variables', async () => {
    const seen: unknown[] = [];
    const vars: unknown[] = [];
    const conditions = ['exit_code == 0', 42, null, true, ['a'], { a: 1 }, ''];
    const out = await run(conditions.map((c) => `${record({ condition: c })}\n`).join(''), {
      compile: (c) => {
        seen.push(c);
        return {
          evaluateDetailed: (v) => {
            vars.push({ ...v, capture: new Map(v.capture instanceof Map ? v.capture : Object.entries(v.capture)) });
            return FIRES.evaluateDetailed(v);
          },
        };
      },
    });
    expect(out).toEqual(conditions.map(() => VALID));
    expect(seen).toEqual(conditions);
    expect(vars[0]).toMatchObject({
      capture: new Map([['msg', 'Killed process 4242 (python3)']]),
      exit_code: 137,
      walltime_sec: 12.5,
      peak_vram_mib: 512,
    });
  });

  it('reports a compiler bug as an InternalError line and goes on', async () => {
    const bugs: [unknown, number][] = [];
    const sink = new Sink();
    const summary = await evalJsonl(
      Readable.from([Buffer.from(`${record()}\n${record({ condition: 'ok' })}\n`)]),
      sink,
      {
        compile: (c) => {
          if (c === 'ok') return FIRES;
          throw new TypeError('boom');
        },
        onInternalError: (err, line) => bugs.push([err, line]),
      },
    );
    expect(sink.text.split('\n')).toEqual([
      JSON.stringify({
        valid: false,
        error: {
          type: 'InternalError',
          message: 'input line 1: internal error: TypeError: boom',
          detail: 'TypeError: boom',
          file: null,
          line: 1,
          col: 1,
          node: null,
        },
      }),
      VALID,
      '',
    ]);
    expect(bugs.map(([, line]) => line)).toEqual([1]);
    expect(summary).toEqual({
      lines: 2,
      valid: 1,
      fired: 1,
      notFired: 0,
      evalErrors: 0,
      sandboxErrors: 0,
      inputErrors: 0,
      internalErrors: 1,
      compiles: 2,
    });
  });

  it('reports an evaluator bug as an InternalError, and does not keep that condition cached', async () => {
    let calls = 0;
    const { compile, calls: compiled } = counting(() => ({
      evaluateDetailed: () => {
        if (++calls === 1) throw new RangeError('VM returned unknown value tag 99');
        return { fired: false, value: { type: 'NoneType', repr: 'None' } };
      },
    }));
    const { lines, summary } = await runWithSummary(`${record({ condition: 'x' })}\n${record({ condition: 'x' })}\n`, {
      compile,
      onInternalError: () => {},
    });
    expect(lines).toEqual([
      JSON.stringify({
        valid: false,
        error: {
          type: 'InternalError',
          message: 'input line 1: internal error: RangeError: VM returned unknown value tag 99',
          detail: 'RangeError: VM returned unknown value tag 99',
          file: null,
          line: 1,
          col: 1,
          node: null,
        },
      }),
      '{"valid":true,"fired":false,"value":{"type":"NoneType","repr":"None"}}',
    ]);
    expect(compiled).toEqual(['x', 'x']);
    expect(summary.internalErrors).toBe(1);
  });
});

describe('eval --jsonl malformed lines', () => {
  const opts = { compile: fakeCompile };

  it('not JSON', async () => {
    const text = '{"condition": "exit_code == 0",';
    expect(await run(`${text}\n`, opts)).toEqual([inputError(1, `not valid JSON: ${jsonParseMessage(text)}`)]);
  });

  it('not an object', async () => {
    const out = await run('[1, 2]\nnull\n"exit_code == 0"\n42\ntrue\n', opts);
    expect(out).toEqual([
      inputError(1, 'expected a JSON object, got an array'),
      inputError(2, 'expected a JSON object, got null'),
      inputError(3, 'expected a JSON object, got the string "exit_code == 0"'),
      inputError(4, 'expected a JSON object, got the number 42'),
      inputError(5, 'expected a JSON object, got true'),
    ]);
  });

  it('missing field', async () => {
    const fields = ['condition', 'capture', 'exit_code', 'walltime_sec', 'peak_vram_mib'];
    const out = await run(fields.map((f) => `${record({ [f]: undefined })}\n`).join(''), opts);
    expect(out).toEqual(fields.map((f, i) => inputError(i + 1, `missing field "${f}"`)));
  });

  it('ill-typed field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ capture: null }, 'field "capture" must be an object of string values, got null'],
      [{ capture: ['a'] }, 'field "capture" must be an object of string values, got an array'],
      [{ capture: { loss: 'nan', step: 7 } }, 'field "capture" key "step" must map to a string, got the number 7'],
      [{ capture: { msg: null } }, 'field "capture" key "msg" must map to a string, got null'],
      [{ exit_code: '137' }, 'field "exit_code" must be an integer, got the string "137"'],
      [{ exit_code: 1.5 }, 'field "exit_code" must be an integer, got the number 1.5'],
      [{ exit_code: null }, 'field "exit_code" must be an integer, got null'],
      [
        { exit_code: 2 ** 60 },
        `field "exit_code" must be an integer within ±9007199254740991, got the number ${2 ** 60}`,
      ],
      [{ walltime_sec: '12.5' }, 'field "walltime_sec" must be a finite number, got the string "12.5"'],
      [{ walltime_sec: null }, 'field "walltime_sec" must be a finite number, got null'],
      [{ peak_vram_mib: 512.5 }, 'field "peak_vram_mib" must be an integer or null, got the number 512.5'],
      [{ peak_vram_mib: false }, 'field "peak_vram_mib" must be an integer or null, got false'],
      [
        { peak_vram_mib: 'x'.repeat(40) },
        `field "peak_vram_mib" must be an integer or null, got the string "${'x'.repeat(32)}…"`,
      ],
    ];
    const out = await run(cases.map(([over]) => `${record(over)}\n`).join(''), opts);
    expect(out).toEqual(cases.map(([, msg], i) => inputError(i + 1, msg)));
  });

  it('reports the first bad field in field order', async () => {
    const out = await run(`${record({ capture: 1, exit_code: 'x', peak_vram_mib: undefined })}\n`, opts);
    expect(out).toEqual([inputError(1, 'field "capture" must be an object of string values, got the number 1')]);
  });

  it('walltime_sec overflowing to Infinity is not finite', async () => {
    const line = record().replace('"walltime_sec":12.5', '"walltime_sec":1e400');
    expect(await run(`${line}\n`, opts)).toEqual([
      inputError(1, 'field "walltime_sec" must be a finite number, got the number Infinity'),
    ]);
  });

  it('accepts integral numbers written as 137.0, null VRAM, extra keys and __proto__ capture keys', async () => {
    const line = record({ condition: 'ok', peak_vram_mib: null, note: 'ignored', capture: { __proto__x: 'a' } })
      .replace('"exit_code":137', '"exit_code":137.0')
      .replace('"__proto__x"', '"__proto__"');
    expect(await run(`${line}\n`, opts)).toEqual([VALID]);
  });

  it('answers a blank line with an InputError and keeps line numbers aligned', async () => {
    const out = await run(`${record({ condition: 'ok' })}\n\n   \t\n${record({ condition: 'ok' })}\n`, opts);
    expect(out).toEqual([
      VALID,
      inputError(2, 'blank line; expected a JSON object'),
      inputError(3, 'blank line; expected a JSON object'),
      VALID,
    ]);
  });

  it('rejects invalid UTF-8', async () => {
    const bad = Buffer.concat([Buffer.from('{"condition":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
    expect(await run([bad, `${record({ condition: 'ok' })}\n`], opts)).toEqual([
      inputError(1, 'not valid UTF-8'),
      VALID,
    ]);
  });
});

describe('eval --jsonl line handling', () => {
  const opts = { compile: fakeCompile };

  it('handles CRLF line endings, including a blank CRLF line', async () => {
    const out = await run(`${record({ condition: 'ok' })}\r\n\r\n${record({ condition: 'bad' })}\r\n`, opts);
    expect(out).toEqual([
      VALID,
      inputError(2, 'blank line; expected a JSON object'),
      '{"valid":false,"error":{"type":"SandboxError",' +
        '"message":"condition: forbidden name: bad (Name at line 1, col 1)\\n  bad\\n  ^",' +
        '"detail":"condition: forbidden name: bad","file":null,"line":1,"col":1,"node":"Name"}}',
    ]);
  });

  it('answers a last line without a newline, and nothing for empty input', async () => {
    expect(await run(`${record({ condition: 'ok' })}\n${record({ condition: 'ok' })}`, opts)).toEqual([VALID, VALID]);
    expect(await run('', opts)).toEqual([]);
    expect(await run('\n', opts)).toEqual([inputError(1, 'blank line; expected a JSON object')]);
  });

  it('ignores a UTF-8 byte order mark at the start of the input only', async () => {
    const line = record({ condition: 'ok' });
    const out = await run(`\ufeff${line}\n\ufeff${line}\n`, opts);
    expect(out[0]).toBe(VALID);
    expect(out[1]).toBe(inputError(2, `not valid JSON: ${jsonParseMessage(`\ufeff${line}`)}`));
  });

  it('keeps order over many lines fed in odd-sized chunks that split multi-byte characters', async () => {
    const lines: string[] = [];
    const expected: string[] = [];
    for (let i = 1; i <= 3000; i++) {
      if (i % 7 === 0) {
        lines.push(`{"broken ${i}`);
        expected.push(inputError(i, `not valid JSON: ${jsonParseMessage(`{"broken ${i}`)}`));
      } else if (i % 3 === 0) {
        const cond = `bad_${i}_é€😀`;
        lines.push(record({ condition: cond }));
        expected.push(
          JSON.stringify({
            valid: false,
            error: {
              type: 'SandboxError',
              message: `condition: forbidden name: ${cond} (Name at line 1, col 1)\n  ${cond}\n  ^`,
              detail: `condition: forbidden name: ${cond}`,
              file: null,
              line: 1,
              col: 1,
              node: 'Name',
            },
          }),
        );
      } else {
        lines.push(record({ condition: `ok ${i}`, capture: { msg: `ünïcödé ${i} 😀` } }));
        expected.push(VALID);
      }
    }
    const bytes = Buffer.from(lines.join('\n') + '\n', 'utf8');
    const chunks: Buffer[] = [];
    let seed = 12345;
    for (let pos = 0; pos < bytes.length; ) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const size = 1 + (seed % 97);
      chunks.push(bytes.subarray(pos, pos + size));
      pos += size;
    }
    expect(await run(chunks, opts)).toEqual(expected);
  });

  it('handles a long line within the cap and answers an over-long line without buffering it', async () => {
    const big = record({ condition: 'ok', capture: { log: 'x'.repeat(2_000_000) } });
    expect(await run(`${big}\n`, opts)).toEqual([VALID]);

    const max = 1000;
    const atCap = record({
      condition: 'ok',
      capture: { log: 'y'.repeat(max - record({ condition: 'ok', capture: { log: '' } }).length) },
    });
    expect(Buffer.byteLength(atCap)).toBe(max);
    const tooLong = record({ condition: 'ok', capture: { log: 'z'.repeat(5000) } });
    const input = `${atCap}\n${tooLong}\n${record({ condition: 'ok' })}\n${tooLong}`;
    const chunks = input.match(/[\s\S]{1,333}/g)!;
    expect(await run(chunks, { ...opts, maxLineBytes: max })).toEqual([
      VALID,
      inputError(2, `line is longer than ${max} bytes`),
      VALID,
      inputError(4, `line is longer than ${max} bytes`),
    ]);
  });

  it('applies backpressure: input is read only as fast as the output drains', async () => {
    const total = 20_000;
    let pulled = 0;
    let written = 0;
    let maxLag = 0;
    function* source(): Generator<Buffer> {
      for (let i = 0; i < total; i++) {
        pulled++;
        maxLag = Math.max(maxLag, pulled - written);
        yield Buffer.from(`${record({ condition: i % 2 ? 'ok' : 'bad' })}\n`);
      }
    }
    const slow = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, cb) {
        written += chunk.toString().split('\n').length - 1;
        setImmediate(cb);
      },
    });
    const summary = await evalJsonl(Readable.from(source()), slow, opts);
    expect(written).toBe(total);
    expect(summary).toMatchObject({
      lines: total,
      valid: total / 2,
      fired: total / 2,
      sandboxErrors: total / 2,
      inputErrors: 0,
      internalErrors: 0,
    });
    expect(maxLag).toBeLessThan(2000);
  });

  it('stops reading and rejects when the output fails (EPIPE)', async () => {
    let pulled = 0;
    let finished = false;
    function* endless(): Generator<Buffer> {
      try {
        for (;;) {
          pulled++;
          yield Buffer.from(`${record({ condition: 'ok' })}\n`);
        }
      } finally {
        finished = true;
      }
    }
    let writes = 0;
    const broken = new Writable({
      write(_chunk, _enc, cb) {
        writes++;
        if (writes < 3) cb();
        else cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    await expect(evalJsonl(Readable.from(endless()), broken, opts)).rejects.toMatchObject({ code: 'EPIPE' });
    expect(finished).toBe(true);
    expect(pulled).toBeLessThan(10_000);
  });
});

// ---------------------------------------------------------------------------------------------
// end to end: the built bin (`npm test` builds first)

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin = '', options: { firstLineOnly?: boolean } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      // Like `| head -1`: close our end of the pipe after the first line.
      if (options.firstLineOnly && stdout.includes('\n')) child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => {}); // the child may stop reading early
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('aorta-probe bin (end to end)', { timeout: 30_000 }, () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` (npm test does) first`);
  });

  const flagsIn = (text: string): string[] =>
    [...new Set([...text.matchAll(/(?<![\w-])--?[a-z][\w-]*/g)].map((m) => m[0]))].sort();

  it('--help lists the commands and options that exist, and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: aorta-probe <command> \[options\]/);
    expect(r.stdout).toContain('eval --jsonl');
    expect(r.stdout).toContain(
      'eval EXPR [--capture NAME=VALUE]... [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]',
    );
    expect(r.stdout).not.toMatch(/not evaluate/);
    expect(r.stdout).toContain('patterns [--json] [--version]');
    expect(r.stdout).toContain('list-mitigations [--mitigations-file F]... [--json]');
    expect(r.stdout).toContain(
      'bundle RUN_DIR [--ticket T] [--review] [--output PATH] [--redaction-from RECIPE] [--json]',
    );
    expect(r.stdout).toContain('check RECIPE... [--format text|json|sarif|github] [--strict]');
    for (const command of ['run [--recipe RECIPE]', 'demo [--json]', 'playground [--port N]'])
      expect(r.stdout).toContain(command);
    expect(flagsIn(r.stdout)).toEqual([
      '--capture',
      '--dry-run',
      '--emit',
      '--exit-code',
      '--format',
      '--gpu-interval',
      '--gpu-tool',
      '--gpus',
      '--help',
      '--json',
      '--jsonl',
      '--mitigations-file',
      '--out',
      '--output',
      '--parallel',
      '--peak-vram',
      '--port',
      '--quiet',
      '--recipe',
      '--redaction-from',
      '--review',
      '--strict',
      '--ticket',
      '--timeout',
      '--trials',
      '--version',
      '--walltime',
      '-h',
    ]);
    for (const command of ['sweep --recipe RECIPE --out DIR', 'report DIR... [--format text|json|junit|markdown|html]'])
      expect(r.stdout).toContain(command);
  });

  it('eval --help describes both forms, their output and their options, and exits 0', async () => {
    const r = await cli(['eval', '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^Usage: aorta-probe eval EXPR \[--capture NAME=VALUE\]\.\.\. \[--exit-code N\] \[--walltime SECONDS\] \[--peak-vram MIB\]\n {7}aorta-probe eval --jsonl\n/,
    );
    for (const text of [
      'value: ',
      'type:  ',
      'fired: yes|no',
      'error: ',
      '{"valid": true, "fired": bool, "value": {"type": str, "repr": str}}',
      '{"valid": true, "fired": false, "exception": "<exception class>"}',
    ]) {
      expect(r.stdout).toContain(text);
    }
    expect(flagsIn(r.stdout)).toEqual([
      '--capture',
      '--disasm',
      '--exit-code',
      '--help',
      '--json',
      '--jsonl',
      '--peak-vram',
      '--walltime',
      '-h',
    ]);
    expect((await cli(['eval', 'exit_code', '-h'])).stdout).toBe(r.stdout);
  });

  it('--version prints the package.json version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const r = await cli(['--version']);
    expect(r).toEqual({ code: 0, stdout: `aorta-probe ${pkg.version}\n`, stderr: '' });
  });

  it('an unknown flag is a usage error: message and usage on stderr, exit 2', async () => {
    const r = await cli(['--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^aorta-probe: unknown option '--frobnicate'\n\nUsage: aorta-probe/);
    const r2 = await cli(['eval', '--jsonl', '--frobnicate']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toBe(
      "aorta-probe: eval: unknown option '--frobnicate'\n\n" +
        'Usage: aorta-probe eval EXPR [--capture NAME=VALUE]... [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]\n' +
        '       aorta-probe eval --jsonl\n' +
        '       aorta-probe eval --disasm EXPR\n' +
        "See 'aorta-probe eval --help'.\n",
    );
  });

  it('eval --jsonl answers each line: a lambda is rejected, exit_code == 137 is valid', async () => {
    const input = [
      record({ condition: 'lambda x: x', capture: {} }),
      record({ condition: 'exit_code == 137' }),
      'not json',
    ].join('\r\n');
    const r = await cli(['eval', '--jsonl'], input);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      valid: false,
      error: { type: 'SandboxError', node: 'Lambda', detail: 'condition: forbidden AST node: Lambda', line: 1, col: 1 },
    });
    expect(lines[1]).toBe(VALID);
    expect(JSON.parse(lines[2]!)).toMatchObject({ valid: false, error: { type: 'InputError', line: 3, col: 1 } });
  });

  it('the bundled demo yields one JSON line per input line', async () => {
    const demo = readFileSync(new URL('../fixtures/demo/conditions.jsonl', import.meta.url), 'utf8');
    const r = await cli(['eval', '--jsonl'], demo);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    const out = lines.map((l) => JSON.parse(l) as { valid: boolean; error?: { type: string } });
    expect(out).toHaveLength(demo.trimEnd().split('\n').length);
    expect(lines.slice(0, 6)).toEqual([
      VALID,
      VALID,
      VALID,
      VALID,
      '{"valid":true,"fired":false,"value":{"type":"bool","repr":"False"}}',
      '{"valid":true,"fired":false,"exception":"ValueError"}',
    ]);
    expect(out.filter((o) => o.error?.type === 'InputError')).toHaveLength(1);
    expect(out.slice(7).every((o) => o.error?.type === 'SandboxError')).toBe(true);
  });

  it('exits quietly with status 0 when the reader goes away (| head -1)', async () => {
    const input = `${record()}\n`.repeat(100_000);
    const r = await cli(['eval', '--jsonl'], input, { firstLineOnly: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

/** What `aorta-probe eval` writes to stderr for a usage error. */
function evalUsageError(message: string): string {
  return (
    `aorta-probe: eval: ${message}\n\n` +
    'Usage: aorta-probe eval EXPR [--capture NAME=VALUE]... [--exit-code N] [--walltime SECONDS] [--peak-vram MIB]\n' +
    '       aorta-probe eval --jsonl\n' +
    '       aorta-probe eval --disasm EXPR\n' +
    "See 'aorta-probe eval --help'.\n"
  );
}

describe('aorta-probe eval EXPR: command-line errors (in-process runCli)', () => {
  async function runArgs(args: string[]): Promise<Ran> {
    const stdout = new Sink();
    const stderr = new Sink();
    const code = await runCli(args, { stdin: Readable.from([]), stdout, stderr });
    return { code, stdout: stdout.text, stderr: stderr.text };
  }

  it.each<[string[], string]>([
    [[], 'missing expression (or --jsonl)'],
    [['exit_code', '--frobnicate'], "unknown option '--frobnicate'"],
    [['exit_code', '--frobnicate=1'], "unknown option '--frobnicate'"],
    [['exit_code', '-x'], "unknown option '-x'"],
    [['exit_code', 'walltime_sec'], "unexpected argument 'walltime_sec' (the expression is one argument: quote it)"],
    [
      ['--', 'exit_code', '--exit-code', '1'],
      "unexpected argument '--exit-code' (the expression is one argument: quote it)",
    ],
    [['exit_code', '--capture'], "option '--capture' needs a value (--capture NAME=VALUE)"],
    [['exit_code', '--exit-cod', '1'], "unknown option '--exit-cod' (did you mean '--exit-code'?)"],
    [['exit_code', '-walltime', '1'], "unknown option '-walltime' (did you mean '--walltime'?)"],
    [['exit_code', '--peak-vram'], "option '--peak-vram' needs a value (--peak-vram MIB)"],
    [['exit_code', '--capture', 'loss'], "--capture needs NAME=VALUE, got 'loss'"],
    [['exit_code', '--capture', '=nan'], "--capture needs a non-empty NAME in NAME=VALUE, got '=nan'"],
    [['exit_code', '--capture', 'a=1', '--capture', 'a=2'], "--capture 'a' is given more than once"],
    [['exit_code', '--exit-code', '1.5'], "--exit-code must be an integer, got '1.5'"],
    [['exit_code', '--exit-code', '0x10'], "--exit-code must be an integer, got '0x10'"],
    [
      ['exit_code', '--exit-code', '9007199254740993'],
      "--exit-code must be an integer within ±9007199254740991, got '9007199254740993'",
    ],
    [['exit_code', '--exit-code', '1', '--exit-code=2'], '--exit-code is given more than once'],
    [['exit_code', '--walltime', 'nan'], "--walltime must be a finite number of seconds, got 'nan'"],
    [['exit_code', '--walltime', 'inf'], "--walltime must be a finite number of seconds, got 'inf'"],
    [['exit_code', '--walltime', '1e999'], "--walltime must be a finite number of seconds, got '1e999'"],
    [['exit_code', '--walltime='], "--walltime must be a finite number of seconds, got ''"],
    [['exit_code', '--walltime', '1', '--walltime', '2'], '--walltime is given more than once'],
    [['exit_code', '--peak-vram', 'null'], "--peak-vram must be an integer, got 'null'"],
    [['exit_code', '--peak-vram', '1', '--peak-vram', '1'], '--peak-vram is given more than once'],
    [['exit_code', '--jsonl'], "--jsonl reads the conditions from stdin: unexpected argument 'exit_code'"],
    [['--jsonl', '--exit-code', '1'], "--jsonl reads the variables from stdin: '--exit-code' cannot be used with it"],
    [['--jsonl=yes'], "option '--jsonl' takes no value"],
  ])('eval %j → %s', async (args, message) => {
    expect(await runArgs(['eval', ...args])).toEqual({ code: 2, stdout: '', stderr: evalUsageError(message) });
  });

  it('accepts the forms the usage errors are about', async () => {
    expect(await runArgs(['eval', '--exit-code=-3', '--', '-exit_code'])).toEqual({
      code: 0,
      stdout: 'value: 3\ntype:  int\nfired: yes\n',
      stderr: '',
    });
    expect(await runArgs(['eval', '-', '--walltime', '.5e1'])).toMatchObject({ code: 1, stdout: '' });
  });
});

describe('aorta-probe eval EXPR (end to end)', { timeout: 30_000 }, () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` (npm test does) first`);
  });

  it('prints value, type and fired for an evaluated condition, and exits 0', async () => {
    const cases: [string[], string][] = [
      [["float(capture['loss'])", '--capture', 'loss=nan'], 'value: nan\ntype:  float\nfired: yes\n'],
      [["math.isnan(float(capture['loss']))", '--capture', 'loss=nan'], 'value: True\ntype:  bool\nfired: yes\n'],
      [["math.isnan(float(capture['loss']))", '--capture=loss=0.25'], 'value: False\ntype:  bool\nfired: no\n'],
      // defaults: no captures, exit code 0, walltime 0.0, peak VRAM null (seen as 0)
      [['walltime_sec'], 'value: 0.0\ntype:  float\nfired: no\n'],
      [['exit_code'], 'value: 0\ntype:  int\nfired: no\n'],
      [['peak_vram_mib'], 'value: 0\ntype:  int\nfired: no\n'],
      [['capture'], 'value: {}\ntype:  dict\nfired: no\n'],
      // '=' in a value, repeated --capture, both option spellings, negative numbers as values
      [
        [
          "capture['kv'] == 'a=b=' and capture['x'] == '' and exit_code == -9 and walltime_sec == 12.5 and peak_vram_mib == 512",
          '--capture',
          'kv=a=b=',
          '--capture=x=',
          '--exit-code',
          '-9',
          '--walltime=12.5',
          '--peak-vram',
          '512',
        ],
        'value: True\ntype:  bool\nfired: yes\n',
      ],
      [['capture', '--capture', 'b=2', '--capture', 'a=1'], "value: {'b': '2', 'a': '1'}\ntype:  dict\nfired: yes\n"],
      [['--walltime', '1e3', '--', '-walltime_sec'], 'value: -1000.0\ntype:  float\nfired: yes\n'],
      [['--exit-code', '137', 'exit_code == 137'], 'value: True\ntype:  bool\nfired: yes\n'],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(['eval', ...args])));
    for (const [i, r] of results.entries())
      expect(r, cases[i]![0].join(' ')).toEqual({ code: 0, stdout: cases[i]![1], stderr: '' });
  });

  it('prints the exception class for a condition that raised, and exits 0', async () => {
    const [keyError, zeroDiv, valueError] = await Promise.all([
      cli(['eval', "capture['loss']"]),
      cli(['eval', '1/0']),
      cli(['eval', "float(capture['loss'])", '--capture', 'loss=oops']),
    ]);
    expect(keyError).toEqual({ code: 0, stdout: 'error: KeyError\nfired: no\n', stderr: '' });
    expect(zeroDiv).toEqual({ code: 0, stdout: 'error: ZeroDivisionError\nfired: no\n', stderr: '' });
    expect(valueError).toEqual({ code: 0, stdout: 'error: ValueError\nfired: no\n', stderr: '' });
  });

  it('writes the SandboxError message to stderr for a rejected condition, and exits 1', async () => {
    const [lambda, syntax] = await Promise.all([cli(['eval', 'lambda x: x']), cli(['eval', ''])]);
    expect(lambda).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'condition: forbidden AST node: Lambda (Lambda at line 1, col 1)\n  lambda x: x\n  ^^^^^^^^^^^\n' +
        '  hint: `lambda` is not allowed (a condition defines no functions): write the test itself\n',
    });
    expect(syntax.code).toBe(1);
    expect(syntax.stdout).toBe('');
    expect(syntax.stderr).toMatch(/^condition: /);
  });

  it('rejects a malformed command line with a usage error, and exits 2', async () => {
    const [unknown, badValue, noExpr] = await Promise.all([
      cli(['eval', 'exit_code', '--frobnicate']),
      cli(['eval', 'exit_code', '--exit-code', '1.5']),
      cli(['eval']),
    ]);
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: evalUsageError("unknown option '--frobnicate'") });
    expect(badValue).toEqual({
      code: 2,
      stdout: '',
      stderr: evalUsageError("--exit-code must be an integer, got '1.5'"),
    });
    expect(noExpr).toEqual({ code: 2, stdout: '', stderr: evalUsageError('missing expression (or --jsonl)') });
  });
});
