/**
 * `aorta-probe patterns [--json] [--version]`: lists the built-in Tier 4 catalogue (src/detectors/), in scan order.
 *
 * Exit status (exit-status.ts): 0, or 2 for a usage error.
 */
import { BUILTIN_PATTERN_VERSION, TIER4_PATTERNS } from '../../scan/index.js';
import { atMost, parseCommandArgs, type OptionSpecs } from '../args.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-status.js';
import type { CommandIo } from '../io.js';
import { jsonLine } from '../json-output.js';

export const PATTERNS_USAGE = `Usage: aorta-probe patterns [--json] [--version]

Lists the built-in Tier 4 patterns in scan order: id, description, regex, flags and a sample line.
  --json       A JSON object {"version": str, "patterns": [{"id", "description", "regex",
               "flags", "sample"}]}.
  --version    Print only the catalogue version ("${BUILTIN_PATTERN_VERSION}").
  -h, --help   Show this help and exit.

Examples:
  aorta-probe patterns
  aorta-probe patterns --json
`;

export const PATTERNS_OPTIONS = {
  json: { type: 'boolean' },
  version: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export interface PatternsArgs {
  readonly help: boolean;
  readonly json: boolean;
  readonly version: boolean;
}

export function parsePatternsArgs(args: readonly string[]): PatternsArgs {
  const { values: v, positionals } = parseCommandArgs(args, PATTERNS_OPTIONS);
  atMost(positionals, 0, 'patterns takes no arguments');
  return { help: v.help === true, json: v.json === true, version: v.version === true };
}

export async function runPatterns(args: PatternsArgs, io: CommandIo): Promise<number> {
  if (args.version) {
    await io.writeOut(args.json ? jsonLine({ version: BUILTIN_PATTERN_VERSION }) : `${BUILTIN_PATTERN_VERSION}\n`);
    return EXIT.ok;
  }
  const rows = TIER4_PATTERNS.map((p) => ({
    id: p.detectorId,
    description: p.description,
    regex: p.regex,
    flags: p.pythonFlags,
    sample: p.sample,
  }));
  if (args.json) {
    await io.writeOut(jsonLine({ version: BUILTIN_PATTERN_VERSION, patterns: rows }));
    return EXIT.ok;
  }
  let out = `Tier 4 built-in patterns, version ${BUILTIN_PATTERN_VERSION} (scan order):\n`;
  for (const r of rows) {
    out += `\n${r.id}\n  ${r.description}\n  regex:  ${r.regex}${r.flags.length > 0 ? `   (${r.flags.join(', ')})` : ''}\n  sample: ${r.sample}\n`;
  }
  await io.writeOut(out);
  return EXIT.ok;
}

export const command: Command<PatternsArgs> = {
  name: 'patterns',
  usage: PATTERNS_USAGE,
  parse: parsePatternsArgs,
  run: runPatterns,
};
