/**
 * An engine failure where re2-wasm raises one: `matchAll` of a pattern containing `BOOM` over a window holding
 * `<abort>` throws `RegexMatchAbortError` on its first `next()`. A test file installs it with
 *   vi.mock('../src/regex/index.js', async (real) =>
 *     (await import('./support/engine-abort.js')).withInjectedAbort(await real()));
 * (vi.mock is hoisted above imports, so the factory imports this module itself.)
 */
type Regex = typeof import('../../src/regex/index.js');

export function withInjectedAbort(real: Regex): Regex {
  return {
    ...real,
    matchAll: (...args: Parameters<Regex['matchAll']>) => {
      const [re, text] = args;
      if (!re.source.includes('BOOM') || !text.includes('<abort>')) return real.matchAll(...args);
      return (function* () {
        yield* []; // the abort surfaces on the first next(), as the engine's does
        throw new real.RegexMatchAbortError(re.source, text.length, 'match: abort(OOM) (injected)');
      })();
    },
  };
}
