import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { gpuHealthIds, scanKernelLines } from '../src/classifier/tier3.js';
import {
  AMD_KERNEL_PATTERNS,
  FALLEN_OFF_BUS,
  NVIDIA_SAMPLES,
  TIER3_IDS,
  XID_DETECTORS,
  xidClass,
} from '../src/detectors/tier3.js';
import { linesInWindow, parseStampedLine, readKernelLog } from '../src/trial/tier3-kernel.js';
import { BUILTIN_DETECTORS } from '../src/detectors/catalogue.js';
import type { GpuSamplerFactory } from '../src/trial/index.js';
import { fakeKernelEnv, probeRecipe, tempRoot, trial } from './support/classifier.js';
import { formatTrial } from '../src/cli/commands/run.js';
import { paletteFor } from '../src/cli/tty.js';

const tmp = tempRoot('aorta-tier3-');
afterAll(() => tmp.cleanup());

const line = (text: string) => [{ time: null, text }];

describe('Tier 3 catalogue', () => {
  it.each(AMD_KERNEL_PATTERNS.map((p) => [p.detectorId, p.sample]))('%s fires on its fixture line', (id, sample) => {
    expect(scanKernelLines(line(sample)).ids).toEqual([id]);
  });

  it('the original test_tier3 lines fire their ids; look-alikes do not', () => {
    const cases: [string, string[]][] = [
      ['amdgpu: GPU reset failed', ['tier3:amdgpu_reset']],
      ['SDMA semaphore timeout', ['tier3:sdma_timeout']],
      ['SDMA hang detected on engine 0', ['tier3:sdma_timeout']],
      ['VM_L2_PROTECTION_FAULT_STATUS: 0x1', ['tier3:vm_l2_fault']],
      ['XGMI link down detected', ['tier3:xgmi_link_error']],
      ['AER: Fatal error received', ['tier3:pcie_aer_fatal']],
      ['XGMI initialized successfully', []],
      ['everything is fine', []],
    ];
    for (const [text, ids] of cases) expect(scanKernelLines(line(text)).ids, text).toEqual(ids);
  });

  it.each(Object.entries(NVIDIA_SAMPLES))('%s fires on its fixture line', (id, sample) => {
    expect(scanKernelLines(line(sample)).ids).toEqual([id]);
  });

  it('captures the Xid number and PCI address, and names the Xid', () => {
    const { events } = scanKernelLines([
      { time: '2026-12-01T10:00:00,000000+00:00', text: NVIDIA_SAMPLES[XID_DETECTORS.platform]! },
    ]);
    expect(events).toEqual([
      {
        detector: 'tier3:nvidia_xid_platform',
        time: '2026-12-01T10:00:00,000000+00:00',
        line: NVIDIA_SAMPLES[XID_DETECTORS.platform],
        xid: 48,
        xid_name: 'Double Bit ECC Error',
        pci: '0000:3b:00',
      },
    ]);
  });

  it("Xid 79 is one event, 'fallen off the bus', counted once with its Xid", () => {
    const text = "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";
    const r = scanKernelLines(line(text));
    expect(r.ids).toEqual([FALLEN_OFF_BUS]);
    expect(r.events).toEqual([
      {
        detector: FALLEN_OFF_BUS,
        time: null,
        line: text,
        xid: 79,
        xid_name: 'GPU has fallen off the bus',
        pci: '0000:3b:00',
      },
    ]);
  });

  it("classifies Xids by NVIDIA's table: application, platform, warn, unknown", () => {
    expect([13, 31, 43, 48, 79, 94, 95, 119, 63, 92, 4242].map(xidClass)).toEqual([
      'application',
      'application',
      'application',
      'platform',
      'platform',
      'platform',
      'platform',
      'platform',
      'warn',
      'warn',
      'unknown',
    ]);
  });

  it('every Tier 3 id has a category', () => {
    expect(TIER3_IDS.map((id) => [id, BUILTIN_DETECTORS.get(id)?.who, BUILTIN_DETECTORS.get(id)?.transient])).toEqual([
      ['tier3:amdgpu_reset', 'platform', true],
      ['tier3:sdma_timeout', 'platform', true],
      ['tier3:vm_l2_fault', 'user', false],
      ['tier3:xgmi_link_error', 'platform', true],
      ['tier3:pcie_aer_fatal', 'platform', true],
      ['tier3:nvidia_xid_platform', 'platform', true],
      ['tier3:nvidia_xid_application', 'user', false],
      ['tier3:nvidia_xid_warn', 'platform', true],
      ['tier3:nvidia_xid_unknown', 'unknown', false],
      ['tier3:nvidia_fallen_off_bus', 'platform', true],
      ['tier3:vram_growth', 'unknown', false],
      ['tier3:thermal_throttle', 'platform', true],
    ]);
  });

  it('GPU readings: VRAM growth >= 256 MiB (unless disabled) and a rising throttle counter (the original shim cases)', () => {
    const r = (vb: number, va: number, tb: number, ta: number) => ({
      vramBeforeMib: vb,
      vramAfterMib: va,
      throttleBefore: tb,
      throttleAfter: ta,
    });
    expect(gpuHealthIds(r(100, 500, 0, 0), true)).toEqual(['tier3:vram_growth']);
    expect(gpuHealthIds(r(100, 100, 0, 5), true)).toEqual(['tier3:thermal_throttle']);
    expect(gpuHealthIds(r(100, 110, 0, 0), true)).toEqual([]);
    expect(gpuHealthIds(r(100, 500, 0, 0), false)).toEqual([]);
    expect(
      gpuHealthIds({ vramBeforeMib: null, vramAfterMib: 500, throttleBefore: null, throttleAfter: 3 }, true),
    ).toEqual([]);
  });
});

describe('kernel log reading', () => {
  it('parses dmesg --time-format iso and journalctl short-iso-precise stamps', () => {
    expect(parseStampedLine('2026-12-01T20:39:55,226809+00:00 amdgpu: GPU reset begin!')).toEqual({
      ms: Date.parse('2026-12-01T20:39:55.226Z'),
      time: '2026-12-01T20:39:55,226809+00:00',
      text: 'amdgpu: GPU reset begin!',
    });
    expect(parseStampedLine('2026-12-01T21:39:55.226809+0100 host kernel: NVRM: Xid').ms).toBe(
      Date.parse('2026-12-01T20:39:55.226Z'),
    );
    expect(parseStampedLine('[    0.000000] Linux version').ms).toBeNaN();
  });

  it('keeps only the lines stamped inside the window (old lines ignored, 1 s lead)', () => {
    const t0 = Date.parse('2026-12-01T12:00:00Z');
    const out = [
      '2020-01-01T00:00:00,000000+00:00 amdgpu: GPU reset begin! (an old boot)',
      '2026-12-01T11:59:58,000000+00:00 amdgpu: GPU reset begin! (the trial before)',
      '2026-12-01T11:59:59,500000+00:00 early but within the lead',
      '2026-12-01T12:00:05,000000+00:00 during',
      '2026-12-01T12:00:11,000000+00:00 after the window',
    ].join('\n');
    expect(linesInWindow(out, t0, t0 + 10_000).map((l) => l.text)).toEqual(['early but within the lead', 'during']);
  });

  it('falls back to journalctl when dmesg is not permitted, and says why when neither works', async () => {
    const log = tmp.dir('kernel.log');
    const now = new Date().toISOString().replace('Z', '+00:00');
    writeFileSync(log, `${now} amdgpu: GPU reset begin!\n`);
    const t = Date.now();
    const viaJournal = await readKernelLog(
      t - 5000,
      t + 5000,
      fakeKernelEnv(log, { FAKE_DMESG_FAIL: '1', FAKE_JOURNAL_OK: '1' }),
    );
    expect(viaJournal).toEqual({
      ok: true,
      source: 'journalctl',
      lines: [{ time: now, text: 'amdgpu: GPU reset begin!' }],
    });
    const none = await readKernelLog(t - 5000, t + 5000, fakeKernelEnv(log, { FAKE_DMESG_FAIL: '1' }));
    expect(none).toEqual({
      ok: false,
      reason:
        'dmesg: exit status 1: dmesg: read kernel buffer failed: Operation not permitted; journalctl: exit status 1: No journal files were opened due to insufficient permissions.',
    });
  });
});

/** The trial itself appends a kernel line stamped now, so it falls inside the window. */
const appendKernelLine = (log: string, text: string): string[] => [
  'sh',
  '-c',
  `printf '%s %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%S,%N+00:00)" "$1" >> "${log}"`,
  'sh',
  text,
];

describe('Tier 3 in a trial', () => {
  it("run's summary shows each kernel event: detector, Xid number and name, the kernel line (inert) (issue 35 §5)", async () => {
    const log = tmp.dir('kernel-xid.log');
    writeFileSync(log, '');
    const outcome = await trial(
      null,
      appendKernelLine(log, 'NVRM: Xid (PCI:0000:3b:00): 79, pid=7, GPU has fallen off the bus. \x1b[2J'),
      { outDir: tmp.dir('xid-summary'), env: fakeKernelEnv(log) },
    );
    expect(outcome.result.failure_detectors_fired).toEqual(['tier3:nvidia_fallen_off_bus']);
    const text = formatTrial(outcome, paletteFor(null));
    expect(text.split('\n')[0]).toBe(
      'kernel: tier3:nvidia_fallen_off_bus — Xid 79 (GPU has fallen off the bus) — NVRM: Xid (PCI:0000:3b:00): 79, pid=7, GPU has fallen off the bus. \\x1b[2J',
    );
    expect(text).toContain('\nverdict: fail\n');
  }, 30_000);

  it('a GPU reset during the trial fails it; the same line from before the trial is ignored', async () => {
    const log = tmp.dir('kernel.log');
    writeFileSync(
      log,
      '2020-01-01T00:00:00,000000+00:00 amdgpu: GPU reset begin!\n2020-01-01T00:00:01,000000+00:00 NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n',
    );
    const { result } = await trial(null, appendKernelLine(log, 'amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!'), {
      outDir: tmp.dir('reset'),
      env: fakeKernelEnv(log),
    });
    expect(result.verdict).toBe('fail');
    expect(result.failure_detectors_fired).toEqual(['tier3:amdgpu_reset']);
    expect(result.tier3).toMatchObject({
      kernel_source: 'dmesg',
      kernel_lines_in_window: 1,
      events: [{ detector: 'tier3:amdgpu_reset', line: 'amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!' }],
    });
    expect(result.detector_categories).toEqual({
      'tier3:amdgpu_reset': { kind: 'failure', who: 'platform', transient: true, category: null },
    });
  }, 30_000);

  it('an Xid warn event is a warning, not a failure', async () => {
    const log = tmp.dir('kernel.log');
    writeFileSync(log, '');
    const { result } = await trial(null, appendKernelLine(log, NVIDIA_SAMPLES[XID_DETECTORS.warn]!), {
      outDir: tmp.dir('xid-warn'),
      env: fakeKernelEnv(log),
    });
    expect(result.verdict).toBe('pass');
    expect(result.warn_detectors_fired).toEqual(['tier3:nvidia_xid_warn']);
    expect(result.tier3!.events[0]).toMatchObject({ xid: 63, pci: '0000:3b:00' });
  }, 30_000);

  it('unreadable kernel log: Tier 3 is disabled with its reason in result.json, the trial still classified', async () => {
    const { result } = await trial(null, ['true'], {
      outDir: tmp.dir('unreadable'),
      env: fakeKernelEnv('/nonexistent', { FAKE_DMESG_FAIL: '1' }),
    });
    expect(result.verdict).toBe('pass');
    expect(result.tier3).toEqual({
      kernel_source: null,
      kernel_lines_in_window: 0,
      events: [],
      disabled_reasons: [
        'kernel log: dmesg: exit status 1: dmesg: read kernel buffer failed: Operation not permitted; journalctl: exit status 1: No journal files were opened due to insufficient permissions.',
        'GPU: no GPU sampler',
      ],
    });
  }, 30_000);

  it("vram_growth (warn) and thermal_throttle (fail) from the sampler's readings; tier3_vram_growth: false skips the first", async () => {
    const factory: GpuSamplerFactory = async () => ({
      start: () => {},
      stop: async () => ({
        tool: 'amd-smi',
        toolVersion: null,
        attribution: null,
        baselineMib: 100,
        peakVramMib: 600,
        samples: 2,
        failedCalls: 0,
        intervalMs: 1000,
        warnings: [],
      }),
      health: () => ({ vramBeforeMib: 100, vramAfterMib: 500, throttleBefore: 0, throttleAfter: 5 }),
    });
    const env = fakeKernelEnv('/nonexistent');
    const a = (
      await trial(null, ['true'], { outDir: tmp.dir('gpu'), env, gpuTool: 'auto', gpuSamplerFactory: factory })
    ).result;
    expect([a.verdict, a.failure_detectors_fired, a.warn_detectors_fired]).toEqual([
      'fail',
      ['tier3:thermal_throttle'],
      ['tier3:vram_growth'],
    ]);
    const b = (
      await trial(probeRecipe('tier3_vram_growth: false\n'), ['true'], {
        outDir: tmp.dir('gpu'),
        env,
        gpuTool: 'auto',
        gpuSamplerFactory: factory,
      })
    ).result;
    expect(b.warn_detectors_fired).toEqual([]);
  }, 30_000);

  it('disable_detector_tiers: [tier3] reads no kernel log (record null)', async () => {
    const log = tmp.dir('kernel.log');
    writeFileSync(log, '');
    const { result } = await trial(
      probeRecipe('disable_detector_tiers: [tier3]\n'),
      appendKernelLine(log, 'amdgpu: GPU reset begin!'),
      { outDir: tmp.dir('off'), env: fakeKernelEnv(log) },
    );
    expect([result.verdict, result.tier3, result.disabled_detector_tiers]).toEqual(['pass', null, ['tier3']]);
  }, 30_000);
});
