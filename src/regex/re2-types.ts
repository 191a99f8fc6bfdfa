/**
 * The embind surface of re2-wasm's `WrappedRE2`, as the engine and its loader see it (a module of its own so the
 * loader and the engine do not import each other).
 */
export interface RawMatch {
  match: string;
  /** Index of the match in the subject, counted in code points (not UTF-16 units, not bytes). -1 if none. */
  index: number;
  /** Capture groups 1..n; `undefined` for a group that did not take part. */
  groups: (string | undefined)[];
}

export interface CppVector<T> {
  get(i: number): T;
  size(): number;
  delete(): void;
}

export interface CppMap<K, V> {
  keys(): CppVector<K>;
  get(k: K): V;
  delete(): void;
}

export interface RawRE2 {
  ok(): boolean;
  error(): string;
  pattern(): string;
  /** `input` may be a string (UTF-8 encoded by embind) or a Uint8Array of UTF-8 bytes (copied byte-wise). */
  match(input: string | Uint8Array, start: number, getCapturingGroups: boolean): RawMatch;
  capturingGroupNames(): CppMap<number, string>;
  delete(): void;
  isDeleted(): boolean;
}
