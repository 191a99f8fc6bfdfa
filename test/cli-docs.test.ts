/**
 * docs/cli.md shows what the current code prints: each `<!-- example -->` block's commands are run in-process and
 * their output compared with the block, durations, dates and versions aside (scripts/cli-doc-examples.mjs writes
 * the blocks; run it after changing an output).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.js';
// @ts-expect-error -- a plain .mjs script without type declarations
import { exampleBlocks, normalise, runExample, shown } from '../scripts/cli-doc-examples.mjs';

interface Command {
  readonly text: string;
  readonly args: string[];
}
interface Block {
  readonly open: number;
  readonly close: number;
  readonly indent: string;
  readonly commands: readonly Command[];
}

const DOC = 'docs/cli.md';
const lines = readFileSync(DOC, 'utf8').split('\n');
const blocks = (exampleBlocks as (md: string) => Block[])(lines.join('\n'));

describe('docs/cli.md examples are the output of the current code', () => {
  it('has examples of every format', () => {
    const all = blocks.flatMap((b) => b.commands.map((c) => c.text)).join('\n');
    for (const f of ['json', 'junit', 'github'])
      expect(all).toContain(`run --recipe fixtures/demo/recipe.yaml --out runs/demo-${f}`);
    expect(all).toContain('check --format sarif');
    expect(all).toContain('check --format github');
  });

  it.each(blocks.map((b) => [`line ${b.open + 1}: ${b.commands.map((c) => c.text.split(' ')[0]).join(', ')}`, b]))(
    '%s',
    async (_name, b) => {
      let body = '';
      for (const cmd of b.commands)
        body += (shown as (c: Command, r: unknown) => string)(
          cmd,
          await (runExample as (r: typeof runCli, a: string[]) => Promise<unknown>)(runCli, cmd.args),
        );
      const inDoc = lines
        .slice(b.open + 1, b.close)
        .map((l) => l.slice(b.indent.length))
        .join('\n');
      const norm = normalise as (t: string) => string;
      expect(norm(inDoc), 'run `npm run build:ts && node scripts/cli-doc-examples.mjs`').toBe(
        norm(body.replace(/\n$/, '')),
      );
    },
    60_000,
  );
});
