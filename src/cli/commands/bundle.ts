/**
 * `aorta-probe bundle RUN_DIR [--ticket T] [--review] [--output PATH] [--redaction-from RECIPE] [--json]`: a
 * sweep's run directory as a scrubbed `.tar.gz` with a manifest (src/bundle/), the original's `aorta bundle`.
 *
 * Exit status: 0 written, 1 not written (no ticket, no trial records, a link out of the run directory, a redaction
 * that failed closed, declined at --review, an output that could not be written), 2 usage error or a run directory
 * that does not exist. With --json, stdout holds one document (schemas/bundle.schema.json) or `{"error": ...}`.
 */
import { createInterface } from 'node:readline';
import { BundleError, createBundle, type Manifest } from '../../bundle/index.js';
import { inertLine } from '../../text/inert.js';
import { atMost, parseCommandArgs, UsageError, type OptionSpecs } from '../args.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-status.js';
import type { CommandIo } from '../io.js';
import { errorRecord, jsonLine } from '../json-output.js';

export const BUNDLE_USAGE = `Usage: aorta-probe bundle RUN_DIR [--ticket T] [--review] [--output PATH] [--redaction-from RECIPE] [--json]

Packs a sweep's run directory (OUT/<ticket>/) into <ticket>-<UTC time>.tar.gz for a vendor or another
team: every text artifact scrubbed per the recipe's redaction: block (env keys by glob, paths,
IP addresses, credentials, extra_patterns; see docs/redaction.md), binary files copied, and a
manifest.json (last member) saying what was changed in each file. The redaction comes from
--redaction-from RECIPE, else the run's recipe.resolved.yaml, else its matrix.json, else none.

  --ticket T             The ticket recorded in the manifest (default: RUN_DIR's name; required
                         when that is _no_ticket_).
  --review               Print what would be bundled and ask before writing (no: exit 1).
  --output PATH          The archive's path, or an existing directory to write it in (default:
                         the current directory).
  --redaction-from RECIPE
                         Use this recipe's redaction: block (authoritative: none there, none used).
  --json                 One JSON object: {"path", "manifest"} (schemas/bundle.schema.json).
  -h, --help             Show this help and exit.

Exit status: 0 written, 1 not written (see the message), 2 usage error or no such RUN_DIR.
`;

export const BUNDLE_OPTIONS = {
  ticket: { type: 'string', metavar: 'T' },
  review: { type: 'boolean' },
  output: { type: 'string', metavar: 'PATH' },
  'redaction-from': { type: 'string', metavar: 'RECIPE' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export interface BundleArgs {
  readonly help: boolean;
  readonly runDir: string;
  readonly ticket: string | undefined;
  readonly review: boolean;
  readonly output: string | undefined;
  readonly redactionFrom: string | undefined;
  readonly json: boolean;
}

export function parseBundleArgs(args: readonly string[]): BundleArgs {
  const { values: v, positionals } = parseCommandArgs(args, BUNDLE_OPTIONS);
  if (v.help === true)
    return {
      help: true,
      runDir: '',
      ticket: undefined,
      review: false,
      output: undefined,
      redactionFrom: undefined,
      json: false,
    };
  atMost(positionals, 1, 'bundle takes one RUN_DIR');
  if (positionals.length === 0) throw new UsageError('missing RUN_DIR');
  return {
    help: false,
    runDir: positionals[0]!,
    ticket: v.ticket,
    review: v.review === true,
    output: v.output,
    redactionFrom: v['redaction-from'],
    json: v.json === true,
  };
}

/** The original's review pause, then its y/N question on stdin. */
async function review(manifest: Manifest, io: CommandIo): Promise<boolean> {
  const bytesIn = manifest.files.reduce((n, f) => n + f.bytes_in, 0);
  const bytesOut = manifest.files.reduce((n, f) => n + f.bytes_out, 0);
  let text = `aorta-probe bundle: review pause
  ticket            : ${inertLine(manifest.ticket)}
  source run dir    : ${inertLine(manifest.source_run_dir)}
  redactor          : ${manifest.redactor_kind}
  redaction applied : ${manifest.redaction_applied ? 'True' : 'False'}
  files             : ${manifest.files.length}
  total bytes in    : ${bytesIn}
  total bytes out   : ${bytesOut}

  per-file counts (env / paths / ips / secrets, bytes_in -> bytes_out):
`;
  const shown = manifest.files.length > 12 ? manifest.files.slice(0, 10) : manifest.files;
  for (const f of shown)
    text += `    ${inertLine(f.path)}: ${f.env_keys_removed}/${f.paths_rewritten}/${f.ips_rewritten}/${f.secrets_redacted} (${f.bytes_in} -> ${f.bytes_out})\n`;
  if (shown.length < manifest.files.length)
    text += `    ... (${manifest.files.length - shown.length} more; full set in manifest.json)\n`;
  await io.writeErr(`${text}Write the bundle? [y/N]: `);
  const rl = createInterface({ input: io.stdin, terminal: false });
  try {
    // The first line, or '' at the end of input. Plain listeners: readline emits a piped answer's 'line' before the
    // 'close' of its end, where racing question()'s promise against 'close' could lose the answer to its EOF.
    const answer = await new Promise<string>((r) => {
      rl.once('line', r);
      rl.once('close', () => r(''));
    });
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

export async function runBundleCommand(args: BundleArgs, io: CommandIo): Promise<number> {
  try {
    const r = await createBundle({
      runDir: args.runDir,
      ticket: args.ticket,
      output: args.output,
      redactionFrom: args.redactionFrom,
      review: args.review ? (m) => review(m, io) : undefined,
      log: (line) => void io.writeErr(`${inertLine(line)}\n`),
    });
    if (args.json) await io.writeOut(jsonLine({ path: r.path, manifest: r.manifest }));
    else await io.writeOut(`Wrote bundle to ${inertLine(r.path)}\n`);
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof BundleError)) throw err;
    if (args.json) await io.writeOut(jsonLine({ error: errorRecord(err) }));
    await io.writeErr(
      `${inertLine(err.message.startsWith('aorta-probe bundle') ? err.message : `aorta-probe bundle: ${err.message}`)}\n`,
    );
    return err.kind === 'not-found' ? EXIT.usage : 1;
  }
}

export const command: Command<BundleArgs> = {
  name: 'bundle',
  usage: BUNDLE_USAGE,
  parse: parseBundleArgs,
  run: runBundleCommand,
};
