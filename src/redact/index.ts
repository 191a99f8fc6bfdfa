/** Scrubbing text for a bundle (browser-safe): paths, IP addresses, credentials and a recipe's extra patterns. */
export { SECRET_RULES, TextScrubber } from './text.js';
export type { RedactionCounts, TextScrubOptions } from './text.js';
export { lineWindows, MAX_WINDOW_UTF8_BYTES, type WindowPiece, WindowSplitter } from './windows.js';
export { ipv4Valid, ipv6Valid } from './ip.js';
export { documentKind, RedactionError, scrubDocument } from './json.js';
export type { DocumentKind } from './json.js';
