// Separate file: vitest runs each test file in its own module graph, so the aborted re2-wasm instance here does
// not affect test/regex.test.ts.
import { describe, expect, it } from 'vitest';
import { RegexEngineError, compileRegex, engineAbortReason, matchAll, searchRegex } from '../src/regex/index.js';

describe('engine abort (OOM) handling', () => {
  it('turns an OOM abort into RegexEngineError and refuses further work', () => {
    const re = compileRegex('(?s)(.*)');
    const huge = 'a'.repeat(7 * 1024 * 1024); // over the measured ~5.45 MiB single-call maximum
    expect(() => searchRegex(re, huge, 0, { maxSubjectBytes: 64 * 1024 * 1024 })).toThrow(RegexEngineError);
    expect(engineAbortReason()).toMatch(/match/);
    expect(() => [...matchAll(re, 'abc')]).toThrow(/unusable after an earlier abort/);
    expect(() => compileRegex('other')).toThrow(RegexEngineError);
  });
});
