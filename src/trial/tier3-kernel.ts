/**
 * Tier 3's kernel log: the kernel messages stamped inside the trial's window, read once after the exit from
 * `dmesg --time-format iso` or, when that fails (restricted `dmesg_restrict`, no util-linux), from
 * `journalctl -k -o short-iso-precise`, then classified by src/classifier/tier3.ts. (The original ran
 * `dmesg --no-pager`, which util-linux rejects, and filtered with `--since`, which util-linux lacks; both tools
 * print ISO-8601 stamps, so we filter ourselves.) When neither can be read, Tier 3's kernel part is disabled and
 * the reason is recorded once in result.json.
 */
import { findTool } from '../gpu/find-tool.js';
import { runTool } from '../gpu/run-tool.js';
import type { KernelLine } from '../classifier/tier3.js';

/** The original's timeout for a dmesg call. */
export const KERNEL_LOG_TIMEOUT_MS = 10_000;
/** The original's MAX_DMESG_BYTES; the newest keeps the tail. */
export const MAX_KERNEL_LOG_BYTES = 10 * 1024 * 1024;
/**
 * Kernel lines stamped up to this long before the spawn still count: dmesg derives wall-clock stamps from the
 * boot time, which may be off by a fraction of a second from our clock.
 */
export const KERNEL_LEAD_MS = 1000;

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)\s?(.*)$/;

/** Parses a line of either tool; `ms` is NaN when it has no ISO stamp. */
export function parseStampedLine(line: string): { ms: number; time: string | null; text: string } {
  const m = STAMP.exec(line);
  if (m === null) return { ms: Number.NaN, time: null, text: line };
  const frac = (m[2] ?? '').slice(0, 3).padEnd(3, '0');
  const zone = m[3] === 'Z' ? 'Z' : m[3]!.includes(':') ? m[3]! : `${m[3]!.slice(0, 3)}:${m[3]!.slice(3)}`;
  const ms = Date.parse(`${m[1]}.${frac}${zone}`);
  return { ms, time: line.slice(0, line.length - m[4]!.length).trim(), text: m[4]! };
}

/**
 * A kernel line longer than this (UTF-8 bytes) keeps only its start. printk caps a record at 1 KiB and journald's
 * LineMax defaults to 48 KiB, so only a replaced tool or a corrupt journal prints more; the regex engine refuses a
 * subject over 1 MiB, and one such line must not cost the trial its verdict.
 */
export const MAX_KERNEL_LINE_BYTES = 64 * 1024;

/** `text` cut to MAX_KERNEL_LINE_BYTES at a character boundary, with a marker that says so and how long it was. */
export function truncateKernelText(text: string): string {
  // Fast path: no string this short can exceed the limit (a UTF-16 unit is at most 3 UTF-8 bytes).
  if (text.length * 3 <= MAX_KERNEL_LINE_BYTES) return text;
  const head = new Uint8Array(MAX_KERNEL_LINE_BYTES);
  // encodeInto writes whole characters only, so `read` ends at a character boundary.
  const { read } = new TextEncoder().encodeInto(text, head);
  if (read === text.length) return text;
  return `${text.slice(0, read)} [aorta-probe: line truncated, ${Buffer.byteLength(text)} bytes, the first ${MAX_KERNEL_LINE_BYTES} kept]`;
}

/** The lines stamped in [startMs − KERNEL_LEAD_MS, endMs]; unstamped lines are dropped (their time is unknown). */
export function linesInWindow(output: string, startMs: number, endMs: number): KernelLine[] {
  const text = output.length > MAX_KERNEL_LOG_BYTES ? output.slice(-MAX_KERNEL_LOG_BYTES) : output;
  const out: KernelLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    const p = parseStampedLine(raw);
    if (p.ms >= startMs - KERNEL_LEAD_MS && p.ms <= endMs) out.push({ time: p.time, text: truncateKernelText(p.text) });
  }
  return out;
}

export type KernelLogRead =
  | { readonly ok: true; readonly source: 'dmesg' | 'journalctl'; readonly lines: KernelLine[] }
  | { readonly ok: false; readonly reason: string };

interface Source {
  readonly tool: 'dmesg' | 'journalctl';
  readonly args: (startMs: number) => string[];
}

const SOURCES: readonly Source[] = [
  { tool: 'dmesg', args: () => ['--time-format', 'iso'] },
  {
    tool: 'journalctl',
    args: (startMs) => [
      '-k',
      '-o',
      'short-iso-precise',
      '--no-pager',
      '--quiet',
      '--since',
      `@${Math.floor((startMs - KERNEL_LEAD_MS) / 1000)}`,
    ],
  },
];

/**
 * Reads the kernel messages of the window [startMs, endMs] (epoch milliseconds). Never throws. `runnerEnv` is the
 * runner's own environment, which finds and runs the tools: never the trial's, whose PATH or LD_PRELOAD a recipe's
 * mitigations may set, so that the trial cannot choose the program that reports on it.
 */
export async function readKernelLog(
  startMs: number,
  endMs: number,
  runnerEnv: NodeJS.ProcessEnv,
): Promise<KernelLogRead> {
  const reasons: string[] = [];
  for (const s of SOURCES) {
    const path = await findTool(s.tool, runnerEnv);
    if (path === null) {
      reasons.push(`${s.tool}: not on PATH`);
      continue;
    }
    const r = await runTool(path, s.args(startMs), {
      env: runnerEnv,
      timeoutMs: KERNEL_LOG_TIMEOUT_MS,
      maxStdoutBytes: 4 * MAX_KERNEL_LOG_BYTES,
    });
    if (r.kind === 'exited' && r.exitCode === 0)
      return { ok: true, source: s.tool, lines: linesInWindow(r.stdout, startMs, endMs) };
    reasons.push(`${s.tool}: ${describeFailure(r)}`);
  }
  return { ok: false, reason: reasons.join('; ') };
}

function describeFailure(r: Awaited<ReturnType<typeof runTool>>): string {
  switch (r.kind) {
    case 'exited': {
      const line = (r.stderr.trim() || r.stdout.trim() || 'no output').split('\n')[0]!;
      return `exit status ${r.exitCode}: ${line.slice(0, 200)}`;
    }
    case 'signaled':
      return `killed by ${r.signal}`;
    case 'spawn-error':
      return `could not be started (${r.code})`;
    case 'timeout':
      return `no answer within ${KERNEL_LOG_TIMEOUT_MS / 1000} s`;
    case 'output-too-large':
      return `printed more than ${(4 * MAX_KERNEL_LOG_BYTES) / 1048576} MiB`;
    case 'aborted':
      return 'cancelled';
  }
}
