/**
 * Shutting down right after a write: Strapi's document service reads the written entry back after the
 * commit, unawaited, to emit its event. The plugin's destroy drains the pool first, so that read ends
 * before the database closes instead of waiting for a closed pool and failing a minute later.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { drainPool, type PoolCounts } from '../../src/plugins/public-api/server/src/database/drain';

let app: TestApp | undefined;
afterAll(async () => {
  await app?.close();
});

test('after a write, draining waits for the event Strapi emits after the commit', async () => {
  app = await bootApp();
  const { strapi } = app;
  const created: string[] = [];
  strapi.eventHub.on('entry.create', async (payload: { uid: string; entry: { name?: string } }) => {
    if (payload.uid === 'api::building.building') created.push(String(payload.entry.name));
  });
  await strapi.documents('api::building.building').create({ data: { name: 'Late Hall' } });
  const pool = (strapi.db.connection as unknown as { client: { pool: PoolCounts } }).client.pool;
  expect(await drainPool(pool)).toBe(true);
  // The event carries the entry as read back after the commit: that read has ended.
  expect(created).toEqual(['Late Hall']);
  expect(pool.numUsed() + pool.numPendingAcquires()).toBe(0);
});

test('the application closes right after a write without leaving a query behind', async () => {
  const { strapi } = app!;
  const pool = (strapi.db.connection as unknown as { client: { pool: PoolCounts } }).client.pool;
  let pendingAtClose = -1;
  // The last thing Strapi does before closing the database is this: look at the pool then.
  const destroy = strapi.db.destroy.bind(strapi.db);
  strapi.db.destroy = async () => {
    pendingAtClose = pool.numUsed() + pool.numPendingAcquires() + pool.numPendingCreates();
    return destroy();
  };
  await strapi.documents('api::building.building').create({ data: { name: 'Closing Hall' } });
  await app!.close();
  app = undefined;
  expect(pendingAtClose).toBe(0);
});
