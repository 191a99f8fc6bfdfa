/**
 * docs/library.md names every runtime export of both entry points, as code: the built `aorta-probe` and
 * `aorta-probe/node` (dist/, as a consumer loads them), against the identifiers in the page's inline code spans
 * (`ready`, `ready(options?)`, `new TextScrubber(…)`). src/index.ts promises it: "anything else is internal".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/browser.js';

const LIBRARY_MD = join(REPO_ROOT, 'docs', 'library.md');

async function runtimeExports(entry: string): Promise<string[]> {
  const mod = (await import(pathToFileURL(join(REPO_ROOT, 'dist', 'src', entry)).href)) as Record<string, unknown>;
  return Object.keys(mod).sort();
}

/** Every identifier inside an inline code span of `markdown` (fenced blocks are examples, not documentation). */
function codeIdentifiers(markdown: string): Set<string> {
  const prose = markdown.replace(/^( *)```[^\n]*\n[\s\S]*?^\1```$/gm, '');
  const names = new Set<string>();
  for (const span of prose.matchAll(/`([^`\n]+)`/g))
    for (const id of span[1]!.matchAll(/[A-Za-z_$][\w$]*/g)) names.add(id[0]);
  return names;
}

/** The exports `documented` lacks, or an empty list. */
function undocumented(exports: readonly string[], documented: ReadonlySet<string>): string[] {
  return exports.filter((name) => !documented.has(name));
}

describe('docs/library.md names every export', () => {
  const documented = codeIdentifiers(readFileSync(LIBRARY_MD, 'utf8'));

  it('finds names in code spans only, whole identifiers', () => {
    const names = codeIdentifiers(
      'Call `ready(options?)` or `new TextScrubber({a})`; ready in prose.\n```ts\nisReady();\n```\n',
    );
    expect([...names].sort()).toEqual(['TextScrubber', 'a', 'new', 'options', 'ready']);
    expect(undocumented(['ready', 'isReady', 'Text'], names)).toEqual(['isReady', 'Text']);
  });

  it.each(['index.js', 'node.js'])('every runtime export of dist/src/%s', async (entry) => {
    const exports = await runtimeExports(entry);
    expect(exports.length).toBeGreaterThan(50);
    const missing = undocumented(exports, documented);
    expect(missing, `exports of dist/src/${entry} not named as code in docs/library.md: ${missing.join(', ')}`).toEqual(
      [],
    );
  });
});
