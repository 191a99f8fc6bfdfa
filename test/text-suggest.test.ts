/** The one did-you-mean rule (src/text/suggest.ts) that the CLI, the loader and the linter share. */
import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../src/text/suggest.js';

describe('closest', () => {
  it('prefers a candidate that differs only in case', () => {
    expect(closest('Loss', ['lost', 'loss'])).toBe('loss');
  });
  it('takes the nearest within a third of the longer word', () => {
    expect(closest('los', ['loss', 'step'])).toBe('loss');
    expect(closest('chekc', ['check', 'scan'])).toBe('check'); // a transposition is one edit
    expect(closest('--jsn', ['--json', '--jsonl'])).toBe('--json');
  });
  it('does not guess between one-letter names, nor past 3 edits', () => {
    expect(closest('x', ['y'])).toBe(null);
    expect(closest('timeout_abcd', ['timeout_wxyz'])).toBe(null); // 4 edits
  });
  it('falls back to the only prefix match', () => {
    expect(closest('--rec', ['--recipe', '--report'])).toBe('--recipe');
    expect(closest('--re', ['--recipe', '--report'])).toBe(null);
  });
  it('counts code points, not UTF-16 units', () => {
    expect(editDistance('a😀b', 'ab')).toBe(1);
    expect(closest('lo😀s', ['loss'])).toBe('loss');
  });
  it('didYouMean formats the hint or nothing', () => {
    expect(didYouMean('scna', ['scan'])).toBe(" (did you mean 'scan'?)");
    expect(didYouMean('zzzz', ['scan'])).toBe('');
  });
});
