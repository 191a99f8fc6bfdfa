/**
 * `aorta-probe playground [--port N]`: serves the built browser playground (dist/playground/, made by
 * `npm run build`) from the installed package on 127.0.0.1 only, prints its URL and runs until interrupted.
 * No network access is needed: the page, its engine worker and re2-wasm's files are all local.
 */
import { atMost, parseCommandArgs, parseNumber, type OptionSpecs } from '../args.js';
import type { Command } from '../command.js';
import { untilInterrupted } from '../interrupt.js';
import type { CommandIo } from '../io.js';
import { jsonLine, positionlessError } from '../json-output.js';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_PLAYGROUND_PORT = 8177;

export const PLAYGROUND_USAGE = `Usage: aorta-probe playground [--port N] [--json]

Serves the browser playground (recipe editor with live diagnostics, log classification,
condition scratchpad) on http://127.0.0.1:N/ and prints the URL. Only localhost can connect;
no network access is needed. Stop it with Ctrl-C.

Options:
  --port N       Port to listen on (default ${DEFAULT_PLAYGROUND_PORT}; 0 picks a free port).
  --json         Print {"url": str} (schemas/playground.schema.json), or {"error": ...} when it
                 cannot serve, on one line instead of the text.
  -h, --help     Show this help and exit.
`;

export interface PlaygroundArgs {
  help: boolean;
  port: number;
  json: boolean;
}

export const PLAYGROUND_OPTIONS = {
  port: { type: 'string', metavar: 'N' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export function parsePlaygroundArgs(args: readonly string[]): PlaygroundArgs {
  const { values: v, positionals } = parseCommandArgs(args, PLAYGROUND_OPTIONS);
  const help = v.help === true;
  if (!help) atMost(positionals, 0, 'playground takes no arguments');
  const port =
    v.port === undefined
      ? DEFAULT_PLAYGROUND_PORT
      : parseNumber('--port', v.port, { integer: true, min: 0, max: 65535 });
  return { help, port, json: v.json === true };
}

/** The built page's directory in this package (dist/playground), found from this module (src/ or dist/src/). */
export function playgroundRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'dist', 'playground');
    if (existsSync(join(dir, 'package.json')) && existsSync(join(candidate, 'index.html'))) return candidate;
    if (existsSync(join(dir, 'playground', 'index.html')) && existsSync(join(dir, 'playground', 're2')))
      return join(dir, 'playground');
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** A static file server over `root` on 127.0.0.1 (GET and HEAD only, no directory listings, no path escapes). */
export function startPlaygroundServer(root: string, port = 0): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const send = (code: number, text: string): void => {
      res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      return send(400, 'bad request\n');
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(root, path));
    if (!(file === root || file.startsWith(root.endsWith(sep) ? root : root + sep)) || path.includes('\0'))
      return send(403, 'forbidden\n');
    let size: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) return send(404, 'not found\n');
      size = st.size;
    } catch {
      return send(404, 'not found\n');
    }
    res.writeHead(200, {
      'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': String(size),
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const { port: p } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${p}/` });
    });
  });
}

/**
 * Runs the command; resolves with the exit status once the server has stopped: when the promise `untilStopped`
 * gives once it serves resolves (the command's: at the first SIGINT or SIGTERM).
 */
export async function runPlayground(
  args: PlaygroundArgs,
  io: Pick<CommandIo, 'writeOut' | 'writeErr'>,
  untilStopped: () => Promise<unknown>,
): Promise<number> {
  const root = playgroundRoot();
  const cannot = async (message: string): Promise<number> => {
    await io.writeErr(`aorta-probe: playground: ${message}\n`);
    if (args.json) await io.writeOut(jsonLine({ error: positionlessError('ServeError', message) }));
    return 1;
  };
  if (root === null)
    return cannot('the page is not built (dist/playground/index.html is missing); run `npm run build`');
  let started: { server: Server; url: string };
  try {
    started = await startPlaygroundServer(root, args.port);
  } catch (err) {
    return cannot(`cannot listen on 127.0.0.1:${args.port}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (args.json) await io.writeOut(jsonLine({ url: started.url }));
  else
    await io.writeOut(
      `aorta-probe playground: ${started.url}\n(serving ${root} on localhost only; press Ctrl-C to stop)\n`,
    );
  await untilStopped();
  started.server.closeAllConnections();
  await new Promise<void>((resolve) => started.server.close(() => resolve()));
  return 0;
}

export const command: Command<PlaygroundArgs> = {
  name: 'playground',
  usage: PLAYGROUND_USAGE,
  parse: parsePlaygroundArgs,
  run: (args, io) => runPlayground(args, io, untilInterrupted),
};
