/** Example recipes and logs the page can load (the spec's worked examples, an OOM recipe, a NaN-loss recipe). */
import nanLossRecipe from '../../fixtures/recipes/nan-loss.yaml?raw';
import nanLossLog from '../../fixtures/logs/loss-then-nan.txt?raw';
import smokeRecipe from '../../fixtures/recipes/example-probe-smoke.yaml?raw';
import lintRecipe from '../../fixtures/recipes/lint-four-bugs.yaml?raw';
import { withRedactionBlock } from './redact-example.js';

export interface Example {
  id: string;
  title: string;
  recipe: string;
  log: string;
  vars: { exit_code: number; walltime_sec: number; peak_vram_mib: number | null };
  /** A condition to put in the scratchpad, with its captures. */
  expr: string;
  capture: Record<string, string>;
}

const WORKED_RECIPE = `# The four allowed worked examples of the condition-sandbox spec, one per custom pattern.
custom_patterns:
  # Trial failed when loss exploded.
  - id: loss_exploded
    match:
      regex: "loss=(?P<loss>[^ \\\\n]+)"
      condition: "math.isnan(float(capture['loss']))"
    on_match: fail
    category: numeric_silent
  # Slow iteration only counts on a real GPU host.
  - id: slow_iteration
    match:
      regex: "iteration took (?P<secs>[0-9.]+)s"
      condition: "walltime_sec > 60 and peak_vram_mib > 0"
    on_match: warn
    category: perf_regression
  # Exit code 137 (OOM-kill) plus a non-empty captured message
  # (no substring search in conditions: ast.In is rejected; use the regex).
  - id: killed_with_message
    match:
      regex: "Killed: (?P<msg>.+)"
      condition: "exit_code == 137 and len(capture['msg']) > 0"
    on_match: fail
    category: oom_fragment
  # Specific value check (Tier-3 OOM-killer signature).
  - id: oom_killer_code
    match:
      regex: "exit code (?P<code>[0-9]+)"
      condition: "int(capture['code']) == 137"
    on_match: fail
    category: oom_fragment
`;

const WORKED_LOG = `[12:00:01] step 10 loss=0.731
[12:00:09] iteration took 8.2s
[12:01:30] step 20 loss=nan
[12:01:31] Killed: out of memory in worker 3
[12:01:31] process finished with exit code 137
`;

const OOM_LOG = `[2026-11-02 10:20:11] rank 3: allocating activation buffers (41.2 GiB)
[2026-11-02 10:20:12] kernel: Out of memory: Killed process 4711 (python) total-vm:81234560kB, out of memory (oom_kill)
[2026-11-02 10:20:12] NCCL WARN Net : Connection closed by remote peer
[2026-11-02 10:20:13] trial exited with code 137
`;

const LINT_LOG = `[12:00:01] step 10 loss=0.731 grad_norm=4.2
[12:01:30] step 20 loss=nan grad_norm=nan
[12:01:31] process finished with exit code 137
`;

const HOSTILE_RECIPE = `# Rejected at load time: the sandbox names the first forbidden node.
custom_patterns:
  - id: oom_message
    match:
      regex: "(?P<msg>CUDA out of memory.*)"
      condition: "'oom' in capture['msg']"
    on_match: fail
`;

const HOSTILE_LOG = `RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (oom)
`;

export const EXAMPLES: readonly Example[] = [
  {
    id: 'nan-loss',
    title: 'NaN loss (fires on the first NaN)',
    recipe: nanLossRecipe,
    log: nanLossLog,
    vars: { exit_code: 0, walltime_sec: 12.5, peak_vram_mib: null },
    expr: "math.isnan(float(capture['loss']))",
    capture: { loss: 'nan' },
  },
  {
    id: 'oom',
    title: 'OOM killer (exit code 137)',
    recipe: smokeRecipe,
    log: OOM_LOG,
    vars: { exit_code: 137, walltime_sec: 431.0, peak_vram_mib: 81920 },
    expr: 'exit_code == 137',
    capture: {},
  },
  {
    id: 'redaction',
    title: 'OOM probe recipe with a redaction: block (see the Redact view)',
    recipe: withRedactionBlock(smokeRecipe),
    log: OOM_LOG,
    vars: { exit_code: 137, walltime_sec: 431.0, peak_vram_mib: 81920 },
    expr: 'exit_code == 137',
    capture: {},
  },
  {
    id: 'worked',
    title: 'Spec worked examples (all four allowed conditions)',
    recipe: WORKED_RECIPE,
    log: WORKED_LOG,
    vars: { exit_code: 137, walltime_sec: 95.0, peak_vram_mib: 40960 },
    expr: "exit_code == 137 and len(capture['msg']) > 0",
    capture: { msg: 'out of memory in worker 3' },
  },
  {
    id: 'lint',
    title: 'Four conditions that can never fire (linter warnings)',
    recipe: lintRecipe,
    log: LINT_LOG,
    vars: { exit_code: 137, walltime_sec: 60.0, peak_vram_mib: null },
    expr: "capture['code'] == 137",
    capture: { code: '137' },
  },
  {
    id: 'rejected',
    title: "Rejected condition ('oom' in capture['msg'])",
    recipe: HOSTILE_RECIPE,
    log: HOSTILE_LOG,
    vars: { exit_code: 1, walltime_sec: 3.0, peak_vram_mib: null },
    expr: "'oom' in capture['msg']",
    capture: { msg: 'CUDA out of memory' },
  },
];
