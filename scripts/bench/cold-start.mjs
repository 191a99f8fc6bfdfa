// Part 3 — cold start: whole processes, as a CI job or a shell loop would run them. Each command
// is spawned `runs` times (≥ 10); the figure is the wall time from spawn to exit.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { summarize } from './stats.mjs';
import { PYTHON } from './child.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const RECIPE = 'fixtures/recipes/example-probe-smoke.yaml';
const COND = "int(capture['code']) == 137";
const PY_PRELUDE = "import sys; sys.path.insert(0, 'scripts/bench'); import reference; ";

function timeRuns(cmd, args, runs) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8' });
    ms.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  }
  return summarize(ms);
}

export function runColdStart({ runs }) {
  // PyYAML is what the original uses; where it is missing the python side reads a JSON rendering
  // of the same recipe (json is stdlib and faster, so that favours python; the table says which).
  const hasYaml = spawnSync(PYTHON, ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0;
  const jsonRecipe = join(tmpdir(), `aorta-bench-recipe-${process.pid}.json`);
  const pyRecipe = hasYaml ? RECIPE : jsonRecipe;
  if (!hasYaml) writeFileSync(jsonRecipe, JSON.stringify(parseYaml(readFileSync(join(ROOT, RECIPE), 'utf8'))));
  const node = process.execPath;
  try {
    const rows = [
      {
        task: 'check the example recipe',
        engine: 'ours: aorta-probe check',
        ms: timeRuns(node, ['dist/src/cli/main.js', 'check', RECIPE], runs),
      },
      {
        task: 'check the example recipe',
        engine: `python3 reference: ${hasYaml ? 'yaml.safe_load' : 'json.load (no PyYAML here)'} + custom_patterns checks`,
        ms: timeRuns(PYTHON, ['-c', `${PY_PRELUDE}print(reference.check_recipe(${JSON.stringify(pyRecipe)}))`], runs),
      },
      {
        task: 'eval one condition',
        engine: 'ours: aorta-probe eval',
        ms: timeRuns(node, ['dist/src/cli/main.js', 'eval', COND, '--capture', 'code=137'], runs),
      },
      {
        task: 'eval one condition',
        engine: 'python3 reference: validate_and_compile + evaluate',
        ms: timeRuns(
          PYTHON,
          [
            '-c',
            `${PY_PRELUDE}c = reference.validate_and_compile(${JSON.stringify(COND)}); print(reference.evaluate(c, capture={'code': '137'}, exit_code=0, walltime_sec=0.0, peak_vram_mib=None))`,
          ],
          runs,
        ),
      },
      { task: 'baseline: empty process', engine: 'node -e 0', ms: timeRuns(node, ['-e', '0'], runs) },
      { task: 'baseline: empty process', engine: 'python3 -c pass', ms: timeRuns(PYTHON, ['-c', 'pass'], runs) },
    ];
    return { rows, pythonRecipeLoader: hasYaml ? 'PyYAML safe_load' : 'json (PyYAML not installed)' };
  } finally {
    rmSync(jsonRecipe, { force: true });
  }
}
