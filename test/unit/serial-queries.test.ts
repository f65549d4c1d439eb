/**
 * PostgreSQL connections are sent one query at a time (database/serial-queries.ts): queries sent at once
 * on one connection (a transaction's, by Strapi's `Promise.all`) wait for each other in order, whatever
 * each one's outcome; queries on different connections still run at once. On a fake knex client whose
 * `_query` records what is in flight per connection.
 */
import { sendQueriesOneAtATime } from '../../src/plugins/public-api/server/src/database/serial-queries';

type Pending = { connection: object; sql: string; settle: (fail: boolean) => void };

/** A client class like knex's pg client: `_query` on its prototype, run by objects made from it. */
const fakeClientClass = () => {
  const pending: Pending[] = [];
  const busy = new Map<object, number>();
  let mostAtOnce = 0;
  const prototype = {
    _query(this: { name: string }, connection: object, query: { sql: string }) {
      const now = (busy.get(connection) ?? 0) + 1;
      busy.set(connection, now);
      mostAtOnce = Math.max(mostAtOnce, now);
      return new Promise((resolve, reject) => {
        pending.push({
          connection,
          sql: `${this.name}:${query.sql}`,
          settle: (fail) => {
            busy.set(connection, busy.get(connection)! - 1);
            if (fail) reject(new Error(`${query.sql} failed`));
            else resolve(query.sql);
          },
        });
      });
    },
  };
  return { prototype, pending, mostAtOnce: () => mostAtOnce };
};

const settle = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};

test('queries sent at once on one connection go one after the other, in order, whatever each outcome', async () => {
  const fake = fakeClientClass();
  expect(sendQueriesOneAtATime(fake.prototype as never)).toBe(true);
  // A second application wraps nothing more.
  expect(sendQueriesOneAtATime(fake.prototype as never)).toBe(false);
  // A transaction's client is made from the prototype (knex's makeTxClient).
  const trx = Object.assign(Object.create(fake.prototype), { name: 'trx' }) as typeof fake.prototype & { name: string };
  const connection = {};
  const results = [trx._query(connection, { sql: 'a' }), trx._query(connection, { sql: 'b' }), trx._query(connection, { sql: 'c' })].map(
    (sent) =>
      sent.then(
        (value) => `ok ${String(value)}`,
        (error: Error) => `failed ${error.message}`,
      ),
  );
  await settle();
  expect(fake.pending.map((query) => query.sql)).toEqual(['trx:a']);
  fake.pending.shift()!.settle(true);
  await settle();
  // The first failed: the next is sent all the same (pg sent it too; the transaction decides what it means).
  expect(fake.pending.map((query) => query.sql)).toEqual(['trx:b']);
  fake.pending.shift()!.settle(false);
  await settle();
  fake.pending.shift()!.settle(false);
  expect(await Promise.all(results)).toEqual(['failed a failed', 'ok b', 'ok c']);
  expect(fake.mostAtOnce()).toBe(1);
});

test('queries on different connections still run at once', async () => {
  const fake = fakeClientClass();
  sendQueriesOneAtATime(fake.prototype as never);
  const client = Object.assign(Object.create(fake.prototype), { name: 'pool' }) as typeof fake.prototype & { name: string };
  const sent = [client._query({}, { sql: 'x' }), client._query({}, { sql: 'y' })];
  await settle();
  expect(fake.pending.map((query) => query.sql)).toEqual(['pool:x', 'pool:y']);
  for (const query of fake.pending.splice(0)) query.settle(false);
  expect(await Promise.all(sent)).toEqual(['x', 'y']);
});
