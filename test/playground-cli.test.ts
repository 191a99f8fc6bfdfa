/** `aorta-probe playground`: argument parsing and the localhost static server over the built page (no browser). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_PLAYGROUND_PORT,
  parsePlaygroundArgs,
  runPlayground,
  startPlaygroundServer,
} from '../src/cli/commands/playground.js';
import { runCli } from '../src/cli/main.js';
import { UsageError } from '../src/cli/args.js';
import { schema } from './support/json-schemas.js';

function get(url: string, method = 'GET'): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A raw request path (node's URL parsing would normalise `..` away). */
function rawGet(base: string, path: string): Promise<number> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('parsePlaygroundArgs', () => {
  it('takes --port N / --port=N and --help', () => {
    expect(parsePlaygroundArgs([])).toEqual({ help: false, port: DEFAULT_PLAYGROUND_PORT, json: false });
    expect(parsePlaygroundArgs(['--port', '0'])).toEqual({ help: false, port: 0, json: false });
    expect(parsePlaygroundArgs(['--port=9000'])).toEqual({ help: false, port: 9000, json: false });
    expect(parsePlaygroundArgs(['-h']).help).toBe(true);
  });

  it('rejects bad ports, repeats, unknown options and arguments', () => {
    for (const args of [
      ['--port'],
      ['--port', 'x'],
      ['--port', '70000'],
      ['--port', '-1'],
      ['--port', '1', '--port', '2'],
      ['--host', 'x'],
      ['extra'],
    ]) {
      expect(() => parsePlaygroundArgs(args), args.join(' ')).toThrow(UsageError);
    }
  });

  it('is wired into the CLI: help, and usage errors exit 2', async () => {
    const out = new PassThrough();
    const err = new PassThrough();
    let o = '';
    let e = '';
    out.on('data', (c) => (o += c));
    err.on('data', (c) => (e += c));
    const io = { stdin: new PassThrough(), stdout: out, stderr: err };
    expect(await runCli(['playground', '--help'], io)).toBe(0);
    expect(o).toContain('Usage: aorta-probe playground [--port N]');
    expect(await runCli(['playground', '--port', 'nope'], io)).toBe(2);
    expect(e).toContain("aorta-probe: playground: --port must be an integer from 0 to 65535, got 'nope'\n");
    expect(await runCli(['--help'], io)).toBe(0);
    expect(o).toContain('playground [--port N]');
  });
});

describe('playground static server', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'aorta-pg-server-'));
    mkdirSync(join(root, 're2'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(root, 're2', 're2.wasm'), Buffer.from([0, 97, 115, 109]));
    writeFileSync(join(root, '..', `${root.split('/').at(-1)}-secret.txt`), 'secret');
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(join(root, '..', `${root.split('/').at(-1)}-secret.txt`), { force: true });
  });

  it('serves files with their types on 127.0.0.1 only, and nothing outside the root', async () => {
    const { server, url } = await startPlaygroundServer(root, 0);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const index = await get(url);
      expect(index.status).toBe(200);
      expect(index.type).toBe('text/html; charset=utf-8');
      expect(index.body).toContain('<title>t</title>');
      const wasm = await get(`${url}re2/re2.wasm`);
      expect(wasm.type).toBe('application/wasm');
      expect(wasm.body).toBe('\0asm');
      expect((await get(`${url}re2/re2.wasm`, 'HEAD')).body).toBe('');
      expect((await get(`${url}missing.js`)).status).toBe(404);
      expect((await get(`${url}re2`)).status).toBe(404); // a directory
      expect((await get(url, 'POST')).status).toBe(405);
      const secret = `${root.split('/').at(-1)}-secret.txt`;
      expect(await rawGet(url, `/../${secret}`)).toBeGreaterThanOrEqual(403);
      expect(await rawGet(url, `/%2e%2e/${secret}`)).toBeGreaterThanOrEqual(403);
      expect(await rawGet(url, '/%E0%A4%A')).toBe(400);
    } finally {
      server.close();
    }
  });

  it('runPlayground prints the URL and stops cleanly', async () => {
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    let printed = '';
    let errors = '';
    const done = runPlayground(
      { help: false, port: 0, json: false },
      {
        writeOut: async (t) => {
          printed += t;
        },
        writeErr: async (t) => {
          errors += t;
        },
      },
      () => stopped,
    );
    // dist/playground exists after `npm run build`; without it the command explains how to build it.
    for (let i = 0; i < 100 && printed === '' && errors === ''; i++) await new Promise((r) => setTimeout(r, 20));
    if (errors !== '') {
      expect(errors).toContain('run `npm run build`');
      expect(await done).toBe(1);
      return;
    }
    const m = /^aorta-probe playground: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(printed);
    expect(m).not.toBeNull();
    const page = await get(m![1]!);
    expect(page.status).toBe(200);
    expect(page.body).toContain('aorta-probe playground');
    stop();
    expect(await done).toBe(0);
  });

  it('playground --json prints {"url"} on one line (schemas/playground.schema.json)', async () => {
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    let printed = '';
    const done = runPlayground(
      { help: false, port: 0, json: true },
      { writeOut: async (t) => void (printed += t), writeErr: async () => {} },
      () => stopped,
    );
    for (let i = 0; i < 100 && printed === ''; i++) await new Promise((r) => setTimeout(r, 20));
    const validate = schema('playground');
    expect(printed).toMatch(/^\{"(url|error)":.*\}\n$/);
    const doc = JSON.parse(printed) as { url?: string };
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    stop();
    expect(await done).toBe(doc.url === undefined ? 1 : 0);
  });
});
