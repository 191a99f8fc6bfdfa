import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fnmatchcase } from '../src/text/fnmatch.js';

const golden = JSON.parse(readFileSync('fixtures/text/fnmatch.json', 'utf8')) as {
  cases: [string, string, boolean][];
};

describe("fnmatchcase: Python's fnmatch.fnmatchcase (fixtures/text/fnmatch.json)", () => {
  it('agrees on every name × pattern of the golden', () => {
    const wrong = golden.cases.filter(([name, pat, want]) => fnmatchcase(name, pat) !== want);
    expect(wrong).toEqual([]);
    expect(golden.cases.length).toBe(1040);
  });
  it('is case-sensitive and anchored', () => {
    expect(fnmatchcase('aws_secret', 'AWS_*')).toBe(false);
    expect(fnmatchcase('MY_AWS_KEY', 'AWS_*')).toBe(false);
    expect(fnmatchcase('AWS_KEY', 'AWS_*')).toBe(true);
  });
});
