/**
 * Fair turns at SQLite's one writer (issue 34). SQLite runs one write transaction at a time, and the pool
 * hands its one connection out first come, first served: a key looping atomic requests on 4 connections
 * held it 4 times in a row while every other key's write waited behind all of them (others' writes
 * 66 ms -> 11 s). The API's write transactions now take turns here first: one runs at a time, and the
 * next turn goes to the next key in rotation that has a write waiting, in the order each key sent them. A
 * key with many waiting writes gets one turn per round, like a key with one; a write waits at most one
 * turn per other key waiting, each turn bounded by the atomic time limit (handlers/atomic-operations.ts).
 *
 * Only the plugin's own write transactions take turns (handlers/shared/write-handler.ts); the admin's and
 * background writes (usage, rate counters held while the writer was busy) go to the pool as before, between
 * turns. PostgreSQL writes concurrently, row by row: no turns there. Pure apart from the promises.
 */

export type WriteTurns = {
  /** Runs `work` when it is `subject`'s turn; the next turn starts when it settles. */
  run: <T>(subject: string, work: () => Promise<T>) => Promise<T>;
  /** Writes waiting for a turn (not the one running). */
  waiting: () => number;
};

export const createWriteTurns = (): WriteTurns => {
  /** Waiting writes by subject, subjects in rotation order (a Map keeps insertion order). */
  const queues = new Map<string, (() => void)[]>();
  let running = false;
  let count = 0;

  /** The subject whose write ran last: the next turn goes to another one waiting, if any. */
  let last: string | null = null;

  const next = () => {
    running = false;
    if (queues.size === 0) return;
    let subject = queues.keys().next().value!;
    if (subject === last && queues.size > 1) subject = [...queues.keys()][1]!;
    const queue = queues.get(subject)!;
    const start = queue.shift()!;
    count -= 1;
    // The subject goes to the back of the rotation, with what it has left.
    queues.delete(subject);
    if (queue.length > 0) queues.set(subject, queue);
    running = true;
    last = subject;
    start();
  };

  return {
    run<T>(subject: string, work: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const start = () => {
          let settled: Promise<T>;
          try {
            settled = work();
          } catch (error) {
            settled = Promise.reject(error);
          }
          settled.then(resolve, reject).finally(next);
        };
        if (!running) {
          running = true;
          last = subject;
          start();
          return;
        }
        const queue = queues.get(subject);
        if (queue) queue.push(start);
        else queues.set(subject, [start]);
        count += 1;
      });
    },
    waiting: () => count,
  };
};
