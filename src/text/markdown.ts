/**
 * Record-chosen text (cell names, detector ids, paths) in Markdown: a code span shows it as it is, so nothing in it
 * becomes a link, emphasis or HTML. One rule for every Markdown writer (report, matrix.md).
 */
import { inertLine } from './inert.js';

function longestBacktickRun(s: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    run = s.charCodeAt(i) === 0x60 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/**
 * A CommonMark code span showing `s` as it is (controls escaped by `inertLine`): backslashes are literal in a code
 * span, so none is added; the fence is one backtick longer than the longest run inside; a space pads each side
 * when the content starts or ends with a backtick or a space (CommonMark strips exactly one from each side).
 */
export function codeSpan(s: string): string {
  const t = inertLine(s);
  if (t === '') return '';
  const fence = '`'.repeat(longestBacktickRun(t) + 1);
  const pad = /^[` ]|[` ]$/.test(t) && !/^ +$/.test(t) ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/**
 * A code span in a GFM table cell: a `|` ends the cell even inside a code span, unless escaped; GFM takes that
 * backslash away before it parses the span (and a backslash before it stays literal: `\\|` shows `\|`).
 */
export function tableCode(s: string): string {
  return codeSpan(s).replace(/\|/g, '\\|');
}
