/**
 * Tier 3's kernel events (result.json's `tier3.events`) as the human outputs show them, one line each:
 * `kernel: tier3:nvidia_xid_platform — Xid 79 (GPU has fallen off the bus) — NVRM: Xid (PCI:0000:3b:00): 79, …`.
 * `run`'s summary and `report`'s text, Markdown and HTML use it. The kernel's line (and anything else a record
 * holds) is not ours: the text form is made inert here; Markdown and HTML escape the parts themselves.
 */
import { inertLine } from '../text/inert.js';

/** The parts of a kernel event that are shown. */
export interface ShownKernelEvent {
  readonly detector: string;
  /** The kernel line, without its timestamp. */
  readonly line: string;
  readonly xid?: number;
  readonly xid_name?: string;
}

/** At most this many events of one trial are listed in `run`'s summary (result.json keeps up to 100). */
export const SHOWN_KERNEL_EVENTS = 10;

/** `Xid 79 (GPU has fallen off the bus)`, or null for an event without an Xid. */
export function xidText(e: ShownKernelEvent): string | null {
  if (e.xid === undefined) return null;
  return e.xid_name === undefined ? `Xid ${e.xid}` : `Xid ${e.xid} (${e.xid_name})`;
}

/** One event as a text line (no newline), inert. */
export function kernelEventLine(e: ShownKernelEvent): string {
  const xid = xidText(e);
  return `kernel: ${inertLine(e.detector)} — ${xid === null ? '' : `${inertLine(xid)} — `}${inertLine(e.line)}`;
}

/** `run`'s lines for a trial's events: the first SHOWN_KERNEL_EVENTS, then how many more result.json holds. */
export function kernelEventLines(events: readonly ShownKernelEvent[]): string {
  let out = '';
  for (const e of events.slice(0, SHOWN_KERNEL_EVENTS)) out += `${kernelEventLine(e)}\n`;
  const more = events.length - SHOWN_KERNEL_EVENTS;
  if (more > 0) out += `kernel: … ${more} more event${more === 1 ? '' : 's'} in result.json\n`;
  return out;
}
