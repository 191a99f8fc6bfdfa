/**
 * `aorta-probe list-mitigations [--mitigations-file F]... [--json]`: the mitigation registry an axis value may name
 * (src/recipe/mitigation-registry.ts): the original's 18 built-ins, then each file's names, with their variables and
 * where each comes from (the original's `aorta sweep list-mitigations`).
 *
 * Exit status: 0, or 2 for a usage error or a file that cannot be read or does not load (two sources defining one
 * name included). With --json, stdout holds one document (schemas/list-mitigations.schema.json) or `{"error": ...}`.
 */
import { readFileSync } from 'node:fs';
import { RecipeSchemaError } from '../../condition/errors.js';
import { builtinRegistry } from '../../recipe/index.js';
import { parseMitigationsFile } from '../../sweep/config.js';
import { inertLine } from '../../text/inert.js';
import { atMost, parseCommandArgs, type OptionSpecs } from '../args.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-status.js';
import type { CommandIo } from '../io.js';
import { errorRecord, jsonLine, ReadError } from '../json-output.js';

export const LIST_MITIGATIONS_USAGE = `Usage: aorta-probe list-mitigations [--mitigations-file F]... [--json]

Lists the mitigations a recipe's mitigation_axis and diagnostic_axis may name: the 18 built-in
bundles (the original's registry), then the names each --mitigations-file adds, with their
environment variables and source (builtin, sidecar:<file> for the original's JSON sidecar,
file:<path> for a flat 'name: {VAR: value}' map). A recipe's own 'mitigations:' adds more (source
recipe:<file>). A name defined by two sources is an error.

  --mitigations-file F   A sidecar {"version": 1, "mitigations": {...}} or a flat map. Repeatable.
  --json                 One JSON object {"mitigations": [{"name", "env": {VAR: value}, "source"}]}.
  -h, --help             Show this help and exit.

Example:
  aorta-probe list-mitigations --mitigations-file site.json
`;

export const LIST_MITIGATIONS_OPTIONS = {
  'mitigations-file': { type: 'string', multiple: true, metavar: 'F' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export interface ListMitigationsArgs {
  readonly help: boolean;
  readonly json: boolean;
  readonly files: readonly string[];
}

export function parseListMitigationsArgs(args: readonly string[]): ListMitigationsArgs {
  const { values: v, positionals } = parseCommandArgs(args, LIST_MITIGATIONS_OPTIONS);
  atMost(positionals, 0, 'list-mitigations takes no arguments');
  return { help: v.help === true, json: v.json === true, files: v['mitigations-file'] ?? [] };
}

export async function runListMitigations(args: ListMitigationsArgs, io: CommandIo): Promise<number> {
  const registry = builtinRegistry();
  for (const f of args.files) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch (err) {
      const e = new ReadError(f, err);
      if (args.json) await io.writeOut(jsonLine({ error: errorRecord(e) }));
      await io.writeErr(`aorta-probe list-mitigations: ${e.message}\n`);
      return EXIT.usage;
    }
    try {
      parseMitigationsFile(text, f, registry);
    } catch (err) {
      if (!(err instanceof RecipeSchemaError)) throw err;
      if (args.json) await io.writeOut(jsonLine({ error: errorRecord(err) }));
      await io.writeErr(`${err.message}\n`);
      return EXIT.usage;
    }
  }
  const rows = [...registry].map(([name, e]) => ({ name, env: Object.fromEntries(e.env), source: e.source }));
  if (args.json) {
    await io.writeOut(jsonLine({ mitigations: rows }));
    return EXIT.ok;
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  const sourceWidth = Math.max(...rows.map((r) => r.source.length));
  let out = `${rows.length} mitigations (name, source, environment):\n`;
  for (const r of rows) {
    const env = Object.entries(r.env);
    out += `  ${inertLine(r.name).padEnd(width)}  ${inertLine(r.source).padEnd(sourceWidth)}  ${env.length === 0 ? '(no env)' : env.map(([k, v]) => `${k}=${inertLine(v)}`).join(' ')}\n`;
  }
  await io.writeOut(out);
  return EXIT.ok;
}

export const command: Command<ListMitigationsArgs> = {
  name: 'list-mitigations',
  usage: LIST_MITIGATIONS_USAGE,
  parse: parseListMitigationsArgs,
  run: runListMitigations,
};
