/** Recipe self-tests (src/classifier/self-test.ts): a failing sample says what fired and where, not only that it failed. */
import { describe, expect, it } from 'vitest';
import { formatSelfTestFailure, runSelfTests } from '../src/classifier/self-test.js';
import { loadRecipe } from '../src/recipe/index.js';

const RECIPE = `custom_patterns:
  - id: nan_loss
    match: {regex: "loss=(?P<loss>nan)"}
  - id: done
    match: {regex: "training complete"}
    required_for_pass: true
  - id: slow
    match: {regex: "step took"}
    on_match: warn
tests:
  - name: a clean run
    log: "step 1 loss=0.5\\nstep took 3s\\nloss=nan at step 2\\n"
    exit_code: -6
    expect: {verdict: pass}
  - name: nothing at all
    log: ""
    expect: {verdict: pass}
`;

describe('self-test failures list what fired', () => {
  const [dirty, empty] = runSelfTests(loadRecipe(RECIPE, 'train.yaml'));

  it('log hits with their sample line and match, Tier 1 with the exit code, missing required patterns by id', () => {
    expect(dirty!.fired).toEqual([
      'tier1:sigabrt (exit_code -6)',
      "tier4:nan_signature at log line 3: 'loss=nan'",
      "custom:nan_loss at log line 3: 'loss=nan'",
      'meta:missing_pass_signal (required, did not fire: custom:done)',
      "custom:slow (warn) at log line 2: 'step took'",
    ]);
    expect(formatSelfTestFailure(dirty!)).toBe(
      [
        'train.yaml:11:5: self-test "a clean run" failed: verdict: expected pass, got fail',
        '  fired: tier1:sigabrt (exit_code -6)',
        "  fired: tier4:nan_signature at log line 3: 'loss=nan'",
        "  fired: custom:nan_loss at log line 3: 'loss=nan'",
        '  fired: meta:missing_pass_signal (required, did not fire: custom:done)',
        "  fired: custom:slow (warn) at log line 2: 'step took'",
      ].join('\n'),
    );
    expect(empty!.fired).toEqual(['meta:missing_pass_signal (required, did not fire: custom:done)']);
  });

  it('a passing sample lists its firings too (nothing here) and formats no failure', () => {
    const ok = runSelfTests(
      loadRecipe(
        `${RECIPE.split('tests:')[0]}tests:\n  - {name: ok, log: "training complete\\n", expect: {verdict: pass}}\n`,
        'r.yaml',
      ),
    );
    expect(ok[0]).toMatchObject({ passed: true, fired: [], mismatches: [] });
  });
});
