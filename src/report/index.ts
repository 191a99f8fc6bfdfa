/** Reading many trials' result.json files and reporting on them per cell. */
import type { SweepReport } from './aggregate.js';
import { formatHtml } from './format-html.js';
import { formatJson } from './format-json.js';
import { formatJunit } from './format-junit.js';
import { formatMarkdown } from './format-markdown.js';
import { formatText } from './format-text.js';
import type { TrialRecord } from './records.js';
import { checkOptions, OPTION, type OptionTable } from '../text/options.js';

export { aggregateResults, distribution } from './aggregate.js';
export type {
  AggregateOptions,
  CellSummary,
  DetectorCount,
  DetectorKind,
  Distribution,
  FlakyReason,
  SweepReport,
} from './aggregate.js';
export { readResults, parseRecord, UNKNOWN_CELL, VERDICTS } from './read-results.js';
export type { ReadProblem, ReadResults, ReadResultsOptions, TrialRecord, UnfinishedTrial } from './read-results.js';
export type { ExampleLine } from './examples.js';

export const REPORT_FORMATS = ['text', 'json', 'junit', 'markdown', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface FormatOptions {
  /** Where the report will be read from (the --out file's directory): HTML links to logs are relative to it. */
  readonly linkBase?: string | null;
}

/** `formatReport`'s option keys (text/options.ts). */
export const FORMAT_OPTION_KEYS = { linkBase: OPTION } satisfies OptionTable<FormatOptions>;

const FORMATTERS: Record<
  ReportFormat,
  (report: SweepReport, records: readonly TrialRecord[], options: FormatOptions) => string
> = {
  text: formatText,
  json: formatJson,
  junit: formatJunit,
  markdown: formatMarkdown,
  html: (report, records, options) => formatHtml(report, records, options.linkBase ?? null),
};

export function formatReport(
  format: ReportFormat,
  report: SweepReport,
  records: readonly TrialRecord[],
  options: FormatOptions = {},
): string {
  checkOptions('formatReport', options, FORMAT_OPTION_KEYS);
  return FORMATTERS[format](report, records, options);
}
