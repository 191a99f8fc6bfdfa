/**
 * The Redact view's output as HTML: scrubbed text escaped in full (it is untrusted: a pasted log must never become
 * markup), each placeholder the redactor writes (`<PATH:N>`, `<IPV4:N>`, `<IPV6:N>`, `<SECRET:N>`, `<REDACTED:N>`)
 * wrapped in a span of its kind. Pure string work, no DOM: the redactor worker runs it and the page assigns the
 * result to `innerHTML`; tests check its exact output in Node.
 */

/** The placeholder kinds, in the redactor's order (secrets, extra_patterns, paths, IPs), with their CSS class. */
export const PLACEHOLDER_KINDS = ['SECRET', 'REDACTED', 'PATH', 'IPV6', 'IPV4'] as const;
export type PlaceholderKind = (typeof PLACEHOLDER_KINDS)[number];

const PLACEHOLDER_RE = /<(PATH|IPV4|IPV6|SECRET|REDACTED):(\d+)>/g;
const HTML_SPECIAL = /[&<>"']/g;
const ENTITY: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML text: `&`, `<`, `>`, `"` and `'` as entities (safe in element content and in quoted attributes). */
export function escapeHtml(text: string): string {
  return text.replace(HTML_SPECIAL, (c) => ENTITY[c]!);
}

export interface Highlighted {
  readonly html: string;
  /** How many UTF-16 units of `text` the HTML shows (all of it unless cut at `maxChars`). */
  readonly shownChars: number;
  /** Placeholders shown, by kind. */
  readonly placeholders: Readonly<Record<PlaceholderKind, number>>;
}

/** The span of one placeholder: `<span class="ph ph-path" data-kind="PATH">&lt;PATH:0&gt;</span>`. */
export function placeholderHtml(kind: PlaceholderKind, n: string): string {
  return `<span class="ph ph-${kind.toLowerCase()}" data-kind="${kind}">&lt;${kind}:${n}&gt;</span>`;
}

/**
 * `text` (the scrubber's output) as escaped HTML with each placeholder in its span. With `maxChars`, the HTML stops
 * after about that many characters: never inside a placeholder (one that starts before the cut is shown whole) or a
 * surrogate pair. Text in the log that already looked like a placeholder is highlighted too: the scrubber's output
 * does not say which placeholders it wrote.
 */
export function highlightScrubbed(text: string, maxChars = Number.POSITIVE_INFINITY): Highlighted {
  const placeholders: Record<PlaceholderKind, number> = { SECRET: 0, REDACTED: 0, PATH: 0, IPV6: 0, IPV4: 0 };
  let limit = Math.min(text.length, Math.max(0, Math.floor(maxChars)));
  if (limit < text.length && limit > 0) {
    const c = text.charCodeAt(limit - 1);
    if (c >= 0xd800 && c <= 0xdbff) limit++;
  }
  const parts: string[] = [];
  let from = 0;
  const re = new RegExp(PLACEHOLDER_RE.source, 'g');
  for (let m = re.exec(text); m !== null && m.index < limit; m = re.exec(text)) {
    if (m.index > from) parts.push(escapeHtml(text.slice(from, m.index)));
    const kind = m[1] as PlaceholderKind;
    parts.push(placeholderHtml(kind, m[2]!));
    placeholders[kind]++;
    from = m.index + m[0].length;
  }
  const end = Math.max(from, limit);
  if (end > from) parts.push(escapeHtml(text.slice(from, end)));
  return { html: parts.join(''), shownChars: end, placeholders };
}
