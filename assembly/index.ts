// The WebAssembly module's exports: the condition VM and the arena controls the host needs.
export {
  programBuffer,
  loadProgram,
  verifyError,
  verifiedDepth,
  inputBuffer,
  setInputs,
  singleInputBuffer,
  singleInputWords,
  evaluateOnce,
  run,
  runBatch,
  resultTruthy,
  resultBigDecimal,
  resultTag,
  resultNum,
  resultRef,
  resultError,
  setCostBudget,
  costSpent,
  contractTableCount,
  contractTableLength,
  contractTable,
} from './vm';

/** Every scalar of the compiler–VM contract, as globals: a test compares them with the host's copy. */
export * from './opcodes';

export function arenaMark(): usize {
  return __arena_mark();
}
export function arenaRelease(mark: usize): void {
  __arena_release(mark);
}
export function arenaSetLimit(bytes: usize): void {
  __arena_set_limit(bytes);
}
export function arenaExhausted(): bool {
  return __arena_exhausted();
}
