/**
 * `report --format json`: the aggregated report object as it is (`SweepReport`) with its version, on one line as
 * every command's JSON (schemas/report.schema.json). `sweep --json` embeds the same object.
 */
import type { SweepReport } from './aggregate.js';

export const REPORT_JSON_VERSION = 1;

export function reportJson(report: SweepReport): { readonly report_version: number } & SweepReport {
  return { report_version: REPORT_JSON_VERSION, ...report };
}

export function formatJson(report: SweepReport): string {
  return `${JSON.stringify(reportJson(report))}\n`;
}
