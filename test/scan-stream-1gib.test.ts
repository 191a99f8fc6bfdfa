import { describe, expect, it } from 'vitest';
import { loadRecipe } from '../src/recipe/index.js';
import { scanStream } from '../src/scan/index.js';
import { classifyLogScan, planLogScan } from '../src/classifier/classify-log.js';
import { failingIds } from './support/scan-results.js';

const GiB = 1 << 30;
const CHUNK = 64 * 1024;

/** 1 GiB of a training log, as 64 KiB chunks cut from one 1 MiB block, then the failure at the very end. */
function* generatedLog(onChunk: () => void): Generator<Uint8Array> {
  const lines: string[] = [];
  for (let step = 0, n = 0; n < 1 << 20; step++) {
    const line = `[rank0] step ${step} | loss=${(2 + (step % 97) / 100).toFixed(4)} | lr=3.0e-4 | tokens/s=41234 | mem_alloc=51234MiB\n`;
    lines.push(line);
    n += line.length;
  }
  const block = Buffer.from(lines.join('')).subarray(0, 1 << 20);
  for (let sent = 0; sent < GiB; sent += CHUNK) {
    onChunk();
    yield block.subarray(sent % block.length, (sent % block.length) + CHUNK);
  }
  yield Buffer.from('\nstep 999999 | loss=nan\nFATAL: allreduce timed out on rank 3\n');
}

describe('a 1 GiB log is scanned as a stream in bounded memory', () => {
  it('finds the failure at its end; RSS stays within a fixed bound', async () => {
    const recipe = loadRecipe(
      "custom_patterns:\n  - {id: fatal, match: {regex: 'FATAL: (?P<why>.+)'}, on_match: fail}\n" +
        "  - {id: loss, match: {regex: 'loss=(?P<loss>[0-9.a-z]+)', condition: \"math.isnan(float(capture['loss']))\"}, on_match: fail}\n",
      'r.yaml',
    );
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    let chunks = 0;
    const t0 = performance.now();
    const vars = { exit_code: 0, walltime_sec: 1, peak_vram_mib: null };
    const result = await scanStream(
      recipe,
      generatedLog(() => {
        if (++chunks % 64 === 0) peak = Math.max(peak, process.memoryUsage().rss);
      }),
      vars,
    );
    const seconds = (performance.now() - t0) / 1000;
    peak = Math.max(peak, process.memoryUsage().rss);
    console.info(
      `[scan] 1 GiB stream: ${seconds.toFixed(1)} s (${(GiB / 1e6 / seconds).toFixed(0)} MB/s under test load), RSS ${(rss0 / 2 ** 20).toFixed(0)} → peak ${(peak / 2 ** 20).toFixed(0)} MiB`,
    );
    expect(failingIds(result)).toEqual(['tier4:nan_signature', 'custom:loss', 'custom:fatal']);
    const classified = classifyLogScan(planLogScan(recipe), result, vars);
    expect(classified.verdict).toBe('fail');
    expect(classified.failure_detectors_fired).toEqual(['tier4:nan_signature', 'custom:loss', 'custom:fatal']);
    expect(result.capture).toEqual({ loss: 'nan', why: 'allreduce timed out on rank 3' });
    // Loaded whole, the text alone would be 1 GiB; the scanner holds one window and one chunk. The growth is
    // bounded but not constant: it depends on when V8 collects the young generation, and with the other test files
    // running beside it one CI run measured 134 MiB where others stay under 100. The bound proves the scan does not
    // grow with the log; the tight RSS figure is the benchmark's (npm run bench).
    expect(peak - rss0).toBeLessThan(192 * 2 ** 20);
  }, 180_000);
});
