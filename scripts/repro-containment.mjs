#!/usr/bin/env node
// The repros of issue 12 (containment) that run on a command line, each as a whole process: prints its exit
// status, wall time and peak RSS, so the "before" figures can be set against today's. Not part of
// `npm test` (it takes minutes); run after `npm run build`:  node scripts/repro-containment.mjs [FILTER]
//
// Peak RSS is the child's VmHWM from /proc/PID/status, polled every 20 ms until it exits (the last reading
// before the exit; `/usr/bin/time -v` is not on every machine). Each case has a cap; a case that reaches it is
// killed and shown as "> cap".
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const INDEX = new URL('../dist/src/index.js', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'aorta-repro-'));
const at = (name) => join(dir, name);
const probe = (...args) => [process.execPath, MAIN, ...args];
const lib = (code) => [
  process.execPath,
  '--input-type=module',
  '-e',
  `import * as A from ${JSON.stringify(INDEX)};\n${code}`,
];

function recipe(name, regexes, extra = '') {
  const lines = ['custom_patterns:'];
  for (const [i, r] of regexes.entries())
    lines.push(`  - id: p${i}`, '    match:', `      regex: ${JSON.stringify(r)}`, `    on_match: fail${extra}`);
  writeFileSync(at(name), `${lines.join('\n')}\n`);
  return at(name);
}

const BIG = `(?s)${'[^a]{1000}'.repeat(45)}`;
const VARS = { exit_code: 0, walltime_sec: 0, peak_vram_mib: null };
const cases = [];
/** A case: `argv()` builds its files and command; `out` names its --out directory (its result.json is summarised). */
const add = (section, name, argv, { cap = 120, setup = () => {}, out = null, stdin = null } = {}) =>
  cases.push({ section, name, argv, capSec: cap, setup, out, stdin });
const run = (out, ...rest) => probe('run', '--out', at(out), ...rest);

// §1 the regex engine
add('§1', 'scan: a pattern too large to compile (45 × [^a]{1000}) next to NCCL', () =>
  probe('scan', '--recipe', recipe('big.yaml', ['NCCL', BIG]), at('small.log')),
);
add('§1', 'library: compile the too-large pattern, then scanLog(null) and a new NCCL pattern', () =>
  lib(`try { A.compileRegex(${JSON.stringify(BIG)}); } catch (e) { console.log(e.name); }
const r = A.scanLog(null, 'NCCL error: unhandled system error\\n', ${JSON.stringify(VARS)});
console.log('then:', r.failure_detectors_fired.join(','), A.searchRegex(A.compileRegex('NCCL'), 'x NCCL')?.index);`),
);
const set43 = () =>
  recipe(
    'set43.yaml',
    Array.from({ length: 43 }, (_, i) => `(?s)[^a]{1000}z${i}`),
  );
add('§1', 'check: 43 × (?s)[^a]{1000}zN', () => probe('check', set43()));
add('§1', 'scan: 43 × (?s)[^a]{1000}zN', () => probe('scan', '--recipe', set43(), at('small.log')));
const lit = (n) =>
  recipe(
    `lit${n}.yaml`,
    Array.from({ length: n }, (_, i) => `lit${String(i).padStart(5, '0')}x`),
  );
add('§1', 'check: 4,000 literal patterns', () => probe('check', lit(4000)));
add('§1', 'scan: 4,000 literal patterns', () => probe('scan', '--recipe', lit(4000), at('small.log')));
add(
  '§1',
  'run: 4,000 literal patterns',
  () => run('run-lit', '--recipe', lit(4000), '--gpu-tool', 'none', '--quiet', '--', 'true'),
  {
    out: 'run-lit',
  },
);
const ab = () =>
  recipe(
    'ab.yaml',
    Array.from({ length: 6 }, (_, i) => `(?i)[ab]{${200 + i}}c`),
  );
add('§1', 'check: six (?i)[ab]{N}c', () => probe('check', ab()));
add(
  '§1',
  'run: six (?i)[ab]{N}c, the trial prints 600 KB of "ab" and exits 0',
  () =>
    run(
      'run-ab',
      '--recipe',
      ab(),
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      process.execPath,
      '-e',
      "process.stdout.write('ab'.repeat(300000) + '\\n')",
    ),
  { out: 'run-ab' },
);

// §2 output files
add(
  '§2',
  'run --out DIR with DIR/output.log a FIFO',
  () => run('fifo', '--gpu-tool', 'none', '--quiet', '--', 'true'),
  {
    cap: 60,
    out: 'fifo',
    setup: () => {
      mkdirSync(at('fifo'));
      execFileSync('mkfifo', [at('fifo/output.log')]);
    },
  },
);
add(
  '§2',
  'run --out DIR with DIR/output.log a symlink (its target must stay untouched)',
  () => run('link', '--gpu-tool', 'none', '--quiet', '--', 'echo', 'hi'),
  {
    cap: 60,
    out: 'link',
    setup: () => {
      mkdirSync(at('link'));
      writeFileSync(at('victim'), 'precious\n');
      symlinkSync(at('victim'), at('link/output.log'));
    },
  },
);
add(
  '§2',
  'run: result.json is a directory (exit 3, not 1)',
  () => run('rdir', '--gpu-tool', 'none', '--quiet', '--', 'true'),
  {
    cap: 60,
    setup: () => mkdirSync(at('rdir/result.json'), { recursive: true }),
  },
);

// §3 the clock
const fakeSmi = () => {
  mkdirSync(at('bin'), { recursive: true });
  writeFileSync(
    at('bin/amd-smi'),
    `#!/bin/sh\nexec ${process.execPath} -e "process.stdout.write('{}\\\\n'.repeat(1e6))"\n`,
  );
  chmodSync(at('bin/amd-smi'), 0o755);
};
add(
  '§3',
  'run: 1 s trial, fake amd-smi printing {} a million times (2 MB)',
  () => run('smi', '--gpu-tool', 'amd-smi', '--quiet', '--', 'sleep', '1'),
  {
    out: 'smi',
    setup: fakeSmi,
  },
);
add(
  '§3',
  'run --timeout 3: sleep 30 with the same fake amd-smi',
  () => run('smi-t', '--gpu-tool', 'amd-smi', '--timeout', '3', '--quiet', '--', 'sleep', '30'),
  {
    out: 'smi-t',
    setup: fakeSmi,
  },
);
const xstar = () => {
  writeFileSync(
    at('xstar.yaml'),
    `custom_patterns:\n  - id: e\n    match:\n      regex: 'x*'\n      condition: "len(capture) > 5"\n    on_match: fail\n`,
  );
  return at('xstar.yaml');
};
add('§3', 'scan: 10 MB with x* and a condition that never holds', () =>
  probe('scan', '--recipe', xstar(), at('10mb.log')),
);
add('§3', 'scan: the same 10 MB without the pattern', () => probe('scan', at('10mb.log')));
add(
  '§3',
  'run: a 0.4 s trial with x*, 1 MB of log (walltime_sec)',
  () =>
    run(
      'xrun',
      '--recipe',
      xstar(),
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      process.execPath,
      '-e',
      "process.stdout.write('step 1 loss=0.25\\n'.repeat(60000)); setTimeout(() => {}, 400)",
    ),
  { out: 'xrun' },
);

// §4 bounds inside an evaluation: one `eval --jsonl` line each, fed on stdin
const jsonl = (name, condition, capture = {}) => {
  writeFileSync(at(name), `${JSON.stringify({ condition, capture, ...VARS })}\n`);
  return at(name);
};
const evalLine = (name, condition, capture) => [
  () => probe('eval', '--jsonl'),
  { stdin: () => jsonl(name, condition, capture) },
];
add(
  '§4',
  "eval --jsonl: int(capture['a'],16) // int(capture['b'],16) > 0, 1 MiB / 512 KiB",
  ...evalLine('div.jsonl', "int(capture['a'],16) // int(capture['b'],16) > 0", {
    a: 'f'.repeat(1 << 20),
    b: '7'.repeat(1 << 19),
  }),
);
add(
  '§4',
  "eval --jsonl: capture[''] over a 60 MB capture",
  ...evalLine('big.jsonl', "capture['']", { '': 'x'.repeat(60 << 20) }),
);
add('§4', 'eval --jsonl: a 30 M-char condition', ...evalLine('long.jsonl', `1${' + 1'.repeat(7_500_000)}`));
add('§4', 'eval: len(1,1,1,1,1,1,1,1,1)', () => probe('eval', 'len(1,1,1,1,1,1,1,1,1)'));

// §5 the library boundary (YAML)
add('§5', 'check: 200,000 YAML anchors', () => {
  const items = Array.from({ length: 200_000 }, (_, i) => `  - &a${i} x`).join('\n');
  writeFileSync(at('anchors.yaml'), `custom_patterns:\n${items}\n`);
  return probe('check', at('anchors.yaml'));
});
add('§5', 'check: a plain 30,000-pattern recipe', () => probe('check', lit(30000)), { cap: 300 });

function peakKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

function runCase(c) {
  c.setup();
  const argv = c.argv();
  const input = c.stdin === null ? 'ignore' : openSync(c.stdin(), 'r');
  return new Promise((resolve) => {
    const t0 = performance.now();
    const env = { ...process.env, PATH: `${at('bin')}:${process.env.PATH}` }; // a fake amd-smi first
    const child = spawn(argv[0], argv.slice(1), { cwd: dir, env, stdio: [input, 'pipe', 'pipe'] });
    let peak = 0;
    let out = '';
    const keep = (d) => {
      if (out.length < 4000) out += d;
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const poll = setInterval(() => {
      peak = Math.max(peak, peakKb(child.pid));
    }, 20);
    let capped = false;
    const cap = setTimeout(() => {
      capped = true;
      child.kill('SIGKILL');
    }, c.capSec * 1000);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(cap);
      if (typeof input === 'number') closeSync(input);
      resolve({ code: code ?? signal, sec: (performance.now() - t0) / 1000, peakMiB: peak / 1024, capped, out });
    });
  });
}

function resultNote(c) {
  if (c.out === null) return null;
  try {
    const r = JSON.parse(readFileSync(at(`${c.out}/result.json`), 'utf8'));
    const victim = c.out === 'link' ? `; symlink target: ${JSON.stringify(readFileSync(at('victim'), 'utf8'))}` : '';
    return `result.json: ${r.verdict}, walltime_sec ${r.walltime_sec}, timed_out ${r.timed_out}${victim}`;
  } catch (e) {
    return `no result.json (${e.code ?? e.message})`;
  }
}

writeFileSync(at('small.log'), 'hello\nlit00007x here\n');
const line = 'step 123 loss=0.25 lr=0.001 tokens/s=1234 ok\n';
writeFileSync(at('10mb.log'), line.repeat(Math.ceil(10e6 / line.length)));

const filter = process.argv[2] ?? '';
console.log('| § | repro | exit | time | peak RSS | what it said |\n|---|---|---|---|---|---|');
for (const c of cases) {
  if (!c.name.includes(filter) && c.section !== filter) continue;
  const r = await runCase(c);
  const said =
    r.out
      .replaceAll(dir, '…')
      .split('\n')
      .find((l) => l.trim() !== '') ?? '';
  const note = resultNote(c) ?? said.slice(0, 120).replaceAll('|', '\\|');
  const time = r.capped ? `> ${c.capSec} s` : `${r.sec.toFixed(2)} s`;
  console.log(`| ${c.section} | ${c.name} | ${r.code} | ${time} | ${r.peakMiB.toFixed(0)} MiB | ${note} |`);
}
rmSync(dir, { recursive: true, force: true });
