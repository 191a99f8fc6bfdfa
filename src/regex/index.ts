/**
 * RE2 regex engine over re2-wasm for Python-`re`-syntax patterns.
 *
 *   const re = compileRegex('vram=(?P<used>[0-9]+)', 'i');   // throws RegexSyntaxError (a RecipeSchemaError)
 *   const m = searchRegex(re, log);                           // {index, end, match, groups, named} | null
 *   for (const m of matchAll(re, log)) …                      // UTF-16 offsets, participating named groups
 *   re.dispose();                                             // release the lease (programs live in a 16 MiB heap)
 */
export { compileRegex, defaultRegexCache, flagsFromPython, RegexCache, RegexHandle } from './compile.js';
export type { CompileOptions, RegexCacheOptions, RegexCacheStats, RegexFlagString } from './compile.js';
export { matchAll, searchRegex, searchRegexUnchecked, testRegex } from './match.js';
export type { MatchOptions, RegexMatch } from './match.js';
export { translatePythonRegex, hintForRe2Error } from './syntax.js';
export { mayMatchNewline } from './newline.js';
export { parsePythonRegex } from './parse.js';
export type { RegexTree, Node as RegexNode } from './ast.js';
export type { EmptyMatches } from './nonempty.js';
export type { RegexNote, RegexNoteKind, TranslatedPattern } from './syntax.js';
export { MAX_SUBJECT_UTF8_BYTES, MEASURED_MAX_SUBJECT_UTF8_BYTES, utf8ByteLength } from './limits.js';
export {
  RegexSyntaxError,
  RegexSubjectTooLargeError,
  RegexEngineError,
  RegexDisposedError,
  RegexTooLargeError,
  RegexMatchAbortError,
} from './errors.js';
export type { RegexSyntaxErrorKind, RegexSyntaxErrorInit } from './errors.js';
export { heapProbe, engineStats } from './engine.js';
export type { HeapProbe, EngineStats } from './engine.js';
export { requiredLiterals, windowMayMatch } from './literals.js';
export type { LiteralSet } from './literals.js';
