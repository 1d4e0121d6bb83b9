/**
 * The dev loop's type checks, on a worker thread: building a TypeScript program takes seconds of CPU, and on the
 * main thread it would hold up the gateway's heartbeats and the interactions the running plugins answer.
 * One worker per `gatehouse dev`, so TypeScript is loaded once; checks run one at a time, in order.
 */
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import type { PluginSource } from '../plugins/loader.js';
import { typeCheckPlugins, type TypeCheckResult } from './typecheck-plugins.js';

/** Marks the worker this module starts, so that importing it anywhere else serves nothing. */
const WORKER_MARK = 'gatehouseTypeCheckWorker';

interface CheckRequest {
  id: number;
  sources: PluginSource[];
  cwd: string;
}

/**
 * The worker's code is this same module. Built, it is a .js file the worker imports; run from the sources by
 * tsx, it is a .ts file, and tsx's loader does not come to worker threads by itself: the worker registers it
 * first, through tsx's API, resolved here where tsx is installed.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.module);
})().catch((err) => { setImmediate(() => { throw err; }); });
`;

function workerModule(): { module: string; tsx: string | null } {
  const module = import.meta.url;
  if (!/\.[cm]?ts$/.test(fileURLToPath(module))) return { module, tsx: null };
  return { module, tsx: import.meta.resolve('tsx/esm/api') };
}

type CheckAnswer = { id: number; result: TypeCheckResult } | { id: number; error: string };

/** Runs checks on a worker thread it starts on first use; `close` ends it. */
export class BackgroundTypeChecker {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: TypeCheckResult) => void; reject: (e: Error) => void }>();

  constructor(private readonly cwd: string = process.cwd()) {}

  check(sources: readonly PluginSource[]): Promise<TypeCheckResult> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, sources: sources.map((s) => ({ label: s.label, file: s.file })), cwd: this.cwd } satisfies CheckRequest);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.fail(new Error('the type checker was closed'));
    if (worker !== null) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(BOOTSTRAP, { eval: true, execArgv: process.execArgv, workerData: { [WORKER_MARK]: true, ...workerModule() } });
    worker.unref();
    worker.on('message', (answer: CheckAnswer) => {
      const waiter = this.waiting.get(answer.id);
      if (waiter === undefined) return;
      this.waiting.delete(answer.id);
      if ('error' in answer) waiter.reject(new Error(answer.error));
      else waiter.resolve(answer.result);
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      this.fail(new Error('the type checker stopped'));
    });
    this.worker = worker;
    return worker;
  }

  private fail(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

/** The worker's side: answer each request in turn. */
function serve(): void {
  const port = parentPort;
  if (port === null) return;
  let queue = Promise.resolve();
  port.on('message', (request: CheckRequest) => {
    queue = queue.then(async () => {
      try {
        port.postMessage({ id: request.id, result: await typeCheckPlugins(request.sources, request.cwd) } satisfies CheckAnswer);
      } catch (err) {
        port.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) } satisfies CheckAnswer);
      }
    });
  });
}

const data: unknown = workerData;
if (typeof data === 'object' && data !== null && (data as Record<string, unknown>)[WORKER_MARK] === true) serve();
