import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SandboxError } from '../src/condition/errors.js';
import { evalJsonl, type EvalJsonlOptions } from '../src/cli/eval-jsonl.js';

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

/** Runs evalJsonl in-process; `input` chunks are fed exactly as given. Returns output lines. */
async function run(input: string | Buffer | (string | Buffer)[], options: EvalJsonlOptions = {}): Promise<string[]> {
  const chunks = (Array.isArray(input) ? input : [input]).map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c));
  const sink = new Sink();
  await evalJsonl(Readable.from(chunks), sink, options);
  expect(sink.text === '' || sink.text.endsWith('\n')).toBe(true);
  return sink.text === '' ? [] : sink.text.slice(0, -1).split('\n');
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
  return JSON.stringify({ valid: false, error: { type: 'InputError', message: `input line ${line}: ${message}`, line, col: 1 } });
}

function jsonParseMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${text} parses`);
}

/** A validator that does not need the parser: accepts conditions starting with "ok", rejects the rest. */
function fakeValidate(condition: unknown): unknown {
  if (typeof condition === 'string' && condition.startsWith('ok')) return {};
  throw new SandboxError({
    kind: 'forbidden-name',
    detail: `condition: forbidden name: ${String(condition)}`,
    node: 'Name',
    line: 1,
    col: 1,
    source: String(condition),
  });
}

const VALID = '{"valid":true}';

// ---------------------------------------------------------------------------------------------
// in-process: the real validator (these need the parser/walker; exact values are CPython's)

describe('eval --jsonl with validateCondition', () => {
  it('rejects a lambda with node Lambda at line 1, col 1', async () => {
    const [out] = await run(`${record({ condition: 'lambda x: x' })}\n`);
    const parsed = JSON.parse(out!);
    expect(Object.keys(parsed)).toEqual(['valid', 'error']);
    expect(Object.keys(parsed.error)).toEqual(['type', 'node', 'message', 'detail', 'line', 'col']);
    expect(parsed).toEqual({
      valid: false,
      error: {
        type: 'SandboxError',
        node: 'Lambda',
        message: expect.stringMatching(/^condition: forbidden AST node: Lambda \(Lambda at line 1, col 1\)\n {2}lambda x: x\n {2}\^+$/),
        detail: 'condition: forbidden AST node: Lambda',
        line: 1,
        col: 1,
      },
    });
  });

  it('accepts exit_code == 137', async () => {
    expect(await run(`${record({ condition: 'exit_code == 137' })}\n`)).toEqual([VALID]);
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
      validate: () => {
        throw err;
      },
    });
    expect(out).toEqual([
      '{"valid":false,"error":{"type":"SandboxError","node":"Lambda",' +
        '"message":"condition: forbidden AST node: Lambda (Lambda at line 1, col 1)\\n  lambda x: x\\n  ^^^^^^^^^^^",' +
        '"detail":"condition: forbidden AST node: Lambda","line":1,"col":1}}',
    ]);
  });

  it('writes {"valid":true} for an accepted condition', async () => {
    expect(await run(`${record({ condition: 'ok' })}\n`, { validate: fakeValidate })).toEqual([VALID]);
  });

  it('passes the condition to the validator as-is, whatever its JSON type', async () => {
    const seen: unknown[] = [];
    const conditions = ['exit_code == 0', 42, null, true, ['a'], { a: 1 }, ''];
    const out = await run(conditions.map((c) => `${record({ condition: c })}\n`).join(''), {
      validate: (c) => {
        seen.push(c);
        return {};
      },
    });
    expect(out).toEqual(conditions.map(() => VALID));
    expect(seen).toEqual(conditions);
  });

  it('reports a validator bug as an InternalError line and goes on', async () => {
    const bugs: [unknown, number][] = [];
    const sink = new Sink();
    const summary = await evalJsonl(Readable.from([Buffer.from(`${record()}\n${record({ condition: 'ok' })}\n`)]), sink, {
      validate: (c) => {
        if (c === 'ok') return {};
        throw new TypeError('boom');
      },
      onInternalError: (err, line) => bugs.push([err, line]),
    });
    expect(sink.text.split('\n')).toEqual([
      JSON.stringify({
        valid: false,
        error: { type: 'InternalError', message: 'input line 1: internal error: TypeError: boom', line: 1, col: 1 },
      }),
      VALID,
      '',
    ]);
    expect(bugs.map(([, line]) => line)).toEqual([1]);
    expect(summary).toEqual({ lines: 2, valid: 1, sandboxErrors: 0, inputErrors: 0, internalErrors: 1 });
  });
});

describe('eval --jsonl malformed lines', () => {
  const opts = { validate: fakeValidate };

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
      [{ exit_code: 2 ** 60 }, `field "exit_code" must be an integer within ±9007199254740991, got the number ${2 ** 60}`],
      [{ walltime_sec: '12.5' }, 'field "walltime_sec" must be a finite number, got the string "12.5"'],
      [{ walltime_sec: null }, 'field "walltime_sec" must be a finite number, got null'],
      [{ peak_vram_mib: 512.5 }, 'field "peak_vram_mib" must be an integer or null, got the number 512.5'],
      [{ peak_vram_mib: false }, 'field "peak_vram_mib" must be an integer or null, got false'],
      [{ peak_vram_mib: 'x'.repeat(40) }, `field "peak_vram_mib" must be an integer or null, got the string "${'x'.repeat(32)}…"`],
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
    expect(out).toEqual([VALID, inputError(2, 'blank line; expected a JSON object'), inputError(3, 'blank line; expected a JSON object'), VALID]);
  });

  it('rejects invalid UTF-8', async () => {
    const bad = Buffer.concat([Buffer.from('{"condition":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
    expect(await run([bad, `${record({ condition: 'ok' })}\n`], opts)).toEqual([inputError(1, 'not valid UTF-8'), VALID]);
  });
});

describe('eval --jsonl line handling', () => {
  const opts = { validate: fakeValidate };

  it('handles CRLF line endings, including a blank CRLF line', async () => {
    const out = await run(`${record({ condition: 'ok' })}\r\n\r\n${record({ condition: 'bad' })}\r\n`, opts);
    expect(out).toEqual([
      VALID,
      inputError(2, 'blank line; expected a JSON object'),
      '{"valid":false,"error":{"type":"SandboxError","node":"Name",' +
        '"message":"condition: forbidden name: bad (Name at line 1, col 1)\\n  bad\\n  ^",' +
        '"detail":"condition: forbidden name: bad","line":1,"col":1}}',
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
              node: 'Name',
              message: `condition: forbidden name: ${cond} (Name at line 1, col 1)\n  ${cond}\n  ^`,
              detail: `condition: forbidden name: ${cond}`,
              line: 1,
              col: 1,
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
    const atCap = record({ condition: 'ok', capture: { log: 'y'.repeat(max - record({ condition: 'ok', capture: { log: '' } }).length) } });
    expect(Buffer.byteLength(atCap)).toBe(max);
    const tooLong = record({ condition: 'ok', capture: { log: 'z'.repeat(5000) } });
    const input = `${atCap}\n${tooLong}\n${record({ condition: 'ok' })}\n${tooLong}`;
    const chunks = input.match(/[^]{1,333}/g)!;
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
    expect(summary).toEqual({ lines: total, valid: total / 2, sandboxErrors: total / 2, inputErrors: 0, internalErrors: 0 });
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
const MAIN = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));

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

describe('aorta-probe bin (end to end)', () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` (npm test does) first`);
  });

  it('--help lists the commands and options that exist, and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: aorta-probe <command> \[options\]/);
    expect(r.stdout).toContain('eval --jsonl');
    const flags = [...r.stdout.matchAll(/(?<![\w-])--?[a-z][\w-]*/g)].map((m) => m[0]).sort();
    expect([...new Set(flags)]).toEqual(['--help', '--jsonl', '--version', '-h']);
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
    expect(r2.stderr).toMatch(/^aorta-probe: eval: unknown option '--frobnicate'\n\nUsage: aorta-probe eval --jsonl/);
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
    const out = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { valid: boolean; error?: { type: string } });
    expect(out).toHaveLength(demo.trimEnd().split('\n').length);
    expect(out.filter((o) => o.error?.type === 'InputError')).toHaveLength(1);
  });

  it('exits quietly with status 0 when the reader goes away (| head -1)', async () => {
    const input = `${record()}\n`.repeat(100_000);
    const r = await cli(['eval', '--jsonl'], input, { firstLineOnly: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
