/**
 * Cell synthesis (the original's `recipe_builder.py`, ROCm/aorta): every (mitigation, diagnostic) pair is a cell named
 * `slug(m)-slug(d)`, whose environment is the two bundles merged.
 */
import { strRepr } from '../condition/repr.js';
import type { EnvBundle, MitigationTable } from '../recipe/index.js';

export interface Cell {
  readonly name: string;
  /** `[mitigation, diagnostic]`, as written in the axes. */
  readonly mitigations: readonly [string, string];
  /** The merged bundle, mitigation's variables first. */
  readonly env: EnvBundle;
}

/** The original's `slug`: characters outside `[A-Za-z0-9_.-]` become `_`; `_` is prefixed to '' or a leading `.`/`-`. */
export function slug(s: string): string {
  const out = s.replace(/[^A-Za-z0-9_.-]/gu, '_');
  return out === '' || out.startsWith('.') || out.startsWith('-') ? `_${out}` : out;
}

export type AxisName = 'mitigation_axis' | 'diagnostic_axis';

/** An axis value that names no mitigation (the original's `UnknownMitigationError`). */
export class UnknownMitigationError extends Error {
  override name = 'UnknownMitigationError';
  constructor(
    readonly axis: AxisName,
    readonly index: number,
    readonly value: string,
    known: readonly string[],
  ) {
    super(
      `recipe.${axis}[${index}]: unknown mitigation ${strRepr(value)}; known: [${[...known]
        .sort()
        .map((k) => strRepr(k))
        .join(', ')}] (define it under 'mitigations:' or in a --mitigations-file)`,
    );
  }
}

/** Two pairs slugging to one name, or two bundles setting one variable differently (the original's `RecipeCellError`). */
export class RecipeCellError extends Error {
  override name = 'RecipeCellError';
  constructor(
    message: string,
    readonly axis: AxisName,
    readonly index: number,
  ) {
    super(message);
  }
}

export function synthesizeCells(
  mitigationAxis: readonly string[],
  diagnosticAxis: readonly string[],
  table: MitigationTable,
): Cell[] {
  const bundle = (axis: AxisName, values: readonly string[], i: number): EnvBundle => {
    const b = table.get(values[i]!);
    if (b === undefined) throw new UnknownMitigationError(axis, i, values[i]!, [...table.keys()]);
    return b;
  };
  // An unknown name (the first, in axis order) is reported before any cell is built.
  for (let i = 0; i < mitigationAxis.length; i++) bundle('mitigation_axis', mitigationAxis, i);
  for (let i = 0; i < diagnosticAxis.length; i++) bundle('diagnostic_axis', diagnosticAxis, i);

  const cells: Cell[] = [];
  const byName = new Map<string, readonly [string, string]>();
  mitigationAxis.forEach((m, mi) => {
    diagnosticAxis.forEach((d, di) => {
      const name = `${slug(m)}-${slug(d)}`;
      const prior = byName.get(name);
      if (prior !== undefined) {
        throw new RecipeCellError(
          `probe-mode cell synthesis: (${strRepr(m)}, ${strRepr(d)}) and (${strRepr(prior[0])}, ${strRepr(prior[1])}) both slug to ${strRepr(name)}; rename one of the axis values`,
          'diagnostic_axis',
          di,
        );
      }
      byName.set(name, [m, d]);
      const env = new Map(bundle('mitigation_axis', mitigationAxis, mi));
      for (const [k, v] of bundle('diagnostic_axis', diagnosticAxis, di)) {
        const mine = env.get(k);
        if (mine !== undefined && mine !== v) {
          throw new RecipeCellError(
            `probe-mode cell synthesis: mitigation_axis value ${strRepr(m)} sets ${k}=${strRepr(mine)} but diagnostic_axis value ${strRepr(d)} sets ${k}=${strRepr(v)}; the two bundles conflict`,
            'diagnostic_axis',
            di,
          );
        }
        env.set(k, v);
      }
      cells.push({ name, mitigations: [m, d], env });
    });
  });
  return cells;
}
