/**
 * Text from a trial (its log, its kernel log, a record it wrote, a recipe value) made inert for a terminal or a
 * line-based reader: C0 controls (but tab), DEL and C1 controls are written as Python's repr writes them (`\x1b`,
 * `\x9b`), so an ESC sequence cannot set a window title, move the cursor, write the clipboard or fake a line;
 * the line and paragraph separators U+2028/U+2029 become `\u2028`/`\u2029`, so no reader splits a line there.
 * A backslash is left as it is: the escaped text is for eyes, and JSON outputs stay exact (they never go
 * through here).
 *
 * Invariant: the result holds no code point in [0x00-0x08, 0x0a-0x1f, 0x7f-0x9f, 0x2028, 0x2029], and equals the
 * input when the input holds none.
 */

const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/gu;
const CONTROL_BUT_NEWLINE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]/gu;

function escapeOne(c: string): string {
  const n = c.codePointAt(0)!;
  return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
}

/** One line of display text: every control but tab escaped, newlines included. */
export function inertLine(s: string): string {
  return s.replace(CONTROL, escapeOne);
}

/** Several lines of display text: as `inertLine`, but `\n` stays a line break (a `\r` before it is escaped). */
export function inertLines(s: string): string {
  return s.replace(CONTROL_BUT_NEWLINE, escapeOne);
}
