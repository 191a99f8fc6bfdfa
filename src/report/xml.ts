/**
 * XML 1.0 for the writers that emit it (JUnit, the HTML report's markup): escaping, and elements rendered with two
 * spaces of indentation per level. A log may contain anything, so characters XML 1.0 cannot carry at all (C0
 * controls other than tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) become U+FFFD.
 */

/** Element content: markup characters escaped, unrepresentable characters replaced. */
export function xmlText(s: string): string {
  return s
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** A double-quoted attribute value: also the quote, and line ends and tabs as references (attributes drop them). */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** Attributes in the order given. */
export type XmlAttrs = Readonly<Record<string, string | number>>;

/** An element: text content on the tag's line, or child elements one per line, or empty (`<tag/>`). */
export interface XmlElement {
  readonly tag: string;
  readonly attrs?: XmlAttrs;
  readonly text?: string;
  readonly children?: readonly XmlElement[];
}

export function renderXml(el: XmlElement, depth = 0): string {
  const pad = '  '.repeat(depth);
  const attrs = Object.entries(el.attrs ?? {})
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');
  if (el.text !== undefined) return `${pad}<${el.tag}${attrs}>${xmlText(el.text)}</${el.tag}>\n`;
  const children = el.children ?? [];
  if (children.length === 0) return `${pad}<${el.tag}${attrs}/>\n`;
  return `${pad}<${el.tag}${attrs}>\n${children.map((c) => renderXml(c, depth + 1)).join('')}${pad}</${el.tag}>\n`;
}

/** A document: the declaration, then the root element. */
export function xmlDocument(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${renderXml(root)}`;
}
