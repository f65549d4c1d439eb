/**
 * Slices of the event loop for SQLite's write work (issue 34). better-sqlite3 runs every statement
 * synchronously and knex resolves it with promises alone, so write work never waits for I/O: left alone, a
 * chain of statements keeps the one thread until it ends. Before each statement, write work asks this gate
 * for a turn (database/yielding-writes.ts):
 *
 * - it goes on at once while the current slice has run less than `sliceMs` and no other write work waits;
 * - otherwise it waits for a macrotask (`setImmediate`): the event loop first runs what is due (a read's
 *   socket, timers), then the gate starts a new slice for the first waiter, in the order they asked.
 *
 * One waiter per event-loop turn: concurrent write work (a commit's hundreds of Strapi events, each a
 * populated `findOne`, started at once by `onCommit`) takes turns one at a time instead of all running in
 * the same turn, so the longest stretch the thread spends on writes between two turns is about one slice
 * plus one statement's work, however many chains are running. Pure apart from the scheduling injected.
 */

export type WriteSlices = {
  /** Resolves when the caller may run its next statement (at once inside the slice, else after a turn). */
  turn: () => Promise<void>;
  /** Write work waiting for a turn. */
  waiting: () => number;
};

export type SliceOptions = {
  /** How long write work may keep the thread before it lets the event loop turn; 0: a turn before every statement. */
  sliceMs: number;
  /** Monotonic milliseconds. */
  clock?: () => number;
  /** Runs `callback` after the event loop's pending I/O and timers (a macrotask). */
  schedule?: (callback: () => void) => void;
};

const RESOLVED: Promise<void> = Promise.resolve();

export const createWriteSlices = ({
  sliceMs,
  clock = () => performance.now(),
  schedule = (callback) => void setImmediate(callback),
}: SliceOptions): WriteSlices => {
  const waiters: (() => void)[] = [];
  let scheduled = false;
  /** When the current slice began; -Infinity: none (the next statement waits for a turn). */
  let sliceStart = -Infinity;

  const release = () => {
    scheduled = false;
    const next = waiters.shift();
    if (!next) return;
    sliceStart = clock();
    next();
    // The others wait for the next turn: the one released runs its slice first.
    if (waiters.length > 0) later();
  };
  const later = () => {
    if (scheduled) return;
    scheduled = true;
    schedule(release);
  };

  return {
    turn() {
      if (waiters.length === 0 && clock() - sliceStart < sliceMs) return RESOLVED;
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        later();
      });
    },
    waiting: () => waiters.length,
  };
};
