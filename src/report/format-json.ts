/** `report --format json`: the aggregated report object as it is (`SweepReport`), for scripts. */
import type { SweepReport } from './aggregate.js';

export const REPORT_JSON_VERSION = 1;

export function formatJson(report: SweepReport): string {
  return `${JSON.stringify({ report_version: REPORT_JSON_VERSION, ...report }, null, 2)}\n`;
}
