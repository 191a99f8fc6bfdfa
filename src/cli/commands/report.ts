/**
 * `aorta-probe report DIR|FILE... [--format F] [--out FILE]`: aggregates result.json files per cell
 * (src/report/). Unusable files are listed in the report and skipped.
 *
 * Exit status: 0 the report was written (whatever the verdicts), 1 no usable result.json was found, 2 usage error,
 * 3 --out FILE could not be written.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseCommandArgs, pickFormat, UsageError, type OptionSpecs } from '../args.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-status.js';
import type { CommandIo } from '../io.js';
import { errorRecord, jsonLine, WriteError } from '../json-output.js';
import { aggregateResults, formatReport, readResults, REPORT_FORMATS, type ReportFormat } from '../../report/index.js';
import { inertLine } from '../../text/inert.js';
import { readRunInfo } from '../../report/run-info.js';
import { matrixFromRecords } from '../../report/records-matrix.js';
import { writeQuietly } from '../writer.js';

export const REPORT_USAGE = `Usage: aorta-probe report DIR|FILE... [--format text|json|junit|markdown|html] [--out FILE]

Reads every result.json under each DIR (recursively) or each FILE given — from 'sweep', from
cluster jobs, from 'run' — and reports per cell: trials, pass / fail / error, flaky (mixed
verdicts, or passed on a retry), detectors by the number of trials they fired in with an example
log line, wall time and peak VRAM (median, p95, max), and unfinished trials (trial_<n>/ directories
without a result.json). A record's cell is its cell_name, else the directory above trial_<n>/, else
_unknown_. Files that are not usable records are listed and skipped. Symbolic links below DIR are
not followed; a log is read only inside its record's directory, a recipe only when it matches the
sha256 the record holds. Given one sweep's run directory (DIR/<ticket>, with its run.json), only the
records that run wrote are counted (others are listed as skipped), and its matrix.json comes first:
each cell's failure rate against the baseline, the interval, p and effect, and the confound.

  --format F     text (default), json, junit (JUnit XML: a testsuite per cell, a testcase per
                 trial), markdown, or html (one self-contained page with pictures).
  --json         The same as --format json.
  --out FILE     Write the report to FILE instead of standard output.
  -h, --help     Show this help and exit.

Exit status: 0 report written, 1 no usable result.json found, 2 usage error, 3 FILE could not be
written. With --json, stdout holds one JSON object (schemas/report.schema.json), or {"error": {...}}.
`;

export interface ReportArgs {
  readonly help: boolean;
  readonly paths: readonly string[];
  readonly format: ReportFormat;
  readonly out: string | null;
}

export const REPORT_OPTIONS = {
  format: { type: 'string', metavar: 'F' },
  out: { type: 'string', metavar: 'FILE' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export function parseReportArgs(args: readonly string[]): ReportArgs {
  const { values: v, positionals: paths } = parseCommandArgs(args, REPORT_OPTIONS);
  if (v.help === true) return { help: true, paths: [], format: 'text', out: null };
  const format = pickFormat(REPORT_FORMATS, v.format, v.json);
  if (paths.length === 0) throw new UsageError('no DIR or FILE given');
  return { help: false, paths, format, out: v.out ?? null };
}

export async function runReportCommand(args: ReportArgs, io: CommandIo): Promise<number> {
  // One sweep's run directory: only the records that run wrote count (its run.json), and its matrix comes first.
  const run = args.paths.length === 1 ? readRunInfo(args.paths[0]!) : null;
  const read = await readResults(args.paths, run?.runId == null ? {} : { runId: run.runId });
  const { records, earlierAttempts, unfinished } = read;
  const problems = [...(run?.problems ?? []), ...read.problems];
  // A run without matrix.json (its trials ran as cluster tasks): the matrix from its records, by the same rules.
  const matrix = run === null ? null : (run.matrix ?? matrixFromRecords(run, records));
  const report = await aggregateResults(records, { problems, earlierAttempts, unfinished, matrix });
  // Links in the HTML page are relative to where it is written (stdout: the current directory).
  const text = formatReport(args.format, report, records, {
    linkBase: args.out === null ? process.cwd() : dirname(resolve(args.out)),
  });
  if (args.out === null) await writeQuietly(io.stdout, text);
  else {
    try {
      writeFileSync(args.out, text);
    } catch (err) {
      const e = new WriteError(args.out, err);
      if (args.format === 'json') await writeQuietly(io.stdout, jsonLine({ error: errorRecord(e) }));
      io.stderr.write(`aorta-probe report: ${e.message}\n`);
      return EXIT.error;
    }
  }
  // The skipped files are in the report; on stderr too, so they are seen when the report goes to a file or a parser.
  // Paths and reasons come from the file system and the records: made inert for the terminal.
  for (const p of problems)
    io.stderr.write(`aorta-probe report: skipped ${inertLine(p.path)}: ${inertLine(p.reason)}\n`);
  if (records.length === 0) {
    io.stderr.write(`aorta-probe report: no usable result.json under ${inertLine(args.paths.join(', '))}\n`);
    return 1;
  }
  return 0;
}

export const command: Command<ReportArgs> = {
  name: 'report',
  usage: REPORT_USAGE,
  parse: parseReportArgs,
  run: runReportCommand,
};
