/**
 * The README's 5-minute tour as data: its first YAML block (saved as recipe.yaml) and its console blocks, each a
 * list of `$ command` lines with the output shown under them. A line `…` in the shown output stands for any number
 * of lines (wall times and other values that change from run to run).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fencedBlocks } from './consumer.js';

export interface TourStep {
  command: string;
  shown: string[];
}

export function tourSteps(readmePath: string): { recipe: string; steps: TourStep[] } {
  const recipe = fencedBlocks(readmePath, 'yaml')[0];
  if (recipe === undefined) throw new Error(`${readmePath}: no yaml block for recipe.yaml`);
  const steps: TourStep[] = [];
  for (const block of fencedBlocks(readmePath, 'console')) {
    for (const line of block.replace(/\n$/, '').split('\n')) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), shown: [] });
      else if (steps.length > 0) steps[steps.length - 1]!.shown.push(line);
      else throw new Error(`${readmePath}: console block does not start with a command: ${line}`);
    }
  }
  return { recipe, steps };
}

/** Whether `actual` is `shown`, where a `…` line matches any run of lines. */
export function matchesShown(shown: readonly string[], actual: readonly string[]): boolean {
  const [head, ...rest] = shown;
  if (head === undefined) return actual.length === 0;
  if (head === '…') {
    for (let skip = 0; skip <= actual.length; skip++) if (matchesShown(rest, actual.slice(skip))) return true;
    return false;
  }
  return actual[0] === head && matchesShown(rest, actual.slice(1));
}

export interface TourRun {
  command: string;
  shown: string[];
  /** stdout and stderr, interleaved as a terminal shows them. */
  actual: string[];
}

/**
 * Runs the tour in `cwd` (which gets recipe.yaml). `npx aorta-probe` is run as `aortaBin`, the very file npx
 * starts: the `node_modules/.bin/aorta-probe` link of the project (an install, or a clone after `npm install`).
 */
export function runTour(readmePath: string, cwd: string, aortaBin: string): TourRun[] {
  const { recipe, steps } = tourSteps(readmePath);
  writeFileSync(join(cwd, 'recipe.yaml'), recipe);
  return steps.map(({ command, shown }) => {
    const script = command.replace(/^npx aorta-probe /, `'${aortaBin}' `);
    const r = spawnSync('bash', ['-c', `${script} 2>&1`], {
      cwd,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return {
      command,
      shown,
      actual: r.stdout
        .replace(/\n$/, '')
        .split('\n')
        .filter((l, _i, a) => !(a.length === 1 && l === '')),
    };
  });
}
