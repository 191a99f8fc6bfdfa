/** The page's handle on one engine worker: request/response by sequence number, progress, restart on cancel. */
import type { CatalogueEntry, Request, Response } from './protocol.js';
import workerUrl from './worker.ts?worker&url';

type Pending = {
  resolve: (r: Response) => void;
  reject: (e: Error) => void;
  onProgress?: (done: number, total: number) => void;
};

export interface ReadyInfo {
  ms: number;
  sinceStartMs: number;
  re2LoadMs: number;
  catalogue: CatalogueEntry[];
}

export class CancelledError extends Error {
  override name = 'CancelledError';
}

/** Distributive Omit, so each request kind keeps its own fields. */
type RequestBody = Request extends infer R ? (R extends Request ? Omit<R, 'seq'> : never) : never;

export class EngineClient {
  #worker!: Worker;
  #seq = 0;
  #pending = new Map<number, Pending>();
  #readyResolve!: (r: ReadyInfo) => void;
  ready!: Promise<ReadyInfo>;
  /** Called for errors not tied to a request (worker script errors). */
  onError: (message: string) => void = () => {};
  restarts = 0;

  constructor(readonly label: string) {
    this.#start();
  }

  #start(): void {
    this.ready = new Promise((resolve) => {
      this.#readyResolve = resolve;
    });
    // A classic worker in the build (an IIFE bundle); the `vite` dev server serves workers as ES modules. The engine
    // loads the same way in both: the worker awaits the package's `ready()`.
    const w = new Worker(workerUrl, {
      type: import.meta.env.DEV ? 'module' : 'classic',
      name: JSON.stringify({ label: this.label }),
    });
    w.onmessage = (ev: MessageEvent<Response>) => this.#receive(ev.data);
    w.onerror = (ev: ErrorEvent) => {
      ev.preventDefault();
      this.onError(`${this.label} worker: ${ev.message || 'script error'}`);
    };
    this.#worker = w;
  }

  #receive(msg: Response): void {
    if (msg.kind === 'ready') {
      this.#readyResolve({
        ms: msg.ms,
        sinceStartMs: msg.sinceStartMs,
        re2LoadMs: msg.re2LoadMs,
        catalogue: msg.catalogue,
      });
      return;
    }
    const p = this.#pending.get(msg.seq);
    if (msg.kind === 'progress') {
      p?.onProgress?.(msg.done, msg.total);
      return;
    }
    if (msg.kind === 'fatal' && p === undefined) {
      this.onError(`${this.label} worker: ${msg.error}`);
      return;
    }
    if (p === undefined) return;
    this.#pending.delete(msg.seq);
    p.resolve(msg);
  }

  request(body: RequestBody, onProgress?: (done: number, total: number) => void): Promise<Response> {
    const seq = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#pending.set(seq, { resolve, reject, ...(onProgress ? { onProgress } : {}) });
      this.#worker.postMessage({ ...body, seq } as Request);
    });
  }

  get busy(): boolean {
    return this.#pending.size > 0;
  }

  /** Cancels everything in flight: terminates the worker (a scan cannot be interrupted otherwise) and starts anew. */
  restart(): void {
    this.#worker.terminate();
    this.restarts++;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    this.#start();
    for (const p of pending) p.reject(new CancelledError('cancelled'));
  }
}
