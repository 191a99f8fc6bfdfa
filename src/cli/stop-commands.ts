/**
 * A GitHub Actions runner reads workflow commands (`::error::`, `::add-mask::`, `::stop-commands::`) from every line
 * a step prints, so a trial's own output echoed live by `run --format github` could forge annotations, mask
 * values or switch our own annotations off. The echo is therefore framed by `::stop-commands::TOKEN` … `::TOKEN::`,
 * GitHub's documented way to print untrusted text (docs.github.com, "Stopping and starting workflow commands"),
 * with a fresh random token the trial cannot know: only what is printed after the resume line is a command.
 *
 * The stop line, the echo and the resume line go through one stream, in order, so the runner sees them in that
 * order; the resume line always starts a line of its own, or the runner would not read it as a command.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';

/** 16 random bytes: 32 hex digits, as unguessable as GitHub's own examples ask for. */
export const newStopToken = (): string => randomBytes(16).toString('hex');

export class StopCommandsFrame {
  readonly token: string;
  /** Where the trial's output is echoed; it passes through to the target, after the stop line. */
  readonly echo: Writable;
  #atLineStart = true;

  constructor(target: Writable, token: string = newStopToken()) {
    this.token = token;
    const write = (text: string | Buffer, done: (err?: Error | null) => void): void => {
      if (text.length > 0) this.#atLineStart = endsWithNewline(text);
      target.write(text, done);
    };
    this.echo = new Writable({
      write: (chunk: Buffer, _encoding, done) => write(chunk, done),
      // After every echoed chunk has been passed on, so the resume line is last and knows where the echo ended.
      final: (done) => write(`${this.#atLineStart ? '' : '\n'}::${this.token}::\n`, done),
    });
    // A target that went away (EPIPE) ends the echo; the trial's runner has its own listener for that.
    this.echo.on('error', () => {});
    this.echo.write(`::stop-commands::${this.token}\n`);
  }

  /** Writes the resume line after everything echoed; resolves once it is passed on (or the target failed). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.echo.destroyed || this.echo.writableFinished) return resolve();
      this.echo.once('close', () => resolve());
      this.echo.once('error', () => resolve());
      this.echo.end(() => resolve());
    });
  }
}

function endsWithNewline(text: string | Buffer): boolean {
  return typeof text === 'string' ? text.endsWith('\n') : text[text.length - 1] === 0x0a;
}
