/**
 * The processes transforms run in (contract section 13: "a transform past its time limit stops using
 * CPU"). A transform that passes its time limit is stopped by killing its process (SIGKILL), so its CPU
 * and its turn are free at once; the pool starts a fresh process in its place.
 *
 * Why processes and not worker threads: sharp runs its encoders on libuv's thread pool, which a worker
 * thread shares with the whole process; `worker.terminate()` waits for the native call to return (an
 * AVIF encoding of a 24-megapixel image measured 294 s), and libvips' own `timeout` is not checked
 * inside an encoder. Only a process can be stopped in the middle of one.
 *
 * Bounded: at most `size` processes (the transform queue's turns: no more run at once), each computing
 * one transform at a time; a process is reused, and exits after `idleMs` without work. A process that
 * dies by itself (a crash in a decoder, the kernel's OOM killer) fails its transform and is replaced.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Transform } from './transform-query';

/** What the pool asks of a process. */
export type WorkerJob = { id: number; path: string; transform: Transform };
/** What a process answers: the encoded bytes, or the error's message. */
export type WorkerAnswer = { id: number; buffer: Uint8Array } | { id: number; error: string };

/** Why a transform in the pool did not give bytes. */
export class PoolProblem extends Error {
  constructor(
    readonly kind: 'timed_out' | 'failed' | 'exited',
    message: string,
  ) {
    super(message);
    this.name = 'PoolProblem';
  }
}

export type TransformPoolOptions = {
  /** Processes at most: the transforms that may run at once. */
  size: number;
  /** libvips threads in each process (sharp.concurrency). */
  threads: number;
  /** How long an idle process is kept. */
  idleMs?: number;
  /** The process's script; the plugin's built transform worker by default (TRANSFORM_WORKER_SCRIPT). */
  script?: string;
  warn?: (message: string) => void;
};

export type TransformPool = {
  /** Computes `transform` of the image at `file`, killing its process after `timeoutMs`. */
  run: (file: string, transform: Transform, timeoutMs: number) => Promise<Buffer>;
  /** Processes alive, and how many compute a transform now. */
  load: () => { processes: number; busy: number };
  /** The process ids alive (tests read their CPU time). */
  pids: () => number[];
  /** Kills every process; transforms running fail. */
  close: () => Promise<void>;
};

export const DEFAULT_IDLE_MS = 60_000;

/**
 * The built transform worker. The plugin's build (package.json `exports`) bundles the server into
 * dist/server/ and the worker, an entry of its own so that a transform process loads sharp and nothing
 * else, into dist/transform-worker/: this code runs from dist/server/index.js.
 */
export const TRANSFORM_WORKER_SCRIPT = path.join(__dirname, '..', 'transform-worker', 'index.js');

type Worker = {
  child: ChildProcess;
  /** Taken by a transform (from the moment it is handed out until its answer or its death). */
  busy: boolean;
  job: { id: number; resolve: (buffer: Buffer) => void; reject: (error: PoolProblem) => void; timer: ReturnType<typeof setTimeout> } | null;
  idle: ReturnType<typeof setTimeout> | null;
};

export const createTransformPool = (options: TransformPoolOptions): TransformPool => {
  const script = options.script ?? TRANSFORM_WORKER_SCRIPT;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const workers = new Set<Worker>();
  /** Transforms waiting for a process (only while more run than `size`: the queue's bounds prevent it). */
  const waiting: { resolve: (worker: Worker) => void; reject: (error: PoolProblem) => void }[] = [];
  let nextId = 0;
  let closed = false;

  const remove = (worker: Worker) => {
    if (!workers.delete(worker)) return;
    if (worker.idle) clearTimeout(worker.idle);
    if (worker.job) clearTimeout(worker.job.timer);
  };

  const spawn = (): Worker => {
    const child = fork(script, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [],
      env: { ...process.env, PUBLIC_API_TRANSFORM_THREADS: String(options.threads) },
    });
    const worker: Worker = { child, busy: true, job: null, idle: null };
    workers.add(worker);
    // An idle process keeps nothing of this one alive.
    child.unref();
    child.channel?.unref();
    child.on('message', (answer: WorkerAnswer) => {
      const job = worker.job;
      if (!job || job.id !== answer.id) return;
      clearTimeout(job.timer);
      worker.job = null;
      if ('buffer' in answer) job.resolve(Buffer.from(answer.buffer.buffer, answer.buffer.byteOffset, answer.buffer.byteLength));
      else job.reject(new PoolProblem('failed', answer.error));
      free(worker);
    });
    child.on('exit', (code, signal) => {
      const job = worker.job;
      remove(worker);
      worker.job = null;
      if (job) {
        if (!closed) options.warn?.(`a transform process exited (${signal ?? `code ${code}`}) during a transform`);
        job.reject(new PoolProblem('exited', `The transform process exited (${signal ?? `code ${code}`}).`));
      }
      // A transform that waited for a process gets a fresh one.
      if (!closed && waiting.length > 0 && workers.size < options.size) waiting.shift()!.resolve(spawn());
    });
    child.on('error', (error) => options.warn?.(`a transform process failed: ${error.message}`));
    return worker;
  };

  /** Gives a process that finished to a transform waiting, or keeps it idle for `idleMs`. */
  const free = (worker: Worker) => {
    const next = waiting.shift();
    if (next) {
      next.resolve(worker);
      return;
    }
    worker.busy = false;
    worker.idle = setTimeout(() => {
      remove(worker);
      worker.child.disconnect();
    }, idleMs);
    worker.idle.unref();
  };

  const idleWorker = (): Worker | null => {
    for (const worker of workers) {
      if (!worker.busy && worker.child.connected) {
        worker.busy = true;
        if (worker.idle) clearTimeout(worker.idle);
        worker.idle = null;
        return worker;
      }
    }
    return null;
  };

  const acquire = (): Promise<Worker> => {
    const idle = idleWorker();
    if (idle) return Promise.resolve(idle);
    if (workers.size < options.size) return Promise.resolve(spawn());
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };

  const kill = (worker: Worker) => {
    worker.job = null;
    remove(worker);
    worker.child.kill('SIGKILL');
  };

  return {
    async run(file, transform, timeoutMs) {
      if (closed) throw new PoolProblem('exited', 'The transform processes are closed.');
      const deadline = Date.now() + timeoutMs;
      const worker = await acquire();
      if (worker.idle) clearTimeout(worker.idle);
      worker.idle = null;
      nextId += 1;
      const id = nextId;
      return new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(
          () => {
            kill(worker);
            reject(new PoolProblem('timed_out', 'The transform took longer than its time limit.'));
            // Its place is taken at once, so the next transform does not wait for a process to start.
            if (!closed && workers.size < options.size) free(spawn());
          },
          Math.max(0, deadline - Date.now()),
        );
        worker.job = { id, resolve, reject, timer };
        const job: WorkerJob = { id, path: file, transform };
        worker.child.send(job);
      });
    },
    load: () => {
      let busy = 0;
      for (const worker of workers) if (worker.busy) busy += 1;
      return { processes: workers.size, busy };
    },
    pids: () => [...workers].map((worker) => worker.child.pid).filter((pid): pid is number => pid !== undefined),
    async close() {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.reject(new PoolProblem('exited', 'The transform processes are closed.'));
      const exits = [...workers].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.child.exitCode !== null || worker.child.signalCode !== null) resolve();
            else worker.child.once('exit', () => resolve());
            worker.child.kill('SIGKILL');
          }),
      );
      await Promise.all(exits);
    },
  };
};
