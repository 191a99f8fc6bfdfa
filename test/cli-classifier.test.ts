import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempRoot } from './support/classifier.js';
import { cliInProcess } from './support/run-cli.js';

const tmp = tempRoot('aorta-cli-classifier-');
afterAll(() => tmp.cleanup());

const cli = (...args: string[]) => cliInProcess(args);

const RETRY = 'fixtures/recipes/retry-exit-codes.yaml';
const result = (dir: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as Record<string, unknown>;

describe('exit codes for retry systems, end to end through aorta-probe run', () => {
  it('a transient (platform) failure exits with the mapped 75, and result.json says why', async () => {
    const dir = tmp.dir('rccl');
    const r = await cli(
      'run',
      '--recipe',
      RETRY,
      '--out',
      dir,
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      'sh',
      '-c',
      'echo "RCCL watchdog timeout on rank 3"; exit 1',
    );
    expect(r.code).toBe(75);
    expect(r.out).toContain('exit status: 75 (exit_codes: category:transient)\n');
    const j = result(dir);
    expect(j['exit_status']).toEqual({ status: 75, reason: 'category:transient' });
    expect(j['detector_categories']).toEqual({
      'tier1:exit_nonzero': { kind: 'failure', who: 'unknown', transient: false, category: null },
      'custom:rccl_timeout': { kind: 'failure', who: 'platform', transient: true, category: 'rccl_hang' },
    });
    expect(j['detectors']).toEqual([
      {
        id: 'custom:rccl_timeout',
        kind: 'fail',
        line: 1,
        byte_offset: 0,
        match: 'RCCL watchdog timeout on rank 3',
        capture: { rank: '3' },
        who: 'platform',
        transient: true,
        category: 'rccl_hang',
      },
    ]);
  }, 30_000);

  it("the user's failure falls through to verdict.fail (1); a pass exits 0", async () => {
    const a = await cli(
      'run',
      '--recipe',
      RETRY,
      '--out',
      tmp.dir('cfg'),
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      'sh',
      '-c',
      'echo "ConfigError: lr"; exit 2',
    );
    expect(a.code).toBe(1);
    const b = await cli(
      'run',
      '--recipe',
      RETRY,
      '--out',
      tmp.dir('ok'),
      '--gpu-tool',
      'none',
      '--quiet',
      '--',
      'true',
    );
    expect(b.code).toBe(0);
  }, 30_000);

  it('a timeout (an error, but transient) takes category.transient before verdict.error', async () => {
    const dir = tmp.dir('timeout');
    const r = await cli(
      'run',
      '--recipe',
      RETRY,
      '--out',
      dir,
      '--gpu-tool',
      'none',
      '--quiet',
      '--timeout',
      '0.5',
      '--',
      'sleep',
      '10',
    );
    expect(r.code).toBe(75); // tier1:timeout is transient, and `transient` comes before the verdict
    expect(result(dir)['exit_status']).toEqual({ status: 75, reason: 'category:transient' });
  }, 30_000);
});

describe('--disable-detector', () => {
  it('turns a tier off (united with the recipe), recorded in result.json', async () => {
    const dir = tmp.dir('off');
    const r = await cli(
      'run',
      '--out',
      dir,
      '--gpu-tool',
      'none',
      '--quiet',
      '--disable-detector',
      'tier1',
      '--disable-detector',
      'tier2:hang',
      '--',
      'sh',
      '-c',
      'exit 1',
    );
    expect(r.code).toBe(0);
    const j = result(dir);
    expect([j['verdict'], j['disabled_detector_tiers'], j['disabled_detectors'], j['hang']]).toEqual([
      'pass',
      ['tier1'],
      ['tier2:hang'],
      null,
    ]);
  }, 30_000);

  it('rejects an unknown id before running anything (exit 2)', async () => {
    const r = await cli(
      'run',
      '--recipe',
      RETRY,
      '--out',
      tmp.dir('bad'),
      '--gpu-tool',
      'none',
      '--disable-detector',
      'custom:rccl',
      '--',
      'true',
    );
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "aorta-probe run: --disable-detector: 'custom:rccl' names no custom pattern of this recipe; its custom_patterns ids are ['rccl_timeout', 'bad_config']\n",
    );
  });
});

describe('recipe self-tests in aorta-probe check', () => {
  it('passing samples: exit 0 and the count', async () => {
    expect(await cli('check', RETRY)).toEqual({
      code: 0,
      out: `${RETRY}: valid (2 custom patterns, 3 self-tests passed)\n`,
      err: '',
    });
  });

  it('a failing sample is reported at its file:line with expected vs got: exit 1', async () => {
    const f = 'fixtures/recipes/self-tests-failing.yaml';
    expect(await cli('check', f)).toEqual({
      code: 1,
      out:
        `${f}:10:5: self-test "expects the wrong verdict" failed: verdict: expected pass, got fail; detectors: expected [], got [tier1:exit_nonzero]\n` +
        '  fired: tier1:exit_nonzero (exit_code 1)\n' +
        `${f}: valid (1 custom pattern, 1 of 2 self-tests failed)\n`,
      err: '',
    });
    const json = JSON.parse((await cli('check', '--json', f)).out) as { files: { self_tests: unknown[] }[] };
    expect(json.files[0]!.self_tests).toEqual([
      {
        name: 'oom fails',
        line: 7,
        col: 5,
        passed: true,
        got: { verdict: 'fail', detectors: ['custom:oom'], capture: {} },
        mismatches: [],
        condition_errors: [],
      },
      {
        name: 'expects the wrong verdict',
        line: 10,
        col: 5,
        passed: false,
        got: { verdict: 'fail', detectors: ['tier1:exit_nonzero'], capture: {} },
        mismatches: ['verdict: expected pass, got fail', 'detectors: expected [], got [tier1:exit_nonzero]'],
        condition_errors: [],
      },
    ]);
  });
});

describe('categories in scan --json', () => {
  it('each fired detector with its kind and category; the recipe disables apply', async () => {
    const dir = tmp.dir('scan');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'log.txt'), 'RCCL watchdog timeout on rank 0\nTraceback (most recent call last):\n');
    const r = await cli('scan', '--recipe', RETRY, '--json', join(dir, 'log.txt'));
    expect(r.code).toBe(1);
    expect((JSON.parse(r.out) as { detectors: unknown }).detectors).toEqual([
      {
        id: 'custom:rccl_timeout',
        kind: 'fail',
        line: 1,
        byte_offset: 0,
        match: 'RCCL watchdog timeout on rank 0',
        capture: { rank: '0' },
        who: 'platform',
        transient: true,
        category: 'rccl_hang',
      },
      {
        id: 'tier4:python_traceback',
        kind: 'tier4',
        line: 2,
        byte_offset: 32,
        match: 'Traceback (most recent call last):',
        capture: {},
        who: 'user',
        transient: false,
        category: null,
      },
    ]);
    writeFileSync(
      join(dir, 'r.yaml'),
      `${readFileSync(RETRY, 'utf8').replace(/^tests:[\s\S]*$/m, '')}disable_detectors: ['tier4:python_traceback', 'custom:rccl_timeout']\n`,
    );
    const off = JSON.parse(
      (await cli('scan', '--recipe', join(dir, 'r.yaml'), '--json', join(dir, 'log.txt'))).out,
    ) as Record<string, unknown>;
    expect([off['verdict'], off['failure_detectors_fired'], off['capture']]).toEqual(['pass', [], {}]);
  });
});
