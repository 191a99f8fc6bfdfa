import type { Pos } from './source.js';

/**
 * A syntax error as CPython would raise it from `ast.parse`: its message and the 1-based position
 * (code-point column) it points at. Internal to the front end; `validateCondition` turns it into a
 * `SandboxError`.
 */
export class PySyntaxError extends Error {
  override name = 'PySyntaxError';
  constructor(
    readonly msg: string,
    readonly pos: Pos,
    /** Exclusive end column on `pos.line`, when the error spans a range. */
    readonly endCol: number = pos.col + 1,
  ) {
    super(`${msg} (line ${pos.line}, col ${pos.col})`);
  }
}
