/**
 * Every built-in detector id, with its tier, what it does to the verdict, and its default category in two
 * dimensions (after OpenPAI's job-exit spec): *who* caused it (the user's code, the platform — node, driver,
 * network, GPU — or unknown) and whether it is *transient* (a retry, possibly elsewhere, can succeed). The loader
 * (`disable_detectors`, `detector_categories`, `exit_codes`), the classifier and the docs read this one table.
 */
import { META_IDS, TIER1_IDS, TIER2_HANG } from './ids.js';
import { TIER3_IDS } from './tier3.js';
import { TIER4_CATALOGUE } from './tier4.js';

export type Who = 'user' | 'platform' | 'unknown';
export const WHO_VALUES: readonly Who[] = ['platform', 'unknown', 'user'];

export interface DetectorCategory {
  readonly who: Who;
  readonly transient: boolean;
}

export type TierName = 'tier1' | 'tier2' | 'tier3' | 'tier4' | 'tier5';
export const TIER_NAMES: readonly TierName[] = ['tier1', 'tier2', 'tier3', 'tier4', 'tier5'];

export interface BuiltinDetector extends DetectorCategory {
  readonly id: string;
  /** Tier whose disabling turns it off; `meta:` ids belong to none (they follow Tier 5). */
  readonly tier: TierName | null;
}

const c = (who: Who, transient: boolean): DetectorCategory => ({ who, transient });

/** Default categories; the comment says why when it is not obvious. */
const CATEGORIES: Readonly<Record<string, DetectorCategory>> = {
  'tier1:exec_failed': c('user', false), // the command or its interpreter is missing or not executable
  'tier1:timeout': c('unknown', true),
  'tier1:interrupted': c('unknown', true), // an operator stop says nothing about the workload
  'tier1:sigsegv': c('user', false),
  'tier1:sigabrt': c('user', false),
  'tier1:sigbus': c('unknown', false), // a bad mmap in the code, or a full /dev/shm on the node
  'tier1:exit_nonzero': c('unknown', false),
  'tier1:coredump': c('user', false),
  'tier2:hang': c('unknown', true), // a collective deadlock (platform) or a user-level deadlock alike
  'tier3:amdgpu_reset': c('platform', true),
  'tier3:sdma_timeout': c('platform', true),
  'tier3:vm_l2_fault': c('user', false), // a GPU page fault is almost always a bad address in a kernel
  'tier3:xgmi_link_error': c('platform', true),
  'tier3:pcie_aer_fatal': c('platform', true),
  'tier3:nvidia_xid_platform': c('platform', true),
  'tier3:nvidia_xid_application': c('user', false),
  'tier3:nvidia_xid_warn': c('platform', true),
  'tier3:nvidia_xid_unknown': c('unknown', false),
  'tier3:nvidia_fallen_off_bus': c('platform', true),
  'tier3:vram_growth': c('unknown', false),
  'tier3:thermal_throttle': c('platform', true),
  'tier4:python_traceback': c('user', false),
  'tier4:hip_error': c('unknown', false),
  'tier4:cuda_error': c('unknown', false),
  'tier4:rocm_error': c('unknown', false),
  'tier4:nccl_rccl_error': c('platform', true),
  'tier4:collective_timeout': c('platform', true),
  'tier4:nan_signature': c('user', false),
  'meta:missing_pass_signal': c('user', false),
  // re2-wasm's fixed heap could not hold a pattern's match: a limit of the tool, not of the workload or the node
  'meta:regex_engine_failure': c('unknown', false),
  // the recipe's cell variables cannot be written to probe.env: the recipe's to fix
  'meta:env_file_validation_failed': c('user', false),
};

function build(): ReadonlyMap<string, BuiltinDetector> {
  const rows: [string, TierName | null][] = [
    ...TIER1_IDS.map((id): [string, TierName] => [id, 'tier1']),
    [TIER2_HANG, 'tier2'],
    ...TIER3_IDS.map((id): [string, TierName] => [id, 'tier3']),
    ...TIER4_CATALOGUE.map((p): [string, TierName] => [p.detectorId, 'tier4']),
    ...META_IDS.map((id): [string, null] => [id, null]),
  ];
  const map = new Map<string, BuiltinDetector>();
  for (const [id, tier] of rows) {
    const cat = CATEGORIES[id];
    if (cat === undefined) throw new Error(`catalogue: no category for ${id}`); // a new id must be categorised here
    map.set(id, Object.freeze({ id, tier, ...cat }));
  }
  return map;
}

/** Built-in detectors by id, in report order (Tier 1 … Tier 4, then meta). */
export const BUILTIN_DETECTORS: ReadonlyMap<string, BuiltinDetector> = build();

/**
 * Default who and transient of a custom pattern from its `category` (the original's autopsy vocabulary); a
 * pattern without one is unknown and not transient.
 */
export const AUTOPSY_CATEGORY_DEFAULTS: Readonly<Record<string, DetectorCategory>> = {
  rccl_hang: c('platform', true),
  thermal_throttle: c('platform', true),
  illegal_mem: c('user', false),
  oom_fragment: c('user', false),
  checkpoint_race: c('user', true), // a race: a rerun may pass
  launch_error: c('platform', true),
  perf_regression: c('unknown', false),
  gpu_race: c('user', true),
  numeric_silent: c('user', false),
  tooling_gap: c('platform', false),
  unknown: c('unknown', false),
};

/** `aorta.agent.llm.AUTOPSY_CATEGORIES`, newest version (with the evidence-only additions), sorted. */
export const AUTOPSY_CATEGORIES: readonly string[] = Object.freeze(Object.keys(AUTOPSY_CATEGORY_DEFAULTS).sort());

export const UNCATEGORISED: DetectorCategory = c('unknown', false);

/** `tierN:` prefix of an id, or null for `custom:` / `meta:` ids. */
export function tierOf(id: string): TierName | null {
  const t = id.slice(0, id.indexOf(':'));
  return (TIER_NAMES as readonly string[]).includes(t) ? (t as TierName) : id.startsWith('custom:') ? 'tier5' : null;
}

const quote = (s: string): string => JSON.stringify(s).replace(/^"|"$/g, "'");

/**
 * Why `id` is not a detector a recipe with these custom pattern ids can name, or null when it is: a built-in id,
 * or `custom:<id>` of one of its patterns. (The original took any `custom:*`; a typo there silently disabled
 * nothing, so an id the recipe does not define is rejected.)
 */
export function unknownDetectorReason(id: string, customIds: readonly string[]): string | null {
  if (BUILTIN_DETECTORS.has(id)) return null;
  if (id.startsWith('custom:')) {
    if (customIds.includes(id.slice('custom:'.length))) return null;
    return `${quote(id)} names no custom pattern of this recipe; its custom_patterns ids are [${customIds.map(quote).join(', ')}]`;
  }
  const m = /^([a-z0-9]+):(.+)$/.exec(id);
  if (m === null)
    return `${quote(id)} is not a detector id (expected '<tier>:<name>', e.g. 'tier2:hang' or 'custom:<id>')`;
  const known = [...BUILTIN_DETECTORS.keys()].filter((k) => k.startsWith(`${m[1]}:`));
  if (known.length === 0)
    return `${quote(id)} has an unknown prefix ${quote(m[1]!)}; expected one of [${[...TIER_NAMES, 'custom', 'meta'].map(quote).join(', ')}]`;
  return `unknown detector ${quote(id)}; known ${m[1]} ids: [${known.map(quote).join(', ')}]`;
}
