/**
 * SQLite's fair turns at its one writer (database/write-turns.ts, issue 34): one write at a time, the next
 * turn to another key waiting, each key's writes in the order it sent them. Deterministic: every write is
 * held until the test lets it finish.
 */
import { createWriteTurns } from '../../src/plugins/public-api/server/src/database/write-turns';

/** A write the test ends by hand; `started` tells when its turn came. */
const heldWrite = (log: string[], name: string) => {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  return {
    finish,
    work: async () => {
      log.push(name);
      await finished;
      return name;
    },
  };
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a key with four writes waiting alternates with the others instead of going four times first', async () => {
  const turns = createWriteTurns();
  const log: string[] = [];
  const writes = ['a1', 'a2', 'a3', 'a4', 'b1', 'c1', 'b2'].map((name) => ({ name, ...heldWrite(log, name) }));
  const done = writes.map((write) => turns.run(write.name[0]!, write.work));
  await settle();
  expect(log).toEqual(['a1']);
  expect(turns.waiting()).toBe(6);
  for (const write of ['a1', 'b1', 'a2', 'c1', 'b2', 'a3', 'a4']) {
    writes.find((candidate) => candidate.name === write)!.finish();
    await settle();
  }
  expect(log).toEqual(['a1', 'b1', 'a2', 'c1', 'b2', 'a3', 'a4']);
  expect(await Promise.all(done)).toEqual(writes.map((write) => write.name));
  expect(turns.waiting()).toBe(0);
});

test('one write runs at a time, and a failed write passes the turn on', async () => {
  const turns = createWriteTurns();
  let running = 0;
  let most = 0;
  const work = (fail: boolean) => async () => {
    running += 1;
    most = Math.max(most, running);
    await settle();
    running -= 1;
    if (fail) throw new Error('refused');
    return 'ok';
  };
  const results = await Promise.allSettled([turns.run('a', work(true)), turns.run('b', work(false)), turns.run('a', work(false))]);
  expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
  expect(most).toBe(1);
});

test('a write that throws before it yields still passes the turn on', async () => {
  const turns = createWriteTurns();
  const first = turns.run('a', () => {
    throw new Error('at once');
  });
  await expect(first).rejects.toThrow('at once');
  await expect(turns.run('b', async () => 'next')).resolves.toBe('next');
});
