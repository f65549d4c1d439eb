/**
 * readAll (database/connection.ts): independent reads run at once on the pool and one after the other
 * inside a transaction, whose single connection the pg driver would otherwise have to queue them on.
 */
import type { Core } from '@strapi/strapi';
import { inTransaction, readAll } from '../../src/plugins/public-api/server/src/database/connection';

/** Tasks that record how many of them run at the same time. */
const tracked = (count: number) => {
  let running = 0;
  let most = 0;
  const tasks = Array.from({ length: count }, (_, index) => async () => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running -= 1;
    return index;
  });
  return { tasks, most: () => most };
};

// What inTransaction needs of Strapi: a transaction that hands its callback a transaction object.
const fakeStrapi = {
  db: { transaction: (work: (context: { trx: object }) => Promise<unknown>) => work({ trx: {} }) },
} as unknown as Core.Strapi;

test('outside a transaction the reads run at once, answers in task order', async () => {
  const { tasks, most } = tracked(4);
  expect(await readAll(tasks)).toEqual([0, 1, 2, 3]);
  expect(most()).toBe(4);
});

test('inside a transaction they run one after the other, answers in task order', async () => {
  const { tasks, most } = tracked(4);
  expect(await inTransaction(fakeStrapi, () => readAll(tasks))).toEqual([0, 1, 2, 3]);
  expect(most()).toBe(1);
});
