/**
 * Tier 3's catalogue: kernel-log lines that say the GPU or its links failed (the AMD part is the original's
 * `tier3_kernel.py`, ROCm/aorta), the NVIDIA Xid events classified by NVIDIA's published meanings, and the two ids
 * the GPU sampler feeds. Data only: the matching is src/classifier/tier3.ts, so the loader and the catalogue read
 * the ids without a regex engine.
 *
 * Xid classes follow NVIDIA's "Xid Errors" table (docs.nvidia.com/deploy/xid-errors): an Xid whose listed causes
 * are the application (bad address, illegal instruction, an app-triggered engine exception) is `application`; one
 * caused by hardware, the driver, the bus or NVLink is `platform`; informational events that the table marks as
 * not requiring action (e.g. a successful row remap, a high single-bit ECC rate) are `warn`. An Xid not in the
 * table is `unknown` (still a failure: the driver only logs an Xid when something went wrong).
 */
export interface KernelPattern {
  readonly detectorId: string;
  readonly description: string;
  /** Python `re` source (compiled on RE2 like every other pattern). */
  readonly regex: string;
  readonly pythonFlags: readonly string[];
  /** A kernel line the pattern matches (the fixture every test uses). */
  readonly sample: string;
}

/** The original's AMD catalogue, in its order (which is also the report order). */
export const AMD_KERNEL_PATTERNS: readonly KernelPattern[] = Object.freeze([
  {
    detectorId: 'tier3:amdgpu_reset',
    description: 'amdgpu GPU reset',
    regex: 'amdgpu: GPU reset',
    pythonFlags: ['MULTILINE', 'IGNORECASE'],
    sample: 'amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!',
  },
  {
    detectorId: 'tier3:sdma_timeout',
    description: 'SDMA engine timeout or hang',
    regex: 'SDMA semaphore timeout|SDMA hang',
    pythonFlags: ['MULTILINE', 'IGNORECASE'],
    sample: 'amdgpu: SDMA hang detected on engine 0',
  },
  {
    detectorId: 'tier3:vm_l2_fault',
    description: 'GPU page fault (VM_L2_PROTECTION_FAULT)',
    regex: 'VM_L2_PROTECTION_FAULT',
    pythonFlags: ['MULTILINE'],
    sample: 'amdgpu 0000:c1:00.0: amdgpu: VM_L2_PROTECTION_FAULT_STATUS:0x00301031',
  },
  {
    detectorId: 'tier3:xgmi_link_error',
    description: 'XGMI link error',
    regex: 'XGMI.*(?:error|fail|link down)',
    pythonFlags: ['MULTILINE', 'IGNORECASE'],
    sample: 'amdgpu: XGMI link down detected',
  },
  {
    detectorId: 'tier3:pcie_aer_fatal',
    description: 'PCIe AER fatal error',
    regex: 'AER:?\\s+Fatal',
    pythonFlags: ['MULTILINE'],
    sample: 'pcieport 0000:00:01.1: AER: Fatal error received: 0000:c1:00.0',
  },
]);

export type XidClass = 'platform' | 'application' | 'warn' | 'unknown';

export const XID_DETECTORS: Readonly<Record<XidClass, string>> = Object.freeze({
  platform: 'tier3:nvidia_xid_platform',
  application: 'tier3:nvidia_xid_application',
  warn: 'tier3:nvidia_xid_warn',
  unknown: 'tier3:nvidia_xid_unknown',
});

export const FALLEN_OFF_BUS = 'tier3:nvidia_fallen_off_bus';
export const VRAM_GROWTH = 'tier3:vram_growth';
export const THERMAL_THROTTLE = 'tier3:thermal_throttle';

/** NVIDIA's Xid table, the entries a compute node meets (number → class, NVIDIA's name). */
export const XID_TABLE: ReadonlyMap<number, { readonly cls: XidClass; readonly name: string }> = new Map([
  [8, { cls: 'application', name: 'GPU stopped processing (application timeout)' }],
  [13, { cls: 'application', name: 'Graphics Engine Exception' }],
  [31, { cls: 'application', name: 'GPU memory page fault' }],
  [32, { cls: 'platform', name: 'Invalid or corrupted push buffer stream' }],
  [38, { cls: 'platform', name: 'Driver firmware error' }],
  [43, { cls: 'application', name: 'GPU stopped processing' }],
  [45, { cls: 'warn', name: 'Preemptive cleanup, due to previous errors' }],
  [48, { cls: 'platform', name: 'Double Bit ECC Error' }],
  [61, { cls: 'platform', name: 'Internal micro-controller breakpoint/warning' }],
  [62, { cls: 'platform', name: 'Internal micro-controller halt' }],
  [63, { cls: 'warn', name: 'ECC page retirement or row remapping recording event' }],
  [64, { cls: 'platform', name: 'ECC page retirement or row remapper recording failure' }],
  [68, { cls: 'application', name: 'NVDEC0 Exception' }],
  [69, { cls: 'application', name: 'Graphics Engine class error' }],
  [74, { cls: 'platform', name: 'NVLINK Error' }],
  [79, { cls: 'platform', name: 'GPU has fallen off the bus' }],
  [92, { cls: 'warn', name: 'High single-bit ECC error rate' }],
  [94, { cls: 'platform', name: 'Contained ECC error' }],
  [95, { cls: 'platform', name: 'Uncontained ECC error' }],
  [109, { cls: 'application', name: 'Context Switch Timeout Error' }],
  [119, { cls: 'platform', name: 'GSP RPC Timeout' }],
  [120, { cls: 'platform', name: 'GSP Error' }],
  [121, { cls: 'warn', name: 'C2C Link corrected error' }],
  [123, { cls: 'platform', name: 'SPI PMU RPC write fail' }],
  [140, { cls: 'platform', name: 'Unrecovered ECC Error' }],
  [143, { cls: 'platform', name: 'GPU Initialization Failure' }],
  [154, { cls: 'warn', name: 'GPU Recovery Action Changed' }],
]);

/** `NVRM: Xid (PCI:0000:3b:00): 79, pid=...`: the PCI address and the Xid number. */
export const XID_REGEX = 'NVRM: Xid \\((?:PCI:)?(?P<pci>[0-9A-Fa-f:.]+)\\): (?P<xid>\\d+)';
/** `NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.` (the PCI part is optional in older drivers). */
export const FALLEN_OFF_BUS_REGEX = '(?:NVRM: GPU (?:at PCI:)?(?P<pci>[0-9A-Fa-f:.]+):? )?GPU has fallen off the bus';

/** One fixture line per NVIDIA id (tests and docs). */
export const NVIDIA_SAMPLES: Readonly<Record<string, string>> = Object.freeze({
  [XID_DETECTORS.platform]:
    'NVRM: Xid (PCI:0000:3b:00): 48, pid=2411, name=python, Ch 00000008, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.',
  [XID_DETECTORS.application]:
    'NVRM: Xid (PCI:0000:3b:00): 31, pid=2411, name=python, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f_1c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ',
  [XID_DETECTORS.warn]:
    'NVRM: Xid (PCI:0000:3b:00): 63, pid=2411, name=python, Row Remapper: New row marked for remapping, reset gpu to activate.',
  [XID_DETECTORS.unknown]: 'NVRM: Xid (PCI:0000:3b:00): 999, pid=2411, name=python, an event this table does not know',
  [FALLEN_OFF_BUS]: 'NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.',
});

/** Every Tier 3 id, in report order. */
export const TIER3_IDS: readonly string[] = Object.freeze([
  ...AMD_KERNEL_PATTERNS.map((p) => p.detectorId),
  XID_DETECTORS.platform,
  XID_DETECTORS.application,
  XID_DETECTORS.warn,
  XID_DETECTORS.unknown,
  FALLEN_OFF_BUS,
  VRAM_GROWTH,
  THERMAL_THROTTLE,
]);

/** Tier 3 ids that are warnings, never failures (the original's `TIER3_WARN_DETECTOR_IDS` plus the Xid warn class). */
export const TIER3_WARN_IDS: ReadonlySet<string> = new Set([VRAM_GROWTH, XID_DETECTORS.warn]);

/** The original's `VRAM_GROWTH_THRESHOLD_MIB`. */
export const VRAM_GROWTH_THRESHOLD_MIB = 256;

/** One kernel event that fired a Tier 3 id, for result.json. */
export interface KernelEvent {
  readonly detector: string;
  /** The kernel's timestamp (ISO 8601, as printed), or null when the line had none. */
  readonly time: string | null;
  /** The line as read, without its timestamp. */
  readonly line: string;
  readonly xid?: number;
  readonly xid_name?: string;
  readonly pci?: string;
}

/** Most events kept in result.json (a flapping link can log thousands). */
export const MAX_KERNEL_EVENTS = 100;

export function xidClass(xid: number): XidClass {
  return XID_TABLE.get(xid)?.cls ?? 'unknown';
}
