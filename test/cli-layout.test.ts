/**
 * The shape of src/cli/ (CONTRIBUTING.md's map): one module per command under commands/, each exporting the
 * `Command` the dispatcher's table (main.ts) loads for its name, and no top-level file named like a library file
 * (a `cli/scan.ts` next to `scan/scan.ts` misleads a reader about which one does the work).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_TABLE } from '../src/cli/main.js';
import { listSources, REPO_ROOT } from './support/module-graph.js';

const SRC = join(REPO_ROOT, 'src');
const CLI = join(SRC, 'cli');
const COMMANDS = join(CLI, 'commands');

const tsFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort();

describe('src/cli/ layout', () => {
  it('no top-level src/cli/*.ts shares its name with a file in another src/ folder', () => {
    const library = new Map<string, string>();
    for (const f of listSources(SRC)) {
      const rel = relative(SRC, f);
      if (!rel.includes(sep) || rel.startsWith(`cli${sep}`)) continue; // root files, and the CLI itself
      library.set(basename(f), rel);
    }
    expect(library.size).toBeGreaterThan(50);
    const clashes = tsFiles(CLI)
      .filter((f) => library.has(f))
      .map((f) => `src/cli/${f} ~ src/${library.get(f)}`);
    expect(clashes, 'rename the CLI file (e.g. what it does for the command)').toEqual([]);
  });

  it('every module in commands/ exports the Command its name loads, and the table loads nothing else', async () => {
    const modules = tsFiles(COMMANDS).map((f) => f.replace(/\.ts$/, ''));
    expect(modules.length).toBeGreaterThan(0);
    expect(modules).toEqual(Object.keys(COMMAND_TABLE).sort());
    const dispatcher = readFileSync(join(CLI, 'main.ts'), 'utf8');
    for (const name of modules) {
      const m = (await import(/* @vite-ignore */ join(COMMANDS, `${name}.ts`))) as {
        command?: { name?: unknown; usage?: unknown };
      };
      expect(m.command?.name, `commands/${name}.ts exports command`).toBe(name);
      expect(typeof m.command?.usage).toBe('string');
      // The table's entry for the name is the lazy import of that module (each command loads only its own).
      const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`;
      expect(dispatcher).toContain(`${key}: lazy(() => import('./commands/${name}.js')),`);
    }
  });
});
