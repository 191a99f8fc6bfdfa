/**
 * The Redact view (issue 37 §4): a pasted log before and after the recipe's `redaction:` block, as
 * `aorta-probe bundle` would scrub it in a log file, with each placeholder highlighted and the counts as badges.
 * The redaction runs in its own engine worker, started when the view is first opened; the page only assigns the
 * worker's escaped HTML (redact-html.ts). The paste box is a CodeMirror editor, like the sample log's: it draws only
 * the lines in sight, where a native `<textarea>` spends about half a second laying out a 1 MiB paste. Edits are coalesced like scans: one request in flight, the latest text
 * sent when it answers, and a long stale one cancelled by restarting the worker.
 */
import { basicSetup, EditorView } from 'codemirror';
import { CancelledError, EngineClient } from './engine-client.js';
import { REDACT_EXAMPLE_LOG } from './redact-example.js';
import type { RedactOut } from './protocol.js';
import { type Child, h } from './dom.js';

/** How much of the scrubbed text is shown highlighted; the counts and the download are for all of it. */
export const REDACT_PREVIEW_CHARS = 256 * 1024;
/** A request in flight for longer than this is cancelled (the worker restarted) when the text changes again. */
const STALE_MS = 1500;
/** Typing in a large paste waits this long for the next keystroke before redacting again. */
const DEBOUNCE_MS = 120;

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`missing #${id}`);
  return el as T;
};

const code = (text: string): HTMLElement => h('code', {}, text);

export interface RedactView {
  /** True when nothing is pending: no request in flight or waiting. */
  isIdle(): boolean;
  /** The recipe changed: redact again (now if the view is open, else when it opens). */
  recipeChanged(): void;
  /** Shows the Redact view (true) or the result view. */
  show(open: boolean): void;
  setLog(text: string): void;
  readonly last: RedactOut | null;
}

export interface RedactViewOptions {
  recipeText(): string;
  /** Called when the view becomes idle (the page's `idle()` waiters). */
  settle(): void;
  reportError(message: string): void;
}

/** The badges: what the manifest counts, each highlighted when it is not zero. */
const BADGES: readonly { key: keyof RedactOut['counts']; kind: string; label: string }[] = [
  { key: 'pathsRewritten', kind: 'path', label: 'paths rewritten' },
  { key: 'ipsRewritten', kind: 'ip', label: 'IPs rewritten' },
  { key: 'secretsRedacted', kind: 'secret', label: 'secrets redacted' },
  { key: 'patternsRedacted', kind: 'redacted', label: 'extra patterns' },
];

export function mountRedactView(opts: RedactViewOptions): RedactView {
  let input!: EditorView;
  const output = $('redact-out');
  const panel = $('redact');
  const tabs = [$('tab-workbench'), $('tab-redact')];
  let client: EngineClient | null = null;
  let open = false;
  let dirty = true;
  let inFlight: { started: number; big: boolean } | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last: RedactOut | null = null;
  let downloadUrl: string | null = null;

  const engine = (): EngineClient => {
    if (client === null) {
      client = new EngineClient('redactor');
      client.onError = opts.reportError;
    }
    return client;
  };

  function schedule(delay = 0): void {
    dirty = true;
    if (!open) return;
    clearTimeout(timer);
    if (delay > 0) {
      timer = setTimeout(() => schedule(0), delay);
      return;
    }
    timer = undefined;
    if (inFlight === null) {
      void run();
      return;
    }
    if (inFlight.big || performance.now() - inFlight.started > STALE_MS) client?.restart();
  }

  async function run(): Promise<void> {
    dirty = false;
    const log = input.state.doc.toString();
    inFlight = { started: performance.now(), big: log.length > 2_000_000 };
    panel.dataset.state = 'redacting';
    try {
      const r = await engine().request({
        kind: 'redact',
        recipe: opts.recipeText(),
        log,
        previewChars: REDACT_PREVIEW_CHARS,
      });
      if (r.kind === 'redact') {
        last = r.result;
        if (!dirty) render(r.result);
      } else if (r.kind === 'fatal') opts.reportError(`redact: ${r.error}`);
    } catch (e) {
      if (!(e instanceof CancelledError)) opts.reportError(`redact: ${String(e)}`);
    } finally {
      inFlight = null;
      panel.dataset.state = 'done';
      if (dirty && open) void run();
      else opts.settle();
    }
  }

  function render(r: RedactOut): void {
    const source = $('redact-source');
    source.dataset.block = r.block;
    if (r.block === 'recipe')
      source.replaceChildren(
        "The recipe's ",
        code('redaction:'),
        ' block, read as ',
        code('aorta-probe bundle --redaction-from'),
        ' reads it: only the block, so errors elsewhere in the recipe do not change it.',
      );
    else if (r.block === 'none')
      source.replaceChildren(
        h('b', {}, 'This recipe has no '),
        code('redaction:'),
        h('b', {}, ' block'),
        ': a bundle made with it copies files unchanged (the identity redactor). Shown below: what a block with the defaults (',
        code('redaction: {}'),
        ') would do — credentials only; paths and IP addresses are rewritten only with ',
        code('scrub_paths: true'),
        ' and ',
        code('scrub_ip_addresses: true'),
        '.',
      );
    else source.replaceChildren(h('b', {}, 'aorta-probe bundle would refuse this block: '), r.error ?? '');
    const s = r.settings;
    const settings: Child[] =
      s === null
        ? []
        : [
            setting('scrub_paths', s.scrubPaths),
            setting('scrub_ip_addresses', s.scrubIpAddresses),
            setting('scrub_secrets', s.scrubSecrets),
            h(
              'span',
              { class: 'setting', 'data-setting': 'extra_patterns' },
              code(`extra_patterns: ${s.extraPatterns.length}`),
            ),
            s.scrubEnvKeys.length > 0
              ? h(
                  'span',
                  {
                    class: 'setting muted',
                    'data-setting': 'scrub_env_keys',
                    title: 'env keys are removed from env mappings (result.json, probe.env, …), not from a log',
                  },
                  code(`scrub_env_keys: ${s.scrubEnvKeys.length}`),
                  ' (env files only)',
                )
              : null,
          ];
    $('redact-settings').replaceChildren(...settings.filter((c): c is Node | string => !!c));
    const counts = $('redact-counts');
    counts.replaceChildren(
      ...BADGES.map((b) => {
        const n = r.counts[b.key];
        return h(
          'span',
          { class: `rcount rc-${b.kind}${n > 0 ? ' hot' : ''}`, 'data-count': b.key, 'data-n': String(n) },
          h('b', {}, String(n)),
          ` ${b.label}`,
        );
      }),
    );
    counts.dataset.total = String(BADGES.reduce((t, b) => t + r.counts[b.key], 0));
    // The HTML is the worker's escaped text with our spans only (redact-html.ts): nothing of the log is markup.
    output.innerHTML = r.error !== null && r.settings === null ? '' : r.html;
    output.dataset.block = r.block;
    const status = $('redact-status');
    if (downloadUrl !== null) URL.revokeObjectURL(downloadUrl);
    downloadUrl = null;
    const parts: Child[] = [];
    if (r.error !== null && r.settings !== null) parts.push(h('span', { class: 'warn' }, r.error), ' ');
    if (r.settings !== null && r.error === null) {
      parts.push(`${r.inputChars.toLocaleString()} characters redacted in ${r.ms.toFixed(1)} ms`);
      if (r.shownChars < r.totalChars)
        parts.push(
          h(
            'span',
            { class: 'warn', 'data-truncated': 'true' },
            `; showing the first ${r.shownChars.toLocaleString()} of ${r.totalChars.toLocaleString()} characters (the counts cover all of it)`,
          ),
        );
      downloadUrl = URL.createObjectURL(new Blob([r.text], { type: 'text/plain' }));
      parts.push(' · ', h('a', { href: downloadUrl, download: 'redacted.log', id: 'redact-download' }, 'Download'));
    }
    status.replaceChildren(...parts.filter((c): c is Node | string => !!c));
  }

  function setting(name: string, on: boolean): HTMLElement {
    return h('span', { class: `setting ${on ? 'on' : 'off'}`, 'data-setting': name }, code(`${name}: ${on}`));
  }

  function show(next: boolean): void {
    open = next;
    $('view-workbench').hidden = next;
    $('view-redact').hidden = !next;
    for (const t of tabs) {
      const selected = (t.id === 'tab-redact') === next;
      t.setAttribute('aria-selected', String(selected));
      t.tabIndex = selected ? 0 : -1;
    }
    if (next) input.requestMeasure();
    if (next && dirty) schedule();
  }

  for (const t of tabs) {
    t.addEventListener('click', () => show(t.id === 'tab-redact'));
    // The tab list's arrow keys (WAI-ARIA tabs pattern): move and select.
    t.addEventListener('keydown', (ev) => {
      if (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight') return;
      ev.preventDefault();
      const other = tabs.find((x) => x !== t)!;
      show(other.id === 'tab-redact');
      other.focus();
    });
  }
  input = new EditorView({
    parent: $('redact-in'),
    doc: REDACT_EXAMPLE_LOG,
    extensions: [
      basicSetup,
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': 'Log to redact (before)' }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) schedule(u.state.doc.length > 100_000 ? DEBOUNCE_MS : 0);
      }),
    ],
  });

  return {
    isIdle: () => inFlight === null && (!dirty || !open) && timer === undefined,
    recipeChanged: () => schedule(),
    show,
    setLog(text: string) {
      input.dispatch({ changes: { from: 0, to: input.state.doc.length, insert: text } });
    },
    get last() {
      return last;
    },
  };
}
