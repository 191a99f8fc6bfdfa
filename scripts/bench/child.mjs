// Children: every scanning engine and every python3 measurement runs in its own process, so
// its peak RSS is its own and a runaway peer (ReDoS) can be killed at the time cap.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const HERE = fileURLToPath(new URL('.', import.meta.url));
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The `aorta-probe` bin the whole-process rows spawn (through its shebang, as npm's bin link runs it).
 * AORTA_BENCH_BIN points at another build's, for before/after figures measured in the same moment.
 */
export const BIN = process.env.AORTA_BENCH_BIN || `${ROOT}dist/src/cli/main.cjs`;

/**
 * The python3 interpreter itself, not a version-manager shim (pyenv's `python3` is a bash
 * script that adds tens of ms to every start and would be charged to python).
 * AORTA_BENCH_PYTHON overrides it.
 */
export const PYTHON =
  process.env.AORTA_BENCH_PYTHON ||
  spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim() ||
  'python3';

/**
 * Runs `cmd args`, writes `input` to its stdin, and resolves to the parsed JSON it prints
 * ({ result, maxRssKiB }), or { timedOut: true } when it ran past `timeoutMs` (it is killed).
 */
export function runJson(cmd, args, { input = '', timeoutMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: HERE, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, timeoutMs)
        : null;
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      if (timedOut) return resolve({ timedOut: true });
      if (code !== 0)
        return reject(new Error(`${cmd} ${args.join(' ').slice(0, 120)} exited ${code}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out));
      } catch (e) {
        reject(new Error(`${cmd}: bad JSON output (${e.message}): ${out.slice(0, 500)} ${err.slice(-1000)}`));
      }
    });
    child.stdin.on('error', () => {}); // a killed child closes its stdin early
    child.stdin.end(input);
  });
}

/** python3 pybench.py <cmd> with a JSON spec on stdin. */
export const python = (cmd, spec, opts = {}) =>
  runJson(PYTHON, ['pybench.py', cmd], { input: JSON.stringify(spec), ...opts });
