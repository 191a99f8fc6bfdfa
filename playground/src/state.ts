/**
 * Page state in the URL hash, so a recipe can be shared as a link: `#z=` + base64url(deflate-raw(JSON)).
 * Logs over 64 KiB are left out of the link; a link whose JSON is over MAX_LINK_STATE_BYTES is neither written nor
 * opened (opening stops inflating at the cap: inflate-capped.ts).
 */
import { inflateCapped } from './inflate-capped.js';
import type { Vars } from './protocol.js';

export { ShareLinkTooLarge } from './inflate-capped.js';

export interface PageState {
  recipe: string;
  log: string;
  vars: Vars;
  expr: string;
  scratchVars: Vars;
  capture: string;
}

/** Logs longer than this (UTF-16 units) are left out of share links and of the saved session. */
export const MAX_LOG_IN_HASH = 64 * 1024;

/**
 * The most a link's state may expand to (UTF-8 bytes of its JSON): a 64 KiB log is at most 384 KiB of JSON, so this
 * leaves room for any real recipe, and keeps a crafted link (0.9 MB of deflate is 900 MB of output) from taking
 * the tab's memory and minutes of its time.
 */
export const MAX_LINK_STATE_BYTES = 4 * 1024 * 1024;

function toBase64Url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): Uint8Array {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream('deflate-raw')));
  return new Uint8Array(await out.arrayBuffer());
}

/** The link's hash for `s`, or null when its state is over MAX_LINK_STATE_BYTES (no link would open it). */
export async function writeHash(s: PageState): Promise<string | null> {
  const state = s.log.length > MAX_LOG_IN_HASH ? { ...s, log: '' } : s;
  const json = new TextEncoder().encode(JSON.stringify(state));
  if (json.byteLength > MAX_LINK_STATE_BYTES) return null;
  return `#z=${toBase64Url(await deflate(json))}`;
}

function isVars(v: unknown): v is Vars {
  const o = v as Vars;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.exit_code === 'number' &&
    typeof o.walltime_sec === 'number' &&
    (o.peak_vram_mib === null || typeof o.peak_vram_mib === 'number')
  );
}

const SESSION_KEY = 'aorta-probe.playground.session';

/** Keeps the page state in this browser's local storage, so the next visit starts where this one stopped. */
export function saveSession(s: PageState): void {
  try {
    localStorage.setItem(SESSION_KEY, JSON.stringify(s.log.length > MAX_LOG_IN_HASH ? { ...s, log: '' } : s));
  } catch {
    // storage full or disabled (private windows): the session is simply not kept
  }
}

/** The last session kept by `saveSession`, or null. */
export function loadSession(): PageState | null {
  try {
    const raw = localStorage.getItem(SESSION_KEY);
    return raw === null ? null : asPageState(JSON.parse(raw));
  } catch {
    return null;
  }
}

function asPageState(v: unknown): PageState | null {
  const o = v as Partial<PageState>;
  if (typeof o !== 'object' || o === null) return null;
  if (
    typeof o.recipe !== 'string' ||
    typeof o.log !== 'string' ||
    !isVars(o.vars) ||
    typeof o.expr !== 'string' ||
    !isVars(o.scratchVars) ||
    typeof o.capture !== 'string'
  )
    return null;
  return o as PageState;
}

/**
 * The state in `hash`, or null when there is none (or it is not a page state). Rejects with ShareLinkTooLarge
 * when it expands past MAX_LINK_STATE_BYTES, and with the decoder's error when it is damaged.
 */
export async function readHash(hash: string): Promise<PageState | null> {
  const m = /^#z=([A-Za-z0-9_-]+)$/.exec(hash);
  if (m === null) return null;
  const json = new TextDecoder().decode(await inflateCapped(fromBase64Url(m[1]!), MAX_LINK_STATE_BYTES));
  return asPageState(JSON.parse(json));
}
