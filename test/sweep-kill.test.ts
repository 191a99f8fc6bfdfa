/**
 * Issue 33 §4's acceptance run, as an operator meets it: a sweep killed with SIGKILL leaves no trial running (the
 * reaper ends them within 5 s) and no spill directory behind; run again, it takes over the dead sweep's lock,
 * keeps every finished trial, reruns only the ones the kill interrupted, and every trial ends complete. Plus a
 * second sweep into a running one's directory, refused with exit 2.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { alive, until } from './support/processes.js';

const CLI = fileURLToPath(new URL('../dist/src/cli/main.cjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'aorta-sweep-kill-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Writes `dir/r.yaml` (one cell, `trials` trials, ticket `ticket`) and returns the CLI's argv for a quiet sweep of it
 * into `dir/out` whose trial command is the shell script `script`.
 */
function sweepArgs(dir: string, ticket: string, trials: number, script: string, extra: string[] = []): string[] {
  const recipe = join(dir, 'r.yaml');
  writeFileSync(
    recipe,
    `schema_version: 1\nmode: probe\nticket: ${ticket}\ntrials: ${trials}\nmitigation_axis: [none]\ndiagnostic_axis: [none]\n`,
  );
  return [
    CLI,
    'sweep',
    '--recipe',
    recipe,
    '--out',
    join(dir, 'out'),
    ...extra,
    '--gpu-tool',
    'none',
    '--quiet',
    '--',
    'sh',
    '-c',
    script,
  ];
}

describe('a sweep killed with SIGKILL, then run again', { timeout: 90_000 }, () => {
  it('leaves no trial running, and the re-run completes every trial, none run twice that had finished', async () => {
    const dir = join(root, 'kill');
    const pids = join(dir, 'pids');
    const tmp = join(dir, 'tmp');
    mkdirSync(pids, { recursive: true });
    mkdirSync(tmp);
    const ran = join(dir, 'ran.txt');
    const slow = join(dir, 'slow');
    writeFileSync(slow, '');
    // Trials 3 and 4 hang while `slow` exists; the argv is the same in both runs (it is part of the run's identity).
    const script = `echo $AORTA_PROBE_TRIAL_INDEX >> "${ran}"; echo $$ > "${pids}/$AORTA_PROBE_TRIAL_INDEX"; [ -e "${slow}" ] && [ $AORTA_PROBE_TRIAL_INDEX -ge 3 ] && exec sleep 120; exit 0`;
    const args = sweepArgs(dir, 'KILL-9', 5, script, ['--parallel', '2']);
    const env = { ...process.env, TMPDIR: tmp };
    const first = spawn(process.execPath, args, { env, stdio: 'ignore' });
    // A pid file exists before its pid is in it (`>` creates it, then echo writes): wait for the whole line.
    const pidOf = (i: number): number => {
      const file = join(pids, String(i));
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      return /^[0-9]+\n$/.test(text) ? Number(text) : 0;
    };
    await until('trials 3 and 4 to start', () => pidOf(3) > 0 && pidOf(4) > 0, 60_000);
    const hung = [3, 4].map(pidOf);
    expect(hung.every(alive)).toBe(true);
    const killedAt = Date.now();
    first.kill('SIGKILL');
    await until('the hung trials to be ended', () => !hung.some(alive), 10_000);
    const endedMs = Date.now() - killedAt;
    if (process.env.AORTA_SHOW_TIMES === '1') console.log(`trials ended ${endedMs} ms after the SIGKILL`);
    expect(endedMs).toBeLessThanOrEqual(5000);
    await until('the spill directory to go', () => readdirSync(tmp).length === 0, 5000);

    const cell = join(dir, 'out', 'KILL-9', 'none-none');
    const complete = (): number[] => [0, 1, 2, 3, 4].filter((i) => existsSync(join(cell, `trial_${i}`, 'result.json')));
    expect(complete()).toEqual([0, 1, 2]); // the interrupted ones are visible as incomplete

    rmSync(slow);
    const again = spawnSync(
      process.execPath,
      args.filter((a) => a !== '--quiet'),
      { env, encoding: 'utf8' },
    );
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(
      /^aorta-probe sweep: warning: .*\/KILL-9\/\.aorta-probe\.lock was left by pid \d+ \(started [^)]+\), which is no longer running; taking it over\n$/,
    );
    expect(again.stdout).toContain(
      '3 trials finished by an earlier run of this sweep were kept (resume; --fresh starts anew)\n',
    );
    expect(complete()).toEqual([0, 1, 2, 3, 4]);
    const lines = readFileSync(ran, 'utf8').trim().split('\n');
    expect(lines.slice(0, 5).sort()).toEqual(['0', '1', '2', '3', '4']);
    expect(lines.slice(5).sort()).toEqual(['3', '4']); // only the interrupted trials ran again
    const ids = new Set(
      [0, 1, 2, 3, 4].map(
        (i) => (JSON.parse(readFileSync(join(cell, `trial_${i}`, 'result.json'), 'utf8')) as { run_id: string }).run_id,
      ),
    );
    expect(ids.size).toBe(1);
  });

  it("a second sweep into a running one's directory exits 2 naming the holder", async () => {
    const dir = join(root, 'two');
    mkdirSync(dir);
    const go = join(dir, 'go');
    const started = join(dir, 'started');
    const args = sweepArgs(dir, 'TWO', 1, `touch "${started}"; while [ ! -e "${go}" ]; do sleep 0.05; done`);
    const first = spawn(process.execPath, args, { stdio: 'ignore' });
    const firstExit = new Promise<number | null>((r) => first.on('exit', (c) => r(c)));
    await until('the first sweep to start its trial', () => existsSync(started), 30_000);
    const second = spawnSync(process.execPath, args, { encoding: 'utf8' });
    expect(second.status).toBe(2);
    expect(second.stderr).toMatch(
      new RegExp(
        `^aorta-probe sweep: .*/TWO is locked: another sweep is running in it \\(holder host="[^"]+" pid=${first.pid} started_at="[^"]+"\\)\\. If the holder is no longer running, remove .*/TWO/\\.aorta-probe\\.lock and retry\\.\\n$`,
      ),
    );
    writeFileSync(go, '');
    expect(await firstExit).toBe(0);
  });
});
