/**
 * Slices of the event loop for SQLite's write work (database/write-slices.ts, issue 34): write work goes on
 * while its slice lasts and nobody waits, then waits for a turn; one waiter is released per turn, in the
 * order they asked (so concurrent chains go round one statement each). Deterministic: the clock and the turns of the event loop are the test's.
 */
import { createWriteSlices } from '../../src/plugins/public-api/server/src/database/write-slices';

/** A hand-driven event loop: `turn()` runs the callbacks scheduled before it, as one check phase would. */
const handLoop = () => {
  let due: (() => void)[] = [];
  return {
    schedule: (callback: () => void) => void due.push(callback),
    pending: () => due.length,
    async turn() {
      const now = due;
      due = [];
      for (const callback of now) callback();
      // Lets the released chain run its microtasks, as the event loop does after each macrotask.
      for (let i = 0; i < 10; i += 1) await Promise.resolve();
    },
  };
};

const flushMicrotasks = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};

test('write work waits for a turn before its first statement, then goes on while its slice lasts', async () => {
  let now = 1000;
  const loop = handLoop();
  const slices = createWriteSlices({ sliceMs: 5, clock: () => now, schedule: loop.schedule });
  const log: string[] = [];
  const chain = (async () => {
    await slices.turn();
    log.push('statement 1');
    now += 2;
    await slices.turn();
    log.push('statement 2');
    now += 4;
    // 6 ms into a 5 ms slice: the next statement waits for the event loop to turn.
    await slices.turn();
    log.push('statement 3');
  })();
  await flushMicrotasks();
  expect(log).toEqual([]);
  expect(slices.waiting()).toBe(1);
  await loop.turn();
  expect(log).toEqual(['statement 1', 'statement 2']);
  expect(slices.waiting()).toBe(1);
  log.push('the event loop turned');
  await loop.turn();
  await chain;
  expect(log).toEqual(['statement 1', 'statement 2', 'the event loop turned', 'statement 3']);
  expect(slices.waiting()).toBe(0);
});

test('concurrent write work takes turns, one statement per turn of the event loop in the order asked, not all in one turn', async () => {
  let now = 0;
  const loop = handLoop();
  const slices = createWriteSlices({ sliceMs: 5, clock: () => now, schedule: loop.schedule });
  const log: string[] = [];
  // Like a commit's Strapi events: started at once, each a few statements.
  const chains = ['a', 'b', 'c'].map(async (name) => {
    for (let statement = 1; statement <= 2; statement += 1) {
      await slices.turn();
      log.push(`${name}${statement}`);
      now += 3;
    }
  });
  await flushMicrotasks();
  expect(slices.waiting()).toBe(3);
  expect(loop.pending()).toBe(1);
  const turns: string[][] = [];
  while (slices.waiting() > 0) {
    const before = log.length;
    await loop.turn();
    turns.push(log.slice(before));
  }
  await Promise.all(chains);
  // While others wait, a chain's slice is one statement: they go round, one per turn of the event loop.
  expect(turns).toEqual([['a1'], ['b1'], ['c1'], ['a2'], ['b2'], ['c2']]);
});

test('a slice of 0 ms waits for a turn before every statement', async () => {
  const loop = handLoop();
  const slices = createWriteSlices({ sliceMs: 0, clock: () => 0, schedule: loop.schedule });
  const log: string[] = [];
  const chain = (async () => {
    for (let statement = 1; statement <= 3; statement += 1) {
      await slices.turn();
      log.push(`statement ${statement}`);
    }
  })();
  for (let turn = 1; turn <= 3; turn += 1) {
    await flushMicrotasks();
    expect(log.length).toBe(turn - 1);
    await loop.turn();
    expect(log.length).toBe(turn);
  }
  await chain;
});

test('with the real event loop, the turn is a macrotask: work queued before it runs first', async () => {
  let now = 0;
  const slices = createWriteSlices({ sliceMs: 5, clock: () => now });
  const log: string[] = [];
  await slices.turn();
  now += 10;
  // A read's callback, due before write work that spent its slice asks to go on.
  setImmediate(() => log.push('other work'));
  await slices.turn().then(() => log.push('statement'));
  expect(log).toEqual(['other work', 'statement']);
});
