#!/usr/bin/env node
/**
 * Regenerates the examples of docs/cli.md from the current build: every fenced block right after an
 * `<!-- example -->` line holds `$ aorta-probe ...` commands, each followed by what it prints (stdout, then stderr
 * unless the command ends in `2>/dev/null`; `| jq .` pretty-prints the JSON); a non-zero exit status is noted as
 * `# exit N` after the command. test/cli-docs.test.ts runs the same commands and compares, times aside.
 *
 *   npm run build:ts && node scripts/cli-doc-examples.mjs [docs/cli.md]
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';

const MARKER = '<!-- example -->';
const PROMPT = '$ aorta-probe ';

/** Shell words: blanks separate, '...' and "..." quote (no escapes inside; the examples need none). */
export function shellWords(line) {
  const words = [];
  let cur = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'" || ch === '"') {
      const end = line.indexOf(ch, i + 1);
      if (end === -1) throw new Error(`unclosed quote in: ${line}`);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (ch === ' ') {
      if (cur !== null) words.push(cur);
      cur = null;
    } else cur = (cur ?? '') + ch;
  }
  if (cur !== null) words.push(cur);
  return words;
}

/** A command line as written in the docs: its arguments and how to show its output. */
export function parseCommand(line) {
  let text = line.slice(PROMPT.length).replace(/ {2,}# exit \d+$/, '');
  const pretty = text.endsWith(' | jq .');
  if (pretty) text = text.slice(0, -' | jq .'.length);
  const quiet = text.endsWith(' 2>/dev/null');
  if (quiet) text = text.slice(0, -' 2>/dev/null'.length);
  return { text, args: shellWords(text), pretty, stderr: !quiet };
}

/** The example blocks of a Markdown text: where each starts and ends (line indexes) and its commands. */
export function exampleBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== MARKER) continue;
    const open = i + 1;
    // A block in a list item is indented like the item's text; so are its lines.
    const indent = /^ */.exec(lines[i])[0];
    if (!lines[open]?.startsWith(`${indent}\`\`\``))
      throw new Error(`line ${i + 1}: ${MARKER} without a fenced block after it`);
    const close = lines.findIndex((l, j) => j > open && l.startsWith(`${indent}\`\`\``));
    const commands = lines
      .slice(open + 1, close)
      .map((l) => l.slice(indent.length))
      .filter((l) => l.startsWith(PROMPT))
      .map(parseCommand);
    blocks.push({ open, close, indent, commands });
    i = close;
  }
  return blocks;
}

/** What the block shows for one command's run. */
export function shown(cmd, { code, out, err }) {
  const body = cmd.pretty && out.trim() !== '' ? `${JSON.stringify(JSON.parse(out), null, 2)}\n` : out;
  // A record names its recipe by absolute path: the checkout's own root is not the reader's.
  const text = `${PROMPT}${cmd.text}${cmd.stderr ? '' : ' 2>/dev/null'}${cmd.pretty ? ' | jq .' : ''}${code === 0 ? '' : `   # exit ${code}`}\n${body}${cmd.stderr ? err : ''}`;
  return text.replaceAll(`${process.cwd()}/`, '/path/to/aorta-probe/');
}

/**
 * What varies from run to run, replaced by a placeholder: durations, times of day, the Node version. Compared
 * after this, an example shows what the current code prints.
 */
export function normalise(text) {
  return (
    text
      .replace(/\btime="[0-9.]+"/g, 'time="T"')
      .replace(/\btimestamp="[^"]*"/g, 'timestamp="T"')
      .replace(/walltime: [0-9.]+ s/g, 'walltime: T s')
      .replace(/("walltime_sec": ?)[0-9.]+/g, '$1T')
      // A report's wall-time distributions (report --json, sweep --json).
      .replace(/("walltime_sec": ?\{[^}]*\})/g, (d) => d.replace(/("(?:median|p95|max)": ?)[0-9.e+-]+/g, '$1T'))
      .replace(/("tier[1-5]": ?)[0-9.]+/g, '$1T')
      .replace(/("started_at": ?)"[^"]*"/g, '$1"T"')
      .replace(/("node": ?)"v[0-9.]+"/g, '$1"T"')
      .replace(/("version": ?)"[0-9][^"]*"/g, '$1"V"')
      // A sweep's run id is random (src/sweep/run-dir.ts).
      .replace(/("run_id": ?)"[0-9a-f]{32}"/g, '$1"R"')
      // A sweep's matrix: when it was written, the cells' timings, and the speed confound they decide.
      .replace(/("run_timestamp": ?)"[^"]*"/g, '$1"T"')
      .replace(/("aorta_probe_version": ?)"[^"]*"/g, '$1"V"')
      .replace(/("(?:mean_wall_clock_sec|mean_step_time_ms|step_time_ratio)": ?)[0-9.e+-]+/g, '$1T')
      .replace(/("confound": ?)"(?:-|no effect|speed \(\+\d+%\))"/g, '$1"C"')
      .replace(/confound (?:-|no effect|speed \(\+\d+%\))$/gm, 'confound C')
  );
}

/**
 * A sweep example shows a fresh run: its `--out` (under `runs/`, the examples' scratch directory) is removed first,
 * or running the examples again would resume the last run's trials instead of running them.
 */
function freshSweepOut(args) {
  if (args[0] !== 'sweep' || args.includes('--dry-run') || args.includes('--emit')) return;
  const out = args[args.indexOf('--out') + 1];
  if (args.includes('--out') && typeof out === 'string' && out.startsWith('runs/'))
    rmSync(out, { recursive: true, force: true });
}

/** Runs one command in-process with the given runCli; stdin is empty. */
export async function runExample(runCli, args) {
  freshSweepOut(args);
  const stdin = new PassThrough();
  stdin.end('');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c.toString()));
  stderr.on('data', (c) => (err += c.toString()));
  const code = await runCli(args, { stdin, stdout, stderr });
  return { code, out, err };
}

async function main() {
  const file = process.argv[2] ?? 'docs/cli.md';
  const { runCli } = await import(pathToFileURL('dist/src/cli/main.js').href);
  const lines = readFileSync(file, 'utf8').split('\n');
  // From the last block up, so that earlier line indexes stay valid.
  for (const b of exampleBlocks(lines.join('\n')).reverse()) {
    let body = '';
    for (const cmd of b.commands) body += shown(cmd, await runExample(runCli, cmd.args));
    const shownLines = body
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => (l === '' ? '' : b.indent + l));
    lines.splice(b.open + 1, b.close - b.open - 1, ...shownLines);
  }
  writeFileSync(file, lines.join('\n'));
  process.stdout.write(`regenerated the examples of ${file}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
