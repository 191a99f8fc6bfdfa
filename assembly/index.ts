// The WebAssembly module's exports: the condition VM and the arena controls the host needs.
export {
  programBuffer, loadProgram, verifyError, inputBuffer, setInputs, run, runBatch, resultTruthy,
  resultBigDecimal, resultTag, resultNum, resultRef, resultError,
} from './vm';

/** Version of the bytecode format this VM understands. */
export { PROGRAM_VERSION } from './opcodes';

export function arenaMark(): usize { return __arena_mark(); }
export function arenaRelease(mark: usize): void { __arena_release(mark); }
export function arenaSetLimit(bytes: usize): void { __arena_set_limit(bytes); }
export function arenaExhausted(): bool { return __arena_exhausted(); }
