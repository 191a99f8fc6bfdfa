/** Messages between the playground page and its engine workers (structured-clone data only). */
import type { RedactionCounts, Verdict } from '../../src/index.js';

export interface Vars {
  exit_code: number;
  walltime_sec: number;
  peak_vram_mib: number | null;
}

/** One editor mark: 1-based line, 1-based code-point columns (endCol exclusive) in the recipe text. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** Where it comes from: the recipe loader (schema/YAML/regex), the condition sandbox, or the linter. */
  source: 'recipe' | 'sandbox' | 'lint' | 'internal';
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  message: string;
  /** The CPython AST class of the offending node, for sandbox errors. */
  node: string | null;
  /** The full positioned message (with the caret excerpt), when there is one. */
  detail: string;
  code?: string;
  suggestion?: string;
  /** For a rejected condition: what to write instead (`SandboxError.hint`), shown as its own line. */
  hint?: string;
}

export interface PatternInfo {
  id: string;
  detectorId: string;
  regex: string;
  flags: string;
  condition: string | null;
  onMatch: string;
  requiredForPass: boolean;
  category: string | null;
  line: number;
}

export interface CatalogueEntry {
  detectorId: string;
  description: string;
  regex: string;
  pythonFlags: string[];
  sample: string;
}

export interface ValueOut {
  /** The value's CPython type name and repr, or the exception class. */
  type?: string;
  repr?: string | null;
  error?: string;
  fired: boolean;
}

export interface MatchOut {
  /** UTF-16 offset in the log. */
  offset: number;
  /** 1-based line in the log. */
  line: number;
  text: string;
  capture: Record<string, string>;
  /** The condition's value on this match (null: the pattern has no condition). */
  condition: ValueOut | null;
}

export interface PatternResult {
  detectorId: string;
  first: MatchOut | null;
  /** The match the pattern fired at (null: did not fire). */
  firing: MatchOut | null;
}

/** A log detector record: where it fired, what it saw, its category (the library's `ClassifiedLog.detectors`). */
export interface LogDetectorOut {
  id: string;
  kind: string;
  line: number;
  byte_offset: number;
  match: string;
  capture: Record<string, string>;
  who: 'user' | 'platform' | 'unknown';
  transient: boolean;
  category: string | null;
}

export interface FiringOut {
  detectorId: string;
  kind: string;
  offset: number;
  /** 1-based line in the log. */
  line: number;
  /** The detector's category: who is likely at fault, whether a retry may pass, the pattern's own category. */
  who: 'user' | 'platform' | 'unknown';
  transient: boolean;
  category: string | null;
}

/** One of the recipe's `tests:` samples, run through the classifier. */
export interface SelfTestOut {
  name: string;
  line: number;
  col: number;
  passed: boolean;
  mismatches: string[];
  /** What fired and where (`custom:oom at log line 2: 'CUDA out of memory'`), as `check` prints under a failure. */
  fired: string[];
  /** One line per pattern whose condition raised on the sample (`custom:x: condition raised ValueError on …`). */
  raised: string[];
}

export interface ScanOut {
  /** 'error': the regex engine could not match a pattern (see engine_failures) and nothing failed. */
  verdict: Verdict;
  failure_detectors_fired: string[];
  error_detectors_fired: string[];
  /** Patterns the engine could not match to the end of the log: where, and the message. */
  engine_failures: { pattern: string; line: number; message: string }[];
  /** Patterns whose condition raised on some matches (a raise never fires), each as the one line `scan` prints. */
  condition_errors: { pattern: string; line: number; text: string }[];
  warn_detectors_fired: string[];
  capture: Record<string, string>;
  /** Every detector the log fired, as `scan --json` and result.json list them (disabled ones left out). */
  detectors: LogDetectorOut[];
  /** The Tier 4 and Tier 5 firings of `detectors`, with their offsets for the log view. */
  tier4: FiringOut[];
  tier5: FiringOut[];
  patterns: PatternResult[];
  bytes: number;
  ms: number;
  tier_durations_ms: { tier4: number; tier5: number };
}

export interface HeapInfo {
  heapBytes: number;
  probe1MiBAddress: number;
  emvalHandles: number;
  regexCache?: unknown;
}

export interface ScratchStep {
  source: string;
  value: ValueOut;
}

export type ScratchOut = { ok: true; value: ValueOut; steps: ScratchStep[] } | { ok: false; diagnostic: Diagnostic };

/** The `redaction:` block's settings (the loader's `RedactionKeys`). */
export interface RedactionSettings {
  scrubEnvKeys: string[];
  scrubPaths: boolean;
  scrubIpAddresses: boolean;
  scrubSecrets: boolean;
  extraPatterns: string[];
}

/** The Redact view: a pasted log through the recipe's `redaction:` block, as `aorta-probe bundle` scrubs a log file. */
export interface RedactOut {
  /**
   * 'recipe': the recipe's block; 'none': the recipe has none (`bundle --redaction-from` it copies the log unchanged),
   * so the preview shows an empty block's defaults; 'error': the block (or the YAML around it) is malformed and
   * `bundle` refuses it.
   */
  block: 'recipe' | 'none' | 'error';
  /** Why `bundle` would refuse the block, or why the redactor failed (then nothing is shown). */
  error: string | null;
  /** The settings the preview ran with (null: none ran). */
  settings: RedactionSettings | null;
  /** The scrubbed log, whole. */
  text: string;
  /** Its first `shownChars` UTF-16 units as escaped HTML, placeholders in spans (redact-html.ts). */
  html: string;
  shownChars: number;
  totalChars: number;
  inputChars: number;
  counts: RedactionCounts;
  ms: number;
}

export type Request =
  | { kind: 'check'; seq: number; recipe: string }
  | { kind: 'scratch'; seq: number; expr: string; vars: Vars; capture: Record<string, string> }
  | { kind: 'scan'; seq: number; recipe: string; log: string | Blob; vars: Vars }
  | { kind: 'heap'; seq: number }
  | { kind: 'redact'; seq: number; recipe: string; log: string; previewChars: number };

export type Response =
  /** ms: warm-up after the modules loaded; sinceStartMs: since the worker was created; re2LoadMs: the worker's `await ready()` (fetching and instantiating re2-wasm). */
  | { kind: 'ready'; ms: number; sinceStartMs: number; re2LoadMs: number; catalogue: CatalogueEntry[] }
  | {
      kind: 'check';
      seq: number;
      diagnostics: Diagnostic[];
      patterns: PatternInfo[] | null;
      selfTests: SelfTestOut[];
      ms: number;
    }
  | { kind: 'scratch'; seq: number; result: ScratchOut; ms: number }
  | { kind: 'progress'; seq: number; done: number; total: number }
  | { kind: 'scan'; seq: number; ok: true; result: ScanOut; diagnostics: Diagnostic[] }
  | { kind: 'scan'; seq: number; ok: false; diagnostics: Diagnostic[]; error: string | null }
  | { kind: 'heap'; seq: number; heap: HeapInfo }
  | { kind: 'redact'; seq: number; result: RedactOut }
  | { kind: 'fatal'; seq: number; error: string };
