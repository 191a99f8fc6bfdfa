/**
 * GitHub Actions workflow commands (`::error file=…,line=…,title=…::message`), which the runner turns into
 * annotations on the run and on the lines of a pull request. GitHub shows at most 10 annotations of each type per
 * step, so past 10 of a level the rest are summarised in one more annotation of that level instead of being lost
 * silently.
 */

export type AnnotationLevel = 'error' | 'warning' | 'notice';

export interface Annotation {
  readonly level: AnnotationLevel;
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
  readonly endLine?: number;
  readonly endColumn?: number;
  readonly title: string;
  readonly message: string;
}

/** GitHub's per-step display limit, per annotation type. */
export const ANNOTATIONS_SHOWN = 10;

// The runner's own escaping (toolkit `escapeData` / `escapeProperty`): '%' first, then line ends; properties also ':' and ','.
const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function command(a: Annotation): string {
  const props: string[] = [];
  if (a.file !== undefined) props.push(`file=${escapeProperty(a.file)}`);
  if (a.line !== undefined) props.push(`line=${a.line}`);
  if (a.endLine !== undefined) props.push(`endLine=${a.endLine}`);
  if (a.col !== undefined) props.push(`col=${a.col}`);
  if (a.endColumn !== undefined) props.push(`endColumn=${a.endColumn}`);
  props.push(`title=${escapeProperty(a.title)}`);
  return `::${a.level} ${props.join(',')}::${escapeData(a.message)}\n`;
}

/**
 * The workflow commands for `annotations`, in order. A level with more than ANNOTATIONS_SHOWN gets its first
 * ANNOTATIONS_SHOWN − 1, then one summary naming the rest, so every one of them is visible somewhere.
 */
export function githubAnnotations(annotations: readonly Annotation[]): string {
  const total = new Map<AnnotationLevel, number>();
  for (const a of annotations) total.set(a.level, (total.get(a.level) ?? 0) + 1);
  const shown = new Map<AnnotationLevel, number>();
  const hidden = new Map<AnnotationLevel, Annotation[]>();
  let out = '';
  for (const a of annotations) {
    const n = shown.get(a.level) ?? 0;
    const room = total.get(a.level)! > ANNOTATIONS_SHOWN ? ANNOTATIONS_SHOWN - 1 : ANNOTATIONS_SHOWN;
    if (n < room) {
      shown.set(a.level, n + 1);
      out += command(a);
    } else {
      const rest = hidden.get(a.level);
      if (rest === undefined) hidden.set(a.level, [a]);
      else rest.push(a);
    }
  }
  const where = (a: Annotation): string =>
    a.file === undefined ? a.title : `${a.file}${a.line === undefined ? '' : `:${a.line}`}: ${a.title}`;
  for (const [level, rest] of hidden) {
    out += command({ level, title: `${rest.length} more ${level} annotations`, message: rest.map(where).join('\n') });
  }
  return out;
}
