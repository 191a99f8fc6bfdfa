/**
 * Where PyYAML's scanner and parser read YAML text differently from `yaml`'s, checked on `yaml`'s
 * own lexemes and CST tokens so the text is scanned once. Each difference either follows PyYAML
 * or becomes a positioned `TreeError` (docs/deviations-yaml.md lists which):
 *
 * - PyYAML separates tokens with spaces only: a tab outside a quoted scalar, a block scalar's
 *   content or a comment is "found character '\t' that cannot start any token".
 * - A quoted scalar may continue on a line indented less than its key (`yaml` requires the indent).
 * - In a flow collection `?` and a leading `:` are always indicators (`[?a]` is `[{a: None}]`, `[:a]`
 *   an error), and `-` before `,` `]` `}` is the string `-`.
 * - `%YAML` other than 1.x, a repeated `%YAML` or `%TAG` handle, and directives without `---` are
 *   errors; any `%YAML 1.x` still means YAML 1.1 resolution. A stream that starts with `...` is an
 *   error, and a stray `...` after the document is skipped.
 */
import { CST, Lexer, Parser } from 'yaml';

export class SyntaxDifference extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly endOffset: number,
  ) {
    super(reason);
  }
}

/** The `yaml` 2.9 lexer state this module wraps (private in its typings). */
interface LexerInternals {
  indentNext: number;
  parseQuotedScalar(): Generator<string, string>;
}

/**
 * A `yaml` lexer whose quoted scalars ignore the indentation of continuation lines, as PyYAML's
 * `scan_flow_scalar` does (it only stops at a document marker, which `yaml` still checks).
 */
function pyLexer(): Lexer {
  const lexer = new Lexer();
  // Reaching into the lexer is the only way to relax one rule of it; `yaml` is pinned (package.json).
  const internals = lexer as unknown as LexerInternals;
  const quoted = internals.parseQuotedScalar.bind(lexer);
  internals.parseQuotedScalar = function* () {
    const indent = internals.indentNext;
    internals.indentNext = 0;
    try {
      return yield* quoted();
    } finally {
      internals.indentNext = indent;
    }
  };
  return lexer;
}

const TAB_ERROR =
  "found character '\\t' (a tab) that cannot start any token: PyYAML indents and separates with spaces only (tabs may stand inside quotes, block scalars and comments)";

/** A tab in a block scalar's content is content once the line has reached the scalar's indentation. */
function checkBlockTabs(content: string, at: number): void {
  if (!content.includes('\t')) return;
  const lines = content.split('\n');
  const first = lines.find((l) => /[^ \r]/.test(l)) ?? '';
  const indent = Math.max(1, /^ */.exec(first)![0].length);
  let off = at;
  for (const line of lines) {
    const tab = line.indexOf('\t');
    if (tab >= 0 && tab < indent && /^ *$/.test(line.slice(0, tab)))
      throw new SyntaxDifference(TAB_ERROR, off + tab, off + tab + 1);
    off += line.length + 1;
  }
}

/**
 * Lexes `source` as `yaml` does, checking each lexeme against PyYAML's scanner. Lexemes are the
 * source cut in order, plus zero-width control characters (`CST.DOCUMENT`, `SCALAR`, `FLOW_END`).
 */
function* checkedLexemes(lexer: Lexer, source: string): Generator<string> {
  const hasTab = source.includes('\t');
  let offset = 0;
  let blockHeader = false;
  let scalarNext = false;
  let flowLevel = 0;
  let plainDash = false;
  for (const lexeme of lexer.lex(source, false)) {
    if (lexeme === CST.DOCUMENT || lexeme === CST.FLOW_END) {
      yield lexeme;
      continue;
    }
    if (lexeme === CST.SCALAR) {
      scalarNext = true; // yielded with the scalar, which a flow collection may cut differently
      continue;
    }
    const at = offset;
    offset += lexeme.length;
    const type = scalarNext ? (blockHeader ? 'block-content' : 'plain') : CST.tokenType(lexeme);
    scalarNext = false;
    if (type === 'block-scalar-header') blockHeader = true;
    else if (type === 'block-content') blockHeader = false;
    else if (type === 'flow-seq-start' || type === 'flow-map-start') flowLevel++;
    else if ((type === 'flow-seq-end' || type === 'flow-map-end') && flowLevel > 0) flowLevel--;
    if (hasTab) {
      if (type === 'block-content') checkBlockTabs(lexeme, at);
      else if (type !== 'comment' && type !== 'single-quoted-scalar' && type !== 'double-quoted-scalar') {
        const tab = lexeme.indexOf('\t');
        if (tab >= 0) throw new SyntaxDifference(TAB_ERROR, at + tab, at + tab + 1);
      }
    }
    if (type === 'anchor' || type === 'alias') checkAnchorName(lexeme, at);
    if (flowLevel > 0) {
      // `yaml` follows a flow `-` by an empty scalar, which is gone once the `-` is a scalar itself.
      if (plainDash && type === 'plain' && lexeme === '') {
        plainDash = false;
        continue;
      }
      plainDash = type === 'seq-item-ind' && /[,\]}]/.test(source[at + 1] ?? '');
      yield* flowLexemes(type, lexeme, at, source);
      continue;
    }
    if (type === 'plain' || type === 'block-content') yield CST.SCALAR;
    yield lexeme;
  }
}

/**
 * PyYAML's anchor and alias names are ASCII letters, digits, `-` and `_`; `yaml` takes any
 * non-space character but flow indicators, so `&a: 1` is an anchor `a:` to it and `{None: 1}`
 * to PyYAML. Either way the two would read different things.
 */
function checkAnchorName(lexeme: string, at: number): void {
  const bad = /[^0-9A-Za-z_-]/.exec(lexeme.slice(1));
  if (bad === null && lexeme.length > 1) return;
  const i = bad === null ? 1 : bad.index + 1;
  const what = lexeme[0] === '&' ? 'anchor' : 'alias';
  throw new SyntaxDifference(
    `${what} name '${lexeme}': PyYAML's ${what} names are ASCII letters, digits, '-' and '_' (it ends this one before ${JSON.stringify(lexeme[i] ?? '')})`,
    at + i,
    at + i + 1,
  );
}

/** What may start a plain scalar after PyYAML's flow-context `?` key indicator. */
const PLAIN_START = /^(?:[^\s\-?:,[\]{}#&*!|>'"%@`]|-\S)/;

/**
 * A lexeme inside a flow collection, as PyYAML's scanner would cut it: `?` is always a key
 * indicator there (`[?a]` is `[? a]`), and `-` before `,` `]` `}` is a plain `-` (`yaml` reads a
 * block sequence); a `?` later in a plain scalar and a plain scalar starting with `:` are errors
 * to PyYAML.
 */
function* flowLexemes(type: string | null, lexeme: string, at: number, source: string): Generator<string> {
  if (type === 'seq-item-ind' && /[,\]}]/.test(source[at + 1] ?? '')) {
    yield CST.SCALAR;
    yield lexeme;
    return;
  }
  if (type !== 'plain') {
    if (type === 'block-content') yield CST.SCALAR;
    yield lexeme;
    return;
  }
  const q = lexeme.indexOf('?', 1);
  if (q >= 0) {
    throw new SyntaxDifference(
      "'?' in a plain scalar inside a flow collection: PyYAML reads it as a mapping-key indicator; quote the scalar",
      at + q,
      at + q + 1,
    );
  }
  if (lexeme.startsWith(':')) {
    throw new SyntaxDifference(
      "a plain scalar inside a flow collection cannot start with ':' (PyYAML reads a mapping-value indicator); quote the scalar",
      at,
      at + 1,
    );
  }
  if (!lexeme.startsWith('?')) {
    yield CST.SCALAR;
    yield lexeme;
    return;
  }
  if (!PLAIN_START.test(lexeme.slice(1))) {
    throw new SyntaxDifference(
      "'?' starting a plain scalar inside a flow collection: PyYAML reads it as a mapping-key indicator; write '? ' or quote the scalar",
      at,
      at + 1,
    );
  }
  yield '?'; // the explicit-key indicator, then the rest as the key's plain scalar
  yield CST.SCALAR;
  yield lexeme.slice(1);
}

type Token = CST.Token;

function hasDocStart(doc: CST.Document): boolean {
  return doc.start.some((t) => t.type === 'doc-start');
}

/** PyYAML's `process_directives` for one document's directives. */
function checkDirectives(directives: CST.Directive[]): void {
  let yamlSeen = false;
  const handles = new Set<string>();
  for (const d of directives) {
    const [name, ...args] = d.source.slice(1).split(/[ \t]+/);
    if (name === 'YAML') {
      if (yamlSeen) throw new SyntaxDifference('found duplicate YAML directive', d.offset, d.offset + d.source.length);
      yamlSeen = true;
      const major = /^%YAML +([0-9]+)\.[0-9]+$/.exec(d.source)?.[1];
      if (major === undefined || args.length !== 1) {
        throw new SyntaxDifference(
          "while scanning a directive: expected '%YAML <major>.<minor>'",
          d.offset,
          d.offset + d.source.length,
        );
      }
      if (Number(major) !== 1) {
        throw new SyntaxDifference(
          'found incompatible YAML document (version 1.* is required)',
          d.offset,
          d.offset + d.source.length,
        );
      }
    } else if (name === 'TAG') {
      const handle = args[0] ?? '';
      if (handles.has(handle))
        throw new SyntaxDifference(`duplicate tag handle '${handle}'`, d.offset, d.offset + d.source.length);
      handles.add(handle);
    }
  }
}

/** Is this `%YAML 1.x` directive (checked already)? `yaml` would switch to 1.2 on `%YAML 1.2`. */
function isYamlDirective(t: Token): boolean {
  return t.type === 'directive' && /^%YAML[ \t]/.test(t.source);
}

/**
 * The top-level CST tokens, reshaped to what PyYAML's parser makes of the stream: directives
 * checked, `%YAML` dropped (PyYAML resolves YAML 1.1 whatever the version says), a leading `...`
 * rejected and stray `...` documents after the first skipped.
 */
function pyDocuments(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  let directives: CST.Directive[] = [];
  let first = true;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === 'directive') {
      directives.push(t);
      if (!isYamlDirective(t)) out.push(t);
      continue;
    }
    if (t.type !== 'document') {
      out.push(t);
      continue;
    }
    const next = tokens[i + 1];
    const empty = !hasDocStart(t) && t.value === undefined;
    if (directives.length > 0) {
      checkDirectives(directives);
      if (!hasDocStart(t)) {
        const at = next?.type === 'doc-end' ? next.offset : t.offset;
        throw new SyntaxDifference("expected '<document start>' after the directives", at, at + 1);
      }
    }
    directives = [];
    if (empty && next?.type === 'doc-end') {
      if (first) throw new SyntaxDifference("expected the node content, but found '...'", next.offset, next.offset + 3);
      i++; // PyYAML skips any number of `...` between documents
      continue;
    }
    first = false;
    out.push(t);
  }
  if (directives.length > 0) {
    const d = directives[directives.length - 1]!;
    throw new SyntaxDifference(
      "expected '<document start>' after the directives",
      d.offset,
      d.offset + d.source.length,
    );
  }
  return out;
}

/** The CST of `source` as PyYAML would read it, for `Composer.compose` (`Parser.parse` with our lexer). */
export function pyYamlCst(source: string, onNewLine: (offset: number) => void): Token[] {
  const parser = new Parser(onNewLine);
  onNewLine(0);
  const tokens: Token[] = [];
  for (const lexeme of checkedLexemes(pyLexer(), source)) for (const t of parser.next(lexeme)) tokens.push(t);
  for (const t of parser.end()) tokens.push(t);
  return pyDocuments(tokens);
}
