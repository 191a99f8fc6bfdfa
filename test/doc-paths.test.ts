/**
 * Paths the help texts and the docs name are real. A repository path (`fixtures/…`, `schemas/…`, `docs/…`,
 * `examples/…`) or a link into the repository on GitHub named by any command's `--help` (the built CLI), by
 * README.md or by docs/*.md exists in the repository; a help text names only paths the package ships
 * (package.json "files"), since its reader may have only the package; and a Markdown file that ships (README.md)
 * names in its examples only shipped paths, unless the example says `(in the repository, not the package)`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const CLI = join(REPO_ROOT, 'dist', 'src', 'cli', 'main.cjs');
const MARKER = '(in the repository, not the package)';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  files: string[];
  repository: { url: string };
};
/** `https://github.com/OWNER/NAME/blob/main/`, from package.json's repository. */
const BLOB = `${pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/blob/main/`;

/** A repository path: one of these folders, not inside a longer path or URL; may end in a glob. */
const PATH = /(?<![\w./:-])(?:fixtures|schemas|docs|examples)\/[\w.*/-]*[\w*]/g;
const escapeRegex = (s: string): string => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
const LINK = new RegExp(`${escapeRegex(BLOB)}([\\w.*/-]*[\\w*])`, 'g');

/** The repository paths `text` names: plain ones, and those behind a link into the repository on GitHub. */
function namedPaths(text: string): { plain: string[]; linked: string[] } {
  return {
    plain: [...new Set([...text.matchAll(PATH)].map((m) => m[0]))],
    linked: [...new Set([...text.matchAll(LINK)].map((m) => m[1]!))],
  };
}

/** A glob of package.json "files" (or a path with `*`) as a regex; a match may be a file under a listed folder. */
function globRegex(glob: string, under: boolean): RegExp {
  const body = glob
    .split(/(\*\*\/|\*)/)
    .map((s) => (s === '**/' ? '(?:.*/)?' : s === '*' ? '[^/]*' : escapeRegex(s)))
    .join('');
  return new RegExp(`^${body}${under ? '(?:/.*)?' : ''}$`);
}

const SHIPPED = [...pkg.files, 'package.json', 'README.md', 'LICENSE'].map((f) => globRegex(f, true));

/** The repository files a glob matches (searched below its folder without a `*`). */
function globMatches(glob: string): string[] {
  const base = glob.slice(0, glob.lastIndexOf('/', glob.indexOf('*')));
  const re = globRegex(glob, false);
  const dir = join(REPO_ROOT, base);
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).map((f) => `${base}/${f}`).filter((f) => re.test(f));
}

function exists(path: string): boolean {
  return path.includes('*') ? globMatches(path).length > 0 : existsSync(join(REPO_ROOT, path));
}

function shipped(path: string): boolean {
  const ships = (p: string): boolean => SHIPPED.some((re) => re.test(p));
  if (!path.includes('*')) return ships(path);
  const matches = globMatches(path);
  return matches.length > 0 && matches.every(ships);
}

/**
 * Paths named inside the fenced blocks of `markdown` without the marker in the block, in the paragraph just above
 * it, or before the page's first block, as `path (line N)`.
 */
function unmarkedExamplePaths(markdown: string, ok: (path: string) => boolean): string[] {
  const lines = markdown.split('\n');
  const out: string[] = [];
  // A page whose opening paragraphs (before its first example) carry the marker says it once for all (docs/cli.md).
  const firstFence = lines.findIndex((l) => /^ *```/.test(l));
  if (
    lines
      .slice(0, firstFence === -1 ? 0 : firstFence)
      .join('\n')
      .includes(MARKER)
  )
    return out;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^( *)```/.exec(lines[i]!);
    if (fence === null) continue;
    const close = lines.findIndex((l, j) => j > i && l.startsWith(`${fence[1]}\`\`\``));
    const end = close === -1 ? lines.length : close;
    let start = i;
    while (start > 0 && lines[start - 1]!.trim() === '') start--;
    while (start > 0 && lines[start - 1]!.trim() !== '') start--;
    if (!lines.slice(start, end).join('\n').includes(MARKER)) {
      for (let j = i + 1; j < end; j++)
        for (const p of namedPaths(lines[j]!).plain) if (!ok(p)) out.push(`${p} (line ${j + 1})`);
    }
    i = end;
  }
  return out;
}

function help(args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

/** The top-level help, then each command's `--help` (`help` itself has none: without a topic it is the first). */
function helpTexts(): Map<string, string> {
  const top = help(['--help']);
  const list = top.split('\nCommands:\n')[1]!.split('\nOptions:\n')[0]!;
  const commands = [...new Set([...list.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!))];
  const texts = new Map([['aorta-probe --help', top]]);
  for (const c of commands.filter((c) => c !== 'help')) texts.set(`aorta-probe ${c} --help`, help([c, '--help']));
  return texts;
}

const DOCS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the rules themselves', () => {
  it('finds repository paths and links, not parts of longer paths', () => {
    const text = `see fixtures/demo/recipe.yaml, docs/x.md. (schemas/*.json) node_modules/a/fixtures/b ${BLOB}docs/y.md#z`;
    expect(namedPaths(text)).toEqual({
      plain: ['fixtures/demo/recipe.yaml', 'docs/x.md', 'schemas/*.json'],
      linked: ['docs/y.md'],
    });
  });

  it('resolves "files" like npm: folders, globs, exact files', () => {
    expect(shipped('fixtures/demo/trial.mjs')).toBe(true);
    expect(shipped('schemas/result.schema.json')).toBe(true);
    expect(shipped('schemas/*.schema.json')).toBe(true);
    expect(shipped('fixtures/recipes/lint-four-bugs.yaml')).toBe(true);
    expect(shipped('fixtures/recipes/*.yaml')).toBe(false);
    expect(shipped('fixtures/recipes/nan-loss.yaml')).toBe(false);
    expect(shipped('docs/redaction.md')).toBe(true);
    expect(shipped('docs/img/report-matrix.png')).toBe(false);
    expect(exists('fixtures/recipes/*.yaml')).toBe(true);
    expect(exists('fixtures/sweep/nope.yaml')).toBe(false);
  });

  it('accepts an example path outside the package only with the marker', () => {
    const doc = `Run:\n\n\`\`\`sh\naorta-probe check fixtures/a.yaml\n\`\`\`\n\nIt is ${MARKER}:\n\`\`\`sh\ncat fixtures/b.yaml\n\`\`\`\n`;
    expect(unmarkedExamplePaths(doc, shipped)).toEqual(['fixtures/a.yaml (line 4)']);
    const marked = `# Page\n\nEvery example here is ${MARKER}.\n\n${doc.replace(`It is ${MARKER}:`, 'Also:')}`;
    expect(unmarkedExamplePaths(marked, shipped)).toEqual([]);
  });
});

describe('help texts', () => {
  const texts = helpTexts();

  it('cover every command', () => {
    expect(texts.size).toBeGreaterThanOrEqual(12);
    const all = [...texts.values()].join('\n');
    expect(namedPaths(all).plain).toEqual(
      expect.arrayContaining(['fixtures/demo/recipe.yaml', 'schemas/result.schema.json']),
    );
  });

  it('name only paths the package ships, and links to files the repository has', () => {
    const bad: string[] = [];
    for (const [name, text] of texts) {
      const { plain, linked } = namedPaths(text);
      for (const p of plain)
        if (!exists(p) || !shipped(p)) bad.push(`${name}: ${p} (${exists(p) ? 'not shipped' : 'missing'})`);
      for (const p of linked) if (!exists(p)) bad.push(`${name}: ${BLOB}${p} (missing)`);
    }
    expect(bad, `help texts naming paths a package user does not have:\n${bad.join('\n')}`).toEqual([]);
  });
});

describe('README.md and docs/*.md', () => {
  it.each(DOCS)('%s names only paths the repository has', (doc) => {
    const { plain, linked } = namedPaths(readFileSync(join(REPO_ROOT, doc), 'utf8'));
    const missing = [...plain, ...linked].filter((p) => !exists(p));
    expect(missing, `${doc} names paths the repository lacks: ${missing.join(', ')}`).toEqual([]);
  });

  it.each(DOCS.filter(shipped))('%s ships: its examples name shipped paths, or say they are not', (doc) => {
    const unmarked = unmarkedExamplePaths(readFileSync(join(REPO_ROOT, doc), 'utf8'), shipped);
    expect(unmarked, `${doc}: example paths outside the package, not marked ${MARKER}: ${unmarked.join(', ')}`).toEqual(
      [],
    );
  });
});
