/** GPU memory sampler: peak VRAM of a trial from amd-smi or nvidia-smi, and the parsers it uses. */
export { GpuSampler } from './sampler.js';
export type { GpuHealthReadings, GpuSamplerOptions, GpuSummary, GpuToolChoice } from './sampler.js';
export {
  parseAmdSmiMetricMemory,
  parseAmdSmiProcess,
  parseAmdSmiThrottle,
  parseAmdSmiUsage,
  parseAmdSmiVersion,
} from './amd-smi.js';
export type { AmdGpuMemory, AmdProcessVram } from './amd-smi.js';
export {
  parseNvidiaSmiGpuQuery,
  parseNvidiaSmiComputeApps,
  NVIDIA_GPU_QUERY_ARGS,
  NVIDIA_APPS_QUERY_ARGS,
} from './nvidia-smi.js';
export type { NvidiaGpuMemory, NvidiaComputeApp } from './nvidia-smi.js';
export type { ParseResult, ToolOutputError } from './parse-result.js';
export { toMiB } from './units.js';
export type { MemoryUnit } from './units.js';
export { extractJsonDocuments } from './json-docs.js';
export type { JsonDocument } from './json-docs.js';
export { readProcessTree, parseProcStatPpid } from './proc-tree.js';
export { findTool } from './find-tool.js';
export type { GpuToolName } from './find-tool.js';
export { runTool } from './run-tool.js';
export type { ToolRunResult, RunToolOptions } from './run-tool.js';
