/**
 * The sweep keys (mitigations, stop_after, retain, retry) are validated by the loader (src/recipe/sweep-keys.ts):
 * `check`, the loader (so the playground) and `sweep` give one message at one line:col for each mistake, and accept
 * the same valid recipes. Before issue 34 `check` said valid for every mistake below and only `sweep` refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRecipe, RecipeError } from '../src/recipe/index.js';
import { cliInProcess } from './support/run-cli.js';

const root = mkdtempSync(join(tmpdir(), 'aorta-sweep-keys-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function file(text: string, ext = 'yaml'): string {
  const p = join(root, `r${++n}.${ext}`);
  writeFileSync(p, text);
  return p;
}
// The mistake is on line 6 (or later, after the lines a case adds before it).
const HEAD = 'schema_version: 1\nmode: probe\ntrials: 2\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n';

interface JsonError {
  readonly message: string;
  readonly detail: string;
  readonly line: number;
  readonly col: number;
}

async function checkError(path: string): Promise<JsonError> {
  const r = await cliInProcess(['check', '--json', path]);
  expect(r.code).toBe(1);
  return (JSON.parse(r.out) as { files: { error: JsonError }[] }).files[0]!.error;
}

async function sweepError(path: string): Promise<JsonError> {
  const r = await cliInProcess([
    'sweep',
    '--recipe',
    path,
    '--out',
    join(root, 'out'),
    '--dry-run',
    '--json',
    '--',
    'true',
  ]);
  expect(r.code).toBe(2);
  return (JSON.parse(r.out) as { error: JsonError }).error;
}

describe('sweep-key mistakes: check, the loader and sweep agree', { timeout: 60_000 }, () => {
  it.each([
    [
      'retain: {on_pass: nothing}',
      6,
      19,
      "recipe.retain.on_pass: must be one of 'full', 'log', 'summary', 'none', got 'nothing'",
    ],
    ['retain: {on_fail: 3}', 6, 19, "recipe.retain.on_fail: must be one of 'full', 'log', 'summary', 'none', got 3"],
    [
      'retain: {on_skip: none}',
      6,
      10,
      "recipe.retain: unknown keys ['on_skip']; allowed: ['on_error', 'on_fail', 'on_pass']",
    ],
    ['retain: {on_fial: log}', 6, 10, "recipe.retain: unknown key 'on_fial'; did you mean 'on_fail'?"],
    ['retain: [full]', 6, 9, 'recipe.retain: must be a mapping, got list'],
    ['retry: {max: -1, on: []}', 6, 14, 'recipe.retry.max: must be an int >= 0, got -1'],
    ["retry: {max: '2', on: []}", 6, 14, "recipe.retry.max: must be an int >= 0, got '2'"],
    ['retry: {max: 1}', 6, 8, "recipe.retry: missing required key 'on'"],
    ['retry: {on: [rccl_hang]}', 6, 8, "recipe.retry: missing required key 'max'"],
    [
      'retry: {max: 1, on: tier1:timeout}',
      6,
      21,
      "recipe.retry.on: must be a list of detector ids or categories, got 'tier1:timeout'",
    ],
    ["retry: {max: 1, on: ['']}", 6, 21, "recipe.retry.on: must be a list of detector ids or categories, got ['']"],
    ['retry: {max_attempt: 2}', 6, 9, "recipe.retry: unknown key 'max_attempt'; did you mean 'max'?"],
    [
      'retry: {max: 1, on: [tier4:collective_timeot]}',
      6,
      22,
      "recipe.retry.on[0]: unknown detector 'tier4:collective_timeot'; known tier4 ids: ['tier4:python_traceback', 'tier4:hip_error', 'tier4:cuda_error', 'tier4:rocm_error', 'tier4:nccl_rccl_error', 'tier4:collective_timeout', 'tier4:nan_signature']; did you mean 'tier4:collective_timeout'?",
    ],
    [
      'retry: {max: 1, on: [tier1:timeout, transinet]}',
      6,
      37,
      "recipe.retry.on[1]: 'transinet' is neither a detector id nor a category a detector of this recipe can carry; categories: ['transient', 'platform', 'unknown', 'user']; did you mean 'transient'?",
    ],
    [
      'retry: {max: 1, on: [rccl_hang]}',
      6,
      22,
      "recipe.retry.on[0]: 'rccl_hang' is neither a detector id nor a category a detector of this recipe can carry; categories: ['transient', 'platform', 'unknown', 'user']",
    ],
    [
      'retry: {max: 1, on: [tier3:vram_growth]}',
      6,
      22,
      "recipe.retry.on[0]: 'tier3:vram_growth' is a warning, and warnings never trigger a retry",
    ],
    [
      'retry: {max: 1, on: [tier1:interrupted]}',
      6,
      22,
      "recipe.retry.on[0]: 'tier1:interrupted' (an operator stop) ends the sweep; it is never retried",
    ],
    [
      'retry: {max: 1, on: [meta:missing_pass_signal]}',
      6,
      22,
      "recipe.retry.on[0]: 'meta:missing_pass_signal' cannot fire: no custom pattern of this recipe is required_for_pass",
    ],
    [
      'disable_detectors: [tier2:hang]\nretry: {max: 1, on: [tier2:hang]}',
      7,
      22,
      "recipe.retry.on[0]: 'tier2:hang' is disabled by disable_detectors",
    ],
    [
      'custom_patterns:\n  - {id: w, match: {regex: x}, on_match: warn}\nretry: {max: 1, on: [custom:w]}',
      8,
      22,
      "recipe.retry.on[0]: 'custom:w' is an on_match: warn pattern, and only failures and errors trigger a retry",
    ],
    ['retry: 3', 6, 8, 'recipe.retry: must be a mapping, got int'],
    ['stop_after: {events: 0, max_trials: 3}', 6, 22, 'recipe.stop_after.events: must be an int >= 1, got 0'],
    ['stop_after: {events: 1, max_trials: 0}', 6, 37, 'recipe.stop_after.max_trials: must be an int >= 1, got 0'],
    ['stop_after: {events: 2}', 6, 22, 'recipe.stop_after.max_trials: required when events is set'],
    [
      'stop_after: {events: 1, max_trials: 3, event_verdict: flaky}',
      6,
      55,
      "recipe.stop_after.event_verdict: must be 'fail', 'pass' or 'error', got 'flaky'",
    ],
    ['stop_after: {event: 1}', 6, 14, "recipe.stop_after: unknown key 'event'; did you mean 'events'?"],
    ['stop_after: 5', 6, 13, 'recipe.stop_after: must be a mapping, got int'],
    [
      'mitigations: {m: {1X: a}}',
      6,
      19,
      "recipe.mitigations.m: '1X' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)",
    ],
    [
      'mitigations: {none: {A: b}}',
      6,
      15,
      "recipe.mitigations.none: 'none' is the empty bundle and cannot be redefined",
    ],
    ['mitigations: {m: {A: [1, 2]}}', 6, 22, 'recipe.mitigations.m.A: must be a string, number or bool, got list'],
    ['mitigations: {m: [A]}', 6, 18, 'recipe.mitigations.m: must be a mapping of VAR: value, got list'],
    ['mitigations: {1: {A: b}}', 6, 15, 'recipe.mitigations: names must be strings, got int'],
    ['mitigations: [m]', 6, 14, 'recipe.mitigations: must be a mapping of name to {VAR: value}, got list'],
  ])('%s', async (line, wantLine, wantCol, reason) => {
    const path = file(`${HEAD}${line}\n`);
    const fromCheck = await checkError(path);
    expect([fromCheck.detail, fromCheck.line, fromCheck.col]).toEqual([reason, wantLine, wantCol]);
    expect(await sweepError(path)).toEqual(fromCheck);
    let thrown: unknown = null;
    try {
      loadRecipe(`${HEAD}${line}\n`, path);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(RecipeError);
    expect((thrown as RecipeError).message).toBe(fromCheck.message);
  });

  it("checks a triage recipe's stop_after (a key of both modes) too", async () => {
    const path = file('schema_version: 1\nstop_after: {events: -2, max_trials: 1}\n');
    const e = await checkError(path);
    expect([e.detail, e.line, e.col]).toEqual(['recipe.stop_after.events: must be an int >= 1, got -2', 2, 22]);
  });
});

describe('valid sweep keys: check, the loader and sweep accept them', { timeout: 60_000 }, () => {
  const text = `${HEAD.replace('[none]\n', '[none, m]\n')}mitigations:
  m: {A: b, N: 3, F: 1.5, T: yes}
stop_after: {events: 1, max_trials: 4, event_verdict: error}
retain: {on_pass: summary, on_fail: log}
retry: {max: 2, on: [transient, tier1:timeout]}
`;

  it('keeps the values on the recipe (a bare `on` key, True in YAML 1.1, counts as on)', async () => {
    const path = file(text);
    expect(await cliInProcess(['check', path])).toEqual({
      code: 0,
      out: `${path}: valid (0 custom patterns)\n`,
      err: '',
    });
    const r = loadRecipe(text, path);
    expect(Object.fromEntries([...r.mitigations].map(([k, v]) => [k, Object.fromEntries(v)]))).toEqual({
      m: { A: 'b', N: '3', F: '1.5', T: 'True' },
    });
    expect(r.stopAfter).toEqual({ events: 1, maxTrials: 4, eventVerdict: 'error' });
    expect(r.retain).toEqual({ pass: 'summary', fail: 'log', error: 'full' });
    expect(r.retry).toEqual({ max: 2, on: ['transient', 'tier1:timeout'] });
    const sweep = await cliInProcess(['sweep', '--recipe', path, '--out', join(root, 'ok'), '--dry-run', '--', 'true']);
    expect(sweep.code).toBe(0);
    expect(sweep.out.split('\n')[0]).toBe("2 cells x 4 trials = 8 trials, ticket '_no_ticket_'");
  });
});
