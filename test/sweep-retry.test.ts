/** The retry policy's question (src/sweep/retry.ts): which `retry.on` entries a finished attempt matched. */
import { describe, expect, it } from 'vitest';
import { retryReasons, type RetryFacts } from '../src/sweep/retry.js';

const attempt = (over: Partial<RetryFacts>): RetryFacts => ({
  verdict: 'fail',
  failure_detectors_fired: [],
  error_detectors_fired: [],
  detector_categories: {},
  ...over,
});

describe('retryReasons', () => {
  const hang = attempt({
    failure_detectors_fired: ['custom:nccl_timeout', 'tier1:exit_nonzero'],
    error_detectors_fired: ['tier1:timeout'],
    detector_categories: {
      'custom:nccl_timeout': { kind: 'failure', who: 'platform', transient: true, category: 'rccl_hang' },
      'tier1:exit_nonzero': { kind: 'failure', who: 'unknown', transient: false, category: null },
      'tier1:timeout': { kind: 'error', who: 'unknown', transient: true, category: null },
    },
  });

  it('matches ids, custom categories, who and transient, in the order they were hit', () => {
    expect(retryReasons(hang, { max: 1, on: ['tier1:timeout'] })).toEqual(['tier1:timeout']);
    expect(retryReasons(hang, { max: 1, on: ['rccl_hang'] })).toEqual(['rccl_hang']);
    expect(retryReasons(hang, { max: 1, on: ['platform'] })).toEqual(['platform']);
    expect(retryReasons(hang, { max: 1, on: ['user', 'unknown', 'transient'] })).toEqual(['transient', 'unknown']);
  });

  it('matches nothing for a pass, an empty list, or words no fired detector carries', () => {
    expect(retryReasons({ ...hang, verdict: 'pass' }, { max: 1, on: ['transient'] })).toEqual([]);
    expect(retryReasons(hang, { max: 1, on: [] })).toEqual([]);
    expect(retryReasons(hang, { max: 1, on: ['user', 'tier2:hang', 'illegal_mem'] })).toEqual([]);
  });

  it('ignores an id missing from detector_categories instead of reading the prototype', () => {
    const odd = attempt({ failure_detectors_fired: ['constructor'], detector_categories: {} });
    expect(retryReasons(odd, { max: 1, on: ['transient', 'constructor'] })).toEqual(['constructor']);
  });
});
