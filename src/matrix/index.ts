/** The sweep's answer: per-cell failure rates against a baseline, the speed confound, and whether a difference is real. */
export { buildMatrix } from './build.js';
export type { MatrixInput, MatrixPlanCell, MatrixTrial } from './build.js';
export {
  differenceText,
  effectText,
  failuresText,
  formatMatrixMarkdown,
  MATRIX_LEGEND,
  matrixLegend,
  matrixMarkdownBody,
  percent,
  pValue,
} from './markdown.js';
export { formatRunSummary } from './summary.js';
export { formatMatrixText } from './text.js';
export type { SummaryOptions } from './summary.js';
export {
  compareToBaseline,
  fisherExactTwoSided,
  newcombeDifference,
  roundHalfEven,
  trialsNeeded,
  wilsonInterval,
} from './stats.js';
export {
  DEFAULT_CONFOUND_THRESHOLD,
  MATRIX_SCHEMA_VERSION,
  UNRELIABLE_ERROR_RATE,
} from './types.js';
export type { ConfoundTag, MatrixCell, MatrixJson, VsBaseline } from './types.js';
