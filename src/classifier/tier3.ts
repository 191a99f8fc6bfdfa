/**
 * Tier 3's matching: kernel-log lines against the catalogue in src/detectors/tier3.ts (the AMD patterns of the
 * original's `tier3_kernel.py`, ROCm/aorta; NVIDIA's Xid events and "fallen off the bus"), and the two ids the GPU
 * sampler's readings give. Pure (no I/O), so the playground, the self-tests and the runner share it.
 */
import {
  AMD_KERNEL_PATTERNS,
  FALLEN_OFF_BUS,
  FALLEN_OFF_BUS_REGEX,
  MAX_KERNEL_EVENTS,
  THERMAL_THROTTLE,
  TIER3_IDS,
  VRAM_GROWTH,
  VRAM_GROWTH_THRESHOLD_MIB,
  XID_DETECTORS,
  XID_REGEX,
  XID_TABLE,
  xidClass,
  type KernelEvent,
} from '../detectors/tier3.js';
import { compileRegex, flagsFromPython, searchRegex, type RegexHandle } from '../regex/index.js';

let compiled: { amd: RegexHandle[]; xid: RegexHandle; bus: RegexHandle } | null = null;

function regexes(): NonNullable<typeof compiled> {
  // Constants that test/regex-deferred-compile.test.ts compiles in RE2: compiled by the engine when first matched.
  const vouched = { engineVouched: true } as const;
  compiled ??= {
    amd: AMD_KERNEL_PATTERNS.map((p) => compileRegex(p.regex, flagsFromPython(p.pythonFlags), vouched)),
    xid: compileRegex(XID_REGEX, '', vouched),
    bus: compileRegex(FALLEN_OFF_BUS_REGEX, '', vouched),
  };
  return compiled;
}

export interface KernelLine {
  readonly time: string | null;
  readonly text: string;
}

export interface KernelScan {
  /** Fired ids, each once, in TIER3_IDS order. */
  readonly ids: string[];
  /** The events behind them (the first MAX_KERNEL_EVENTS). */
  readonly events: KernelEvent[];
}

/** Classifies kernel lines (already limited to the trial's window). */
export function scanKernelLines(lines: readonly KernelLine[]): KernelScan {
  const r = regexes();
  const fired = new Set<string>();
  const events: KernelEvent[] = [];
  const add = (e: KernelEvent): void => {
    fired.add(e.detector);
    if (events.length < MAX_KERNEL_EVENTS) events.push(e);
  };
  for (const { time, text } of lines) {
    AMD_KERNEL_PATTERNS.forEach((p, i) => {
      if (searchRegex(r.amd[i]!, text) !== null) add({ detector: p.detectorId, time, line: text });
    });
    const x = searchRegex(r.xid, text);
    if (x !== null) {
      const xid = Number(x.named['xid']);
      const known = XID_TABLE.get(xid);
      // Xid 79 *is* "fallen off the bus": one event, counted once, under the more specific id.
      add({
        detector: xid === 79 ? FALLEN_OFF_BUS : XID_DETECTORS[xidClass(xid)],
        time,
        line: text,
        xid,
        xid_name: known?.name ?? 'not in the Xid table',
        pci: x.named['pci']!,
      });
      continue;
    }
    const b = searchRegex(r.bus, text);
    if (b !== null)
      add(
        b.named['pci'] === undefined
          ? { detector: FALLEN_OFF_BUS, time, line: text }
          : { detector: FALLEN_OFF_BUS, time, line: text, pci: b.named['pci'] },
      );
  }
  return { ids: TIER3_IDS.filter((id) => fired.has(id)), events };
}

/** The sampler's readings around a trial, as Tier 3 compares them (the original's `scan_amd_smi`). */
export interface GpuReadings {
  readonly vramBeforeMib: number | null;
  readonly vramAfterMib: number | null;
  readonly throttleBefore: number | null;
  readonly throttleAfter: number | null;
}

/** `vram_growth` (after − before ≥ 256 MiB, unless `tier3_vram_growth: false`) and `thermal_throttle` (counter rose). */
export function gpuHealthIds(r: GpuReadings, vramGrowth: boolean): string[] {
  const ids: string[] = [];
  if (
    vramGrowth &&
    r.vramBeforeMib !== null &&
    r.vramAfterMib !== null &&
    r.vramAfterMib - r.vramBeforeMib >= VRAM_GROWTH_THRESHOLD_MIB
  )
    ids.push(VRAM_GROWTH);
  if (r.throttleBefore !== null && r.throttleAfter !== null && r.throttleAfter > r.throttleBefore)
    ids.push(THERMAL_THROTTLE);
  return ids;
}
