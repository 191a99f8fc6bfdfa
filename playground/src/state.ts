/**
 * Page state in the URL hash, so a recipe can be shared as a link: `#z=` + base64url(deflate-raw(JSON)).
 * Logs over 64 KiB are left out of the link.
 */
import type { Vars } from './protocol.js';

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

function toBase64Url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): Uint8Array {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

export async function writeHash(s: PageState): Promise<string> {
  const state = s.log.length > MAX_LOG_IN_HASH ? { ...s, log: '' } : s;
  const json = new TextEncoder().encode(JSON.stringify(state));
  return `#z=${toBase64Url(await pipe(json, new CompressionStream('deflate-raw')))}`;
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

/** The state in `hash`, or null when there is none (or it cannot be read). */
export async function readHash(hash: string): Promise<PageState | null> {
  const m = /^#z=([A-Za-z0-9_-]+)$/.exec(hash);
  if (m === null) return null;
  const json = new TextDecoder().decode(await pipe(fromBase64Url(m[1]!), new DecompressionStream('deflate-raw')));
  return asPageState(JSON.parse(json));
}
