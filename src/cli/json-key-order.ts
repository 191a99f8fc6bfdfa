/**
 * The key order of one object inside a JSON text, as written. `JSON.parse` builds plain objects,
 * and a JavaScript object lists integer-like keys (`"0"`, `"10"`) before the others whatever the
 * text said, while Python's `json.loads` keeps the written order, and `repr(capture)` shows it.
 * Reading the order from the text (which `JSON.parse` has already accepted) restores it.
 */

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The keys of the object that is the value of `field` in the top-level object of `text`, in
 * order of first appearance (a repeated key keeps its first place, as in a Python dict), or null
 * when there is no such object. `text` must be valid JSON.
 */
export function fieldKeyOrder(text: string, field: string): string[] | null {
  const s = new Scanner(text);
  s.ws();
  if (s.peek() !== 0x7b) return null;
  let found: string[] | null = null;
  s.object((key) => {
    if (key === field && s.peek() === 0x7b) {
      const keys: string[] = [];
      const seen = new Set<string>();
      s.object((k) => {
        if (!seen.has(k)) {
          seen.add(k);
          keys.push(k);
        }
        s.value();
      });
      found = keys; // a repeated field: the last one is the value JSON.parse keeps
    } else {
      s.value();
    }
  });
  return found;
}

class Scanner {
  private i = 0;
  constructor(private readonly t: string) {}

  peek(): number {
    return this.t.charCodeAt(this.i);
  }

  ws(): void {
    while (WS.has(this.t.charCodeAt(this.i))) this.i++;
  }

  /** An object at the cursor; `member` is called with the cursor on each key's value. */
  object(member: (key: string) => void): void {
    this.i++; // {
    this.ws();
    if (this.peek() === 0x7d) {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      const key = this.string(true);
      this.ws();
      this.i++; // :
      this.ws();
      member(key);
      this.ws();
      if (this.t.charCodeAt(this.i++) === 0x7d) return; // otherwise a comma
    }
  }

  /** A string at the cursor, decoded by `JSON.parse` (the text is valid JSON); skipped unless `decode`. */
  string(decode = false): string {
    const start = this.i++;
    for (;;) {
      const c = this.t.charCodeAt(this.i++);
      if (c === 0x5c) this.i++;
      else if (c === 0x22) break;
    }
    return decode ? (JSON.parse(this.t.slice(start, this.i)) as string) : '';
  }

  /** Skips any value at the cursor; nesting is counted, not recursed into (no depth limit). */
  value(): void {
    const c = this.peek();
    if (c === 0x22) {
      this.string();
      return;
    }
    if (c !== 0x7b && c !== 0x5b) {
      // number, true, false, null: up to the next delimiter
      while (this.i < this.t.length && !WS.has(this.peek()) && !',]}'.includes(this.t[this.i]!)) this.i++;
      return;
    }
    let depth = 0;
    do {
      const d = this.peek();
      if (d === 0x22) {
        this.string();
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) depth--;
      this.i++;
    } while (depth > 0);
  }
}
