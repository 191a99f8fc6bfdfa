/**
 * Issue 33 §1: what `sweep --emit slurm|k8s` writes means exactly the recipe and the command line, whatever their
 * values hold. A line break in an env value, a path or an option must not end a comment, add an `#SBATCH`
 * directive, a shell command or a YAML document; an `#SBATCH` value that cannot be written safely is refused.
 *
 * The Slurm scripts are checked three ways: `bash -n`; sbatch's own reading of the directives (re-implemented
 * below, both its current parser and the older one); and a run under bash with a fake array environment, where
 * the probe command is a recorder that writes the argv it got. The manifests are read back with the `yaml`
 * library and with PyYAML (YAML 1.1, as kubectl's reader): exactly a ConfigMap and a Job, field for field.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CONFIG_MOUNT,
  emitK8s,
  emitSlurm,
  type K8sOptions,
  SbatchValueError,
  type SlurmOptions,
  taskCommand,
} from '../src/sweep/emit.js';
import { shellQuote } from '../src/sweep/shell.js';
import { loadSweepPlan, type SweepPlan } from '../src/sweep/index.js';
import { rng } from './support/rng.js';

const MAIN = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'aorta-emit-inject-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A probe command that records the argv it was given (NUL-separated) and its environment, and exits 0. */
const RECORDER_TEXT = `#!/bin/sh
printf '%s\\0' "$@" > "$REC_OUT"
env > "$REC_OUT.env"
`;
function writeRecorder(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'recorder.sh');
  writeFileSync(path, RECORDER_TEXT);
  chmodSync(path, 0o755);
  return path;
}

const pyYaml = spawnSync('python3', ['-c', 'import yaml'], { stdio: 'ignore' }).status === 0;
if (!pyYaml)
  console.warn(
    'sweep-emit-inject.test.ts: python3 with PyYAML is not available here: the YAML 1.1 reading of the manifests is SKIPPED (the yaml library reading still runs)',
  );

/**
 * A YAML double-quoted string for any text: JSON with every UTF-16 unit outside printable ASCII escaped, so no
 * reader folds a line break in it and astral characters and lone surrogates alike survive.
 */
function yamlString(s: string): string {
  return JSON.stringify(s).replace(/[^\x20-\x7e]/g, (u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

type Bundles = Record<string, Record<string, string>>;

function mitigationsYaml(bundles: Bundles): string {
  return `{${Object.entries(bundles)
    .map(
      ([name, env]) =>
        `${yamlString(name)}: {${Object.entries(env)
          .map(([k, v]) => `${k}: ${yamlString(v)}`)
          .join(', ')}}`,
    )
    .join(', ')}}\n`;
}

function recipeYaml(ticket: string, axis: readonly string[], own: Bundles): string {
  return `schema_version: 1
mode: probe
ticket: ${yamlString(ticket)}
trials: 1
mitigation_axis: [${axis.map(yamlString).join(', ')}]
diagnostic_axis: [none]
mitigations: ${mitigationsYaml(own)}`;
}

/** sbatch's reading of a script's directives: the `#SBATCH` lines before the first line that is not a comment. */
function directiveLines(script: string): string[] {
  const out: string[] = [];
  for (const line of script.split('\n')) {
    if (line.startsWith('#SBATCH')) out.push(line);
    else if (/^\s*#/.test(line) || /^\s*$/.test(line)) continue;
    else break;
  }
  return out;
}

/**
 * The arguments sbatch takes from one directive line (src/sbatch/opt.c get_argument): whitespace separates them,
 * a backslash escapes the next character, an unescaped `#` ends the line. Current Slurm groups with `"` or `'`
 * (and keeps `#` inside them); older Slurm toggles on `"` only and stops at `#` even there.
 */
function sbatchArguments(line: string, legacy: boolean): string[] {
  const isSpace = (c: string | undefined) => c !== undefined && /[ \t\n\v\f\r]/.test(c);
  const args: string[] = [];
  let i = '#SBATCH'.length;
  for (;;) {
    while (isSpace(line[i])) i++;
    let arg = '';
    let quote = '';
    let escaped = false;
    let comment = false;
    for (; i < line.length && (quote !== '' || !isSpace(line[i])); i++) {
      const c = line[i]!;
      if (escaped) escaped = false;
      else if (c === '\\') {
        escaped = true;
        continue;
      } else if (legacy && c === '"') {
        quote = quote === '' ? '"' : '';
        continue;
      } else if (!legacy && quote !== '') {
        if (c === quote) {
          quote = '';
          continue;
        }
      } else if (!legacy && (c === '"' || c === "'")) {
        quote = c;
        continue;
      } else if (c === '#') {
        comment = true;
        break;
      }
      arg += c;
    }
    if (!legacy && quote !== '') throw new Error(`sbatch: unmatched ${quote} in ${line}`);
    if (arg === '') return args;
    args.push(arg);
    if (comment) return args;
  }
}

/** What ends a line for a YAML 1.1 reader but not for bash (and a CR, before an LF, makes sbatch refuse a script). */
const SPLITS_A_COMMENT = /[\r\u0085\u2028\u2029]/u;

interface Recorded {
  readonly status: number | null;
  readonly stderr: string;
  readonly argv: Buffer;
  readonly env: string;
}

/** Runs the script under bash as a Slurm array task 0 would, with only the variables named here. */
function runAsTask(script: string, dir: string): Recorded {
  const path = join(dir, 'task.sbatch');
  const rec = join(dir, 'argv.bin');
  writeFileSync(path, script);
  rmSync(rec, { force: true });
  const r = spawnSync('bash', [path], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SLURM_ARRAY_TASK_ID: '0', REC_OUT: rec },
    encoding: 'utf8',
    timeout: 10_000,
  });
  return {
    status: r.status,
    stderr: r.stderr,
    argv: existsSync(rec) ? readFileSync(rec) : Buffer.alloc(0),
    env: existsSync(`${rec}.env`) ? readFileSync(`${rec}.env`, 'utf8') : '',
  };
}

const nulJoined = (words: readonly string[]) => Buffer.concat(words.map((w) => Buffer.from(`${w}\0`, 'utf8')));

/** Every manifest read by PyYAML's safe_load_all, as JSON; null where PyYAML is not available. */
function pyLoadAll(texts: readonly string[]): unknown[][] | null {
  if (!pyYaml) return null;
  const input = join(root, `manifests-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(input, JSON.stringify(texts));
  const out = execFileSync(
    'python3',
    [
      '-c',
      'import json,sys,yaml\nprint(json.dumps([list(yaml.safe_load_all(t)) for t in json.load(open(sys.argv[1]))]))',
      input,
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  return JSON.parse(out) as unknown[][];
}

const libLoadAll = (text: string) =>
  parseAllDocuments(text).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as unknown;
  });

async function planFor(name: string, ticket: string, own: Bundles, files: Bundles[] = []): Promise<SweepPlan> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const paths = files.map((b, i) => {
    const p = join(dir, `m${i}.yaml`);
    writeFileSync(p, mitigationsYaml(b));
    return p;
  });
  const axis = [...Object.keys(own), ...files.flatMap((b) => Object.keys(b))];
  const recipe = join(dir, 'sweep.yaml');
  writeFileSync(recipe, recipeYaml(ticket, axis, own));
  return loadSweepPlan(recipe, { mitigationsFiles: paths });
}

describe('--emit slurm: recipe values cannot reach the shell or sbatch', () => {
  it('an env value with line breaks stays in its comment line: no directive, no command', async () => {
    const mark = join(root, 'breached');
    const plan = await planFor('repro-slurm', 'OPS-9', {
      chatty: { NCCL_DEBUG: `WARN\n#SBATCH --exclusive\nmkdir ${mark}\n` },
    });
    const dir = join(root, 'repro-slurm');
    const recorder = writeRecorder(join(dir, 'bin'));
    const o: SlurmOptions = {
      probeCommand: [recorder],
      recipe: plan.recipePath,
      mitigationsFiles: [],
      outDir: '/shared/runs',
      passThrough: [],
      argv: ['python', 'train.py'],
    };
    const script = emitSlurm(plan, o);
    expect(directiveLines(script)).toEqual([
      '#SBATCH --job-name=aorta-probe-OPS-9',
      '#SBATCH --array=0-0',
      '#SBATCH --output=/shared/runs/slurm/%A_%a.out',
    ]);
    expect(script).toContain(
      `\n#    0  chatty-none/trial_0  NCCL_DEBUG=WARN\\x0a#SBATCH --exclusive\\x0amkdir ${mark}\\x0a\n`,
    );
    expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
    const r = runAsTask(script, dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.argv).toEqual(nulJoined(taskCommand(o, 'SLURM_ARRAY_TASK_ID').slice(1)));
    expect(existsSync(mark)).toBe(false);
  });

  it('NEL, U+2028/2029, CR and other controls in an env value are escaped in the comment', async () => {
    const plan = await planFor('controls-slurm', 'OPS-10', {
      odd: { A: 'x\ry\u0085z\u2028w\u2029v\x1b[2J\x00\x7f\x9b' },
    });
    const script = emitSlurm(plan, {
      probeCommand: ['aorta-probe'],
      recipe: plan.recipePath,
      mitigationsFiles: [],
      outDir: '/r',
      passThrough: [],
      argv: ['true'],
    });
    expect(script).toContain('\n#    0  odd-none/trial_0  A=x\\x0dy\\x85z\\u2028w\\u2029v\\x1b[2J\\x00\\x7f\\x9b\n');
    const header = script.slice(0, script.indexOf('\nset -euo pipefail\n'));
    expect(header).not.toMatch(SPLITS_A_COMMENT);
  });

  it('refuses an --sbatch or --out value that would change what sbatch reads', async () => {
    const plan = await planFor('refuse', 'OPS-11', { a: { A: '1' } });
    const base: SlurmOptions = {
      probeCommand: ['aorta-probe'],
      recipe: plan.recipePath,
      mitigationsFiles: [],
      outDir: '/r',
      passThrough: [],
      argv: ['true'],
    };
    const refusal = (o: Partial<SlurmOptions>) => {
      try {
        emitSlurm(plan, { ...base, ...o });
      } catch (err) {
        expect(err).toBeInstanceOf(SbatchValueError);
        return [(err as SbatchValueError).option, (err as Error).message];
      }
      return null;
    };
    expect(refusal({ sbatch: ['--partition=gpu\n#SBATCH --uid=0'] })).toEqual([
      '--sbatch',
      "--sbatch '--partition=gpu\\n#SBATCH --uid=0': holds a line break or control character ('\\n'), which cannot go on an #SBATCH line",
    ]);
    expect(refusal({ sbatch: ['--comment=a\rb'] })?.[0]).toBe('--sbatch');
    expect(refusal({ sbatch: ['--comment=a\u0085b'] })?.[0]).toBe('--sbatch');
    expect(refusal({ sbatch: ['--comment=a\tb'] })?.[0]).toBe('--sbatch');
    expect(refusal({ sbatch: ['--comment=HetJob'] })).toEqual([
      '--sbatch',
      "--sbatch '--comment=HetJob': holds 'HetJob'; sbatch reads an #SBATCH line holding 'hetjob' or 'packjob' as the start of a heterogeneous job component",
    ]);
    expect(refusal({ outDir: '/r\n#SBATCH --uid=0' })).toEqual([
      '--out',
      "--out '/r\\n#SBATCH --uid=0': holds a line break or control character ('\\n'), which cannot go on an #SBATCH line",
    ]);
    expect(refusal({ outDir: '/r\u2028x' })?.[0]).toBe('--out');
    expect(refusal({ outDir: '/scratch/packjobs' })?.[0]).toBe('--out');
    expect(refusal({ sbatch: ['--partition=gpu', '--time=1:00:00'] })).toBe(null);
  });

  it("writes --output so that sbatch reads the directory exactly: quoted, '%' doubled", async () => {
    const plan = await planFor('output', 'OPS-12', { a: { A: '1' } });
    const outDir = `/shared/my runs/100%#1/"q" 'it' \\x $(id)`;
    const script = emitSlurm(plan, {
      probeCommand: ['aorta-probe'],
      recipe: plan.recipePath,
      mitigationsFiles: [],
      outDir,
      passThrough: [],
      argv: ['true'],
    });
    const line = directiveLines(script)[2]!;
    expect(line).toBe(`#SBATCH --output="/shared/my runs/100%%\\#1/\\"q\\" 'it' \\\\x $(id)/slurm/%A_%a.out"`);
    for (const legacy of [false, true])
      expect(sbatchArguments(line, legacy)).toEqual([
        `--output=/shared/my runs/100%%#1/"q" 'it' \\x $(id)/slurm/%A_%a.out`,
      ]);
  });

  it("a ticket holding 'hetjob' cannot make the job name a heterogeneous job separator", async () => {
    const plan = await planFor('hetjob', 'HetJob-7 packjob', { a: { A: '1' } });
    const script = emitSlurm(plan, {
      probeCommand: ['aorta-probe'],
      recipe: plan.recipePath,
      mitigationsFiles: [],
      outDir: '/r',
      passThrough: [],
      argv: ['true'],
    });
    expect(directiveLines(script)[0]).toBe('#SBATCH --job-name=aorta-probe-Het_Job-7_pack_job');
  });
});

describe('shellQuote', () => {
  it('single-quotes anything not plainly safe, and never writes a CR LF pair (sbatch refuses a script holding one)', () => {
    expect(shellQuote('train.py')).toBe('train.py');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote("it's $(id) `x`")).toBe(`'it'\\''s $(id) \`x\`'`);
    expect(shellQuote('a\r\nb')).toBe("'a\r''\nb'");
    expect(
      spawnSync('bash', ['-c', `printf %s ${shellQuote('a\r\nb\r\r\n\u2028')}`], { encoding: 'utf8' }).stdout,
    ).toBe('a\r\nb\r\r\n\u2028');
    expect(() => shellQuote('a\0b')).toThrow(new RangeError("a shell word cannot hold a NUL character: 'a\\x00b'"));
  });
});

describe('--emit k8s: recipe values cannot add documents or change fields', () => {
  async function manifest(name: string, value: string) {
    const plan = await planFor(name, 'OPS-20', { chatty: { NCCL_DEBUG: value } });
    const recipeText = readFileSync(plan.recipePath, 'utf8');
    const o: K8sOptions = {
      probeCommand: ['aorta-probe'],
      recipe: `${CONFIG_MOUNT}/sweep.yaml`,
      mitigationsFiles: [],
      outDir: '/results',
      passThrough: [],
      argv: ['python', 'train.py'],
      image: 'registry.example/train:1',
      pvc: 'runs',
      files: [{ name: 'sweep.yaml', text: recipeText }],
    };
    return { o, recipeText, ...emitK8s(plan, o) };
  }

  it('an env value with a line break, NEL or U+2028 stays in its comment: exactly a ConfigMap and a Job', async () => {
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {hostPID: true}';
    const cases = [
      `INFO\n---\n${pod}\n`,
      `INFO\u0085---\u0085${pod.replace(/\n/g, '\u0085')}`,
      `INFO\u2028---\u2028${pod.replace(/\n/g, '\u2028')}`,
      `INFO\u2029---\r${pod.replace(/\n/g, '\r')}`,
    ];
    const all = [];
    for (const [i, value] of cases.entries()) all.push(await manifest(`repro-k8s-${i}`, value));
    const py = pyLoadAll(all.map((m) => m.text));
    for (const [i, m] of all.entries()) {
      const header = m.text.slice(0, m.text.indexOf('\n---\n'));
      expect(header.split('\n').every((l) => l.startsWith('#'))).toBe(true);
      expect(header).toContain('#    0  chatty-none/trial_0  NCCL_DEBUG=INFO');
      expect(m.text).not.toMatch(SPLITS_A_COMMENT);
      for (const docs of [libLoadAll(m.text), ...(py === null ? [] : [py[i]!])]) {
        expect(docs).toEqual([m.configMap, m.job]);
        expect((docs as Array<{ kind: string }>).map((d) => d.kind)).toEqual(['ConfigMap', 'Job']);
        expect((docs[0] as { data: Record<string, string> }).data).toEqual({ 'sweep.yaml': m.recipeText });
        expect(
          (docs[1] as { spec: { template: { spec: { containers: Array<{ command: string[] }> } } } }).spec.template.spec
            .containers[0]!.command,
        ).toEqual(taskCommand(m.o, 'JOB_COMPLETION_INDEX'));
      }
    }
  });

  it('words a YAML 1.1 reader would take for booleans, numbers, dates or merge keys stay strings', async () => {
    const plan = await planFor('yaml11', 'OPS-21', { a: { A: '1' } });
    const argv = [
      'no',
      'y',
      'N',
      'on',
      'Off',
      '1:30',
      '0x1f',
      '0o17',
      '017',
      '1_000',
      '2024-01-02',
      '<<',
      '=',
      '~',
      '.5',
      'null',
      '',
    ];
    const o: K8sOptions = {
      probeCommand: ['aorta-probe'],
      recipe: `${CONFIG_MOUNT}/sweep.yaml`,
      mitigationsFiles: [],
      outDir: '/results',
      passThrough: [],
      argv,
      image: 'on',
      pvc: '1_0',
      files: [{ name: 'sweep.yaml', text: 'x' }],
    };
    const { text, job, configMap } = emitK8s(plan, o);
    for (const docs of [libLoadAll(text), ...(pyLoadAll([text]) ?? [])]) expect(docs).toEqual([configMap, job]);
  });
});

/** Pieces the fuzz builds values from: controls, line breaks for each reader, shell and YAML syntax, sbatch's words. */
const ATOMS = [
  'a',
  'Z9',
  ' ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\x00',
  '\x01',
  '\x1b[31m',
  '\x7f',
  '\u0085',
  '\x9b',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u00a0',
  'é',
  '\u{1f4a5}',
  '\ud800',
  "'",
  '"',
  '\\',
  '`',
  '$',
  '$(id)',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, as a recipe value may hold one
  '${HOME}',
  '`id`',
  ';',
  '&',
  '|',
  '>',
  '<',
  '*',
  '?',
  '~',
  '!',
  '#',
  '%',
  '%j',
  '=',
  ':',
  ': ',
  '- ',
  '---',
  '...',
  '#SBATCH --uid=0',
  '\n#SBATCH --uid=0\n',
  '\nmkdir x\n',
  '{',
  '}',
  '[',
  ']',
  ',',
  'no',
  'y',
  '<<',
  '1:30',
  '0x1f',
  'null',
  '&a',
  '*a',
  '!!str',
  '>-',
  'hetjob',
  'PackJob',
  '--',
  '-',
];

function fuzzText(rand: () => number, maxAtoms: number, exclude: RegExp | null = null): string {
  let s = '';
  const n = Math.floor(rand() * (maxAtoms + 1));
  for (let i = 0; i < n; i++) {
    const atom = ATOMS[Math.floor(rand() * ATOMS.length)]!;
    if (exclude === null || !exclude.test(atom)) s += atom;
  }
  return s;
}

/** A file name (no '/' or NUL, not '.' or '..', well under 255 bytes) from fuzz text. */
const fuzzName = (rand: () => number, prefix: string) => `${prefix}${fuzzText(rand, 5, /\x00/)}`.slice(0, 60);
const NUL = /\x00/;
const DIRECTIVE_UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028\u2029]|hetjob|packjob/iu;

interface FuzzCase {
  readonly plan: SweepPlan;
  readonly dir: string;
  readonly recipeText: string;
  readonly recorder: string;
  readonly o: SlurmOptions & K8sOptions;
}

/** One random sweep: recipe and mitigations files at odd paths with odd names and values, odd options. */
async function fuzzCase(rand: () => number, i: number): Promise<FuzzCase> {
  const dir = join(root, 'fuzz', `${i}-${fuzzName(rand, 'd')}`);
  mkdirSync(dir, { recursive: true });
  const bundles = (tag: string): Bundles =>
    Object.fromEntries(
      Array.from({ length: 1 + Math.floor(rand() * 2) }, (_, j) => [
        `${tag}${j}${fuzzText(rand, 4)}`,
        { [`V${j}`]: fuzzText(rand, 6), W: fuzzText(rand, 3) },
      ]),
    );
  const fileBundles = Array.from({ length: Math.floor(rand() * 3) }, (_, k) => bundles(`f${k}-`));
  const mitigationsFiles = fileBundles.map((b, k) => {
    const p = join(dir, fuzzName(rand, `mf${k}`));
    writeFileSync(p, mitigationsYaml(b));
    return p;
  });
  const own = bundles('r-');
  const ticket = `T${fuzzText(rand, 4, NUL)}`;
  const recipePath = join(dir, `${fuzzName(rand, 'r')}.yaml`);
  const recipeText = recipeYaml(ticket, [...Object.keys(own), ...fileBundles.flatMap((b) => Object.keys(b))], own);
  writeFileSync(recipePath, recipeText);
  const plan = await loadSweepPlan(recipePath, { mitigationsFiles, ticket });
  const recorder = writeRecorder(join(dir, fuzzName(rand, 'bin')));
  const controls = rand() < 0.25;
  const o = {
    probeCommand: [recorder, ...Array.from({ length: Math.floor(rand() * 3) }, () => fuzzText(rand, 4, NUL))],
    recipe: recipePath,
    mitigationsFiles,
    outDir: `/o${fuzzText(rand, 5, controls ? NUL : DIRECTIVE_UNSAFE)}`,
    passThrough: ['--ticket', ticket, '--timeout', '5'],
    argv: Array.from({ length: Math.floor(rand() * 4) }, () => fuzzText(rand, 5, NUL)),
    sbatch:
      rand() < 0.5
        ? []
        : [
            `--comment=${fuzzText(rand, 4, rand() < 0.3 ? null : /[\x00-\x1f\x7f-\x9f\u2028\u2029"'\\]|hetjob|packjob/iu)}`,
          ],
    parallel: rand() < 0.5 ? undefined : 2,
    gpusPerTrial: rand() < 0.5 ? undefined : 1,
    image: fuzzText(rand, 4),
    pvc: fuzzText(rand, 4),
    gpuResource: rand() < 0.5 ? undefined : `x.io/${fuzzText(rand, 2)}`,
    files: [
      { name: fuzzName(rand, 'k'), text: recipeText },
      ...mitigationsFiles.map((f, k) => ({ name: `${k}-${fuzzName(rand, 'k')}`, text: readFileSync(f, 'utf8') })),
    ],
  };
  return { plan, dir, recipeText, recorder, o };
}

/** A case's options for one emitter: each refuses the other's keys (OptionsError). */
function slurmOptions<T extends { image?: unknown; pvc?: unknown; gpuResource?: unknown; files?: unknown }>(o: T) {
  const { image: _i, pvc: _p, gpuResource: _g, files: _f, ...rest } = o;
  return rest;
}
function k8sOptions<T extends { sbatch?: unknown }>(o: T) {
  const { sbatch: _s, ...rest } = o;
  return rest;
}

const CASES = 120;

describe('fuzz: control characters and shell/YAML metacharacters in every value that reaches the emitters', () => {
  const cases: Promise<FuzzCase[]> = (async () => {
    const rand = rng(0x5eed33);
    const out: FuzzCase[] = [];
    for (let i = 0; i < CASES; i++) out.push(await fuzzCase(rand, i));
    return out;
  })();

  it(`Slurm (${CASES} sweeps): bash -n passes, sbatch reads exactly our directives, the task runs exactly the argv`, {
    timeout: 60_000,
  }, async () => {
    let ran = 0;
    let refused = 0;
    for (const c of await cases) {
      const unsafe = [...(c.o.sbatch ?? []).map((v) => ['--sbatch', v]), ['--out', c.o.outDir]].find(([, v]) =>
        DIRECTIVE_UNSAFE.test(v!),
      );
      if (unsafe !== undefined) {
        expect(() => emitSlurm(c.plan, slurmOptions(c.o)), JSON.stringify(unsafe)).toThrow(SbatchValueError);
        refused++;
        continue;
      }
      const script = emitSlurm(c.plan, slurmOptions(c.o));
      expect(script.includes('\r\n') || script.includes('\0'), 'a CR LF pair or NUL: sbatch refuses the script').toBe(
        false,
      );
      const lines = script.split('\n');
      const body = lines.indexOf('set -euo pipefail');
      for (const line of lines.slice(1, body)) {
        expect(line.startsWith('#SBATCH ') || line === '#' || line.startsWith('# '), line).toBe(true);
        expect(line, 'a header line another reader would split').not.toMatch(SPLITS_A_COMMENT);
      }
      const n = c.plan.tasks.length;
      const directives = directiveLines(script);
      expect(directives.slice(3)).toEqual([
        ...(c.o.gpusPerTrial === undefined ? [] : [`#SBATCH --gpus-per-task=${c.o.gpusPerTrial}`]),
        ...(c.o.sbatch ?? []).map((s) => `#SBATCH ${s}`),
      ]);
      for (const legacy of [false, true])
        expect(directives.slice(0, 3).flatMap((l) => sbatchArguments(l, legacy))).toEqual([
          expect.stringMatching(/^--job-name=aorta-probe-[A-Za-z0-9_.-]+$/),
          `--array=0-${n - 1}${c.o.parallel === undefined ? '' : `%${c.o.parallel}`}`,
          `--output=${c.o.outDir.replace(/%/g, '%%')}/slurm/%A_%a.out`,
        ]);
      expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
      const r = runAsTask(script, c.dir);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.argv.equals(nulJoined(taskCommand(c.o, 'SLURM_ARRAY_TASK_ID').slice(1)))).toBe(true);
      const names = r.env
        .split('\n')
        .filter((l) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(l))
        .map((l) => l.slice(0, l.indexOf('=')))
        .sort();
      expect(names.filter((k) => !['OLDPWD', 'PWD', 'SHLVL', '_'].includes(k))).toEqual([
        'PATH',
        'REC_OUT',
        'SLURM_ARRAY_TASK_ID',
      ]);
      ran++;
    }
    expect([ran > CASES / 2, refused > 5]).toEqual([true, true]);
  });

  it(`Kubernetes (${CASES} sweeps): exactly a ConfigMap and a Job, field for field, by both YAML readers`, {
    timeout: 60_000,
  }, async () => {
    const all = (await cases).map((c) => ({ c, ...emitK8s(c.plan, k8sOptions(c.o)) }));
    const py = pyLoadAll(all.map((m) => m.text));
    for (const [i, m] of all.entries()) {
      expect(m.text, 'a line break another YAML reader sees').not.toMatch(SPLITS_A_COMMENT);
      expect(m.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff]/u);
      for (const docs of [libLoadAll(m.text), ...(py === null ? [] : [py[i]!])]) {
        expect(docs).toEqual([m.configMap, m.job]);
        const [cm, job] = docs as [
          { kind: string; data: Record<string, string> },
          {
            kind: string;
            spec: {
              template: {
                spec: {
                  containers: Array<{ image: string; command: string[]; volumeMounts: Array<{ mountPath: string }> }>;
                  volumes: Array<{ persistentVolumeClaim?: { claimName: string } }>;
                };
              };
            };
          },
        ];
        expect([cm.kind, job.kind]).toEqual(['ConfigMap', 'Job']);
        expect(cm.data).toEqual(Object.fromEntries(m.c.o.files.map((f) => [f.name, f.text])));
        expect(cm.data[m.c.o.files[0]!.name]).toBe(m.c.recipeText);
        const pod = job.spec.template.spec;
        expect(pod.containers[0]!.command).toEqual(taskCommand(m.c.o, 'JOB_COMPLETION_INDEX'));
        expect(pod.containers[0]!.image).toBe(m.c.o.image);
        expect(pod.containers[0]!.volumeMounts[0]!.mountPath).toBe(m.c.o.outDir);
        expect(pod.volumes[0]!.persistentVolumeClaim!.claimName).toBe(m.c.o.pvc);
      }
    }
  });
});

describe('aorta-probe sweep --emit through the CLI (dist/)', { timeout: 60_000 }, () => {
  const cli = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
    spawnSync(process.execPath, [MAIN, 'sweep', ...args], { encoding: 'utf8', env, timeout: 30_000 });

  it('a --mitigations-file env value with a line break adds no directive and runs no command', () => {
    expect(existsSync(MAIN), 'dist/ is built (npm run build:ts)').toBe(true);
    const dir = join(root, 'cli-repro');
    const recorder = writeRecorder(join(dir, 'bin'));
    const recipe = join(dir, 'sweep.yaml');
    const extra = join(dir, 'extra.yaml');
    const out = join(dir, 'runs');
    const mark = join(dir, 'owned');
    writeFileSync(recipe, recipeYaml('CLI-33', ['quiet'], {}));
    writeFileSync(extra, mitigationsYaml({ quiet: { RCCL_LOG: `ERROR\n#SBATCH --exclusive\nmkdir "${mark}"` } }));
    const script = join(dir, 'sweep.sbatch');
    const r = cli([
      '--recipe',
      recipe,
      '--mitigations-file',
      extra,
      '--out',
      out,
      '--emit',
      'slurm',
      '--emit-to',
      script,
      '--probe-command',
      recorder,
      '--',
      'sh',
      '-c',
      'echo "$1"',
      '-',
      "it's $(id)",
    ]);
    expect([r.status, r.stderr]).toEqual([0, `aorta-probe sweep: wrote ${script} (1 tasks)\n`]);
    const text = readFileSync(script, 'utf8');
    expect(directiveLines(text)).toEqual([
      '#SBATCH --job-name=aorta-probe-CLI-33',
      '#SBATCH --array=0-0',
      `#SBATCH --output=${out}/slurm/%A_%a.out`,
    ]);
    const run = runAsTask(text, dir);
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.argv).toEqual(
      nulJoined([
        'sweep',
        '--recipe',
        recipe,
        '--mitigations-file',
        extra,
        '--out',
        out,
        '--task-env',
        'SLURM_ARRAY_TASK_ID',
        '--',
        'sh',
        '-c',
        'echo "$1"',
        '-',
        "it's $(id)",
      ]),
    );
    expect(existsSync(mark)).toBe(false);
  });

  it('refuses --sbatch and --out values with a line break: exit 2, the option named, nothing written', () => {
    const dir = join(root, 'cli-refuse');
    mkdirSync(dir, { recursive: true });
    const recipe = join(dir, 'sweep.yaml');
    writeFileSync(recipe, recipeYaml('CLI-34', ['a'], { a: { A: '1' } }));
    const script = join(dir, 'sweep.sbatch');
    const emit = ['--emit', 'slurm', '--emit-to', script, '--', 'true'];
    expect(
      cli(['--recipe', recipe, '--out', join(dir, 'runs'), '--sbatch', '--qos=low\n#SBATCH --uid=0', ...emit]),
    ).toMatchObject({
      status: 2,
      stdout: '',
      stderr:
        "aorta-probe sweep: --sbatch '--qos=low\\n#SBATCH --uid=0': holds a line break or control character ('\\n'), which cannot go on an #SBATCH line\n",
    });
    const badOut = join(dir, 'runs\nid');
    expect(cli(['--recipe', recipe, '--out', badOut, ...emit])).toMatchObject({
      status: 2,
      stdout: '',
      stderr: `aorta-probe sweep: --out '${join(dir, 'runs')}\\nid': holds a line break or control character ('\\n'), which cannot go on an #SBATCH line\n`,
    });
    expect([existsSync(script), existsSync(badOut)]).toEqual([false, false]);
  });

  it('k8s: a recipe and a mitigations file whose names collide still get a ConfigMap key each', () => {
    const dir = join(root, 'cli-keys');
    mkdirSync(dir, { recursive: true });
    const recipe = join(dir, '1-m.yaml');
    const extra = join(dir, 'm.yaml');
    writeFileSync(recipe, recipeYaml('CLI-35', ['b'], {}));
    writeFileSync(extra, mitigationsYaml({ b: { B: '2' } }));
    const r = cli([
      '--recipe',
      recipe,
      '--mitigations-file',
      extra,
      '--out',
      '/results',
      '--emit',
      'k8s',
      '--image',
      'img:1',
      '--pvc',
      'runs',
      '--',
      'true',
    ]);
    expect([r.status, r.stderr]).toEqual([0, '']);
    const docs = libLoadAll(r.stdout) as [
      { data: Record<string, string> },
      { spec: { template: { spec: { containers: Array<{ command: string[] }> } } } },
    ];
    expect(docs[0].data).toEqual({
      '_1-m.yaml': readFileSync(recipe, 'utf8'),
      '1-m.yaml': readFileSync(extra, 'utf8'),
    });
    expect(docs[1].spec.template.spec.containers[0]!.command.slice(0, 6)).toEqual([
      'aorta-probe',
      'sweep',
      '--recipe',
      `${CONFIG_MOUNT}/_1-m.yaml`,
      '--mitigations-file',
      `${CONFIG_MOUNT}/1-m.yaml`,
    ]);
  });
});
