/**
 * The atomic time limit (issue 34, `PUBLIC_API_ATOMIC_TIME_LIMIT_MS`): an atomic request whose
 * transaction runs past it, checked between operations, rolls back whole and is answered 503 with
 * Retry-After and reason `atomic_time_limit`; nothing of it is written, and a retry (Idempotency-Key) runs
 * afresh. The slow operation is made slow by a document service middleware of the test (a wait on the
 * second record's create), so no time is asserted: only what the limit does.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';

const EVENT = 'api::event.event';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const LIMIT_MS = 200;

let app: TestApp;
let slow = true;

const addEvent = (title: string) => ({
  op: 'add',
  data: { type: 'events', attributes: { title, startsAt: '2027-06-01T19:00:00.000Z', category: 'concert' } },
});

const eventTitles = async () =>
  ((await app.strapi.db.query(EVENT).findMany({ select: ['title'], where: { publishedAt: { $notNull: true } } })) as { title: string }[])
    .map((row) => row.title)
    .sort();

beforeAll(async () => {
  app = await bootApp({ PUBLIC_API_ATOMIC_TIME_LIMIT_MS: String(LIMIT_MS) });
  // The operation named "Slow" takes longer than the limit (a wait, inside the request's transaction).
  app.strapi.documents.use(async (context, next) => {
    const title = (context.params as { data?: { title?: unknown } } | undefined)?.data?.title;
    if (slow && context.uid === EVENT && context.action === 'create' && title === 'Slow') {
      await new Promise((resolve) => setTimeout(resolve, LIMIT_MS * 2));
    }
    return next();
  });
});
afterAll(async () => {
  await app?.close();
});

test('past the limit, the whole request rolls back and is answered 503 with Retry-After; a retry runs afresh', async () => {
  const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } });
  const before = await eventTitles();
  const body = JSON.stringify({ 'atomic:operations': [addEvent('First'), addEvent('Slow'), addEvent('Third')] });
  const send = () =>
    app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', key.auth)
      .set('Content-Type', ATOMIC)
      .set('Idempotency-Key', 'atomic-time-limit-1')
      .send(body);

  const refused = await send();
  expect(refused.status).toBe(503);
  expect(refused.headers['content-type']).toBe('application/vnd.api+json');
  expect(refused.headers['retry-after']).toBe('1');
  expectValidJsonApi(refused.body);
  expect(refused.body.errors).toHaveLength(1);
  expect(refused.body.errors[0]).toMatchObject({ status: '503', meta: { reason: 'atomic_time_limit' } });
  expect(refused.body.errors[0].detail).toContain(`${LIMIT_MS} ms`);
  // Nothing half written: "First" was created in the transaction and rolled back with it.
  expect(await eventTitles()).toEqual(before);

  // Not stored for the Idempotency-Key: the same request, now fast and under a roomy limit (this shared
  // machine may take more than 200 ms for three writes), runs and writes all three.
  slow = false;
  (app.strapi.config.get('plugin::public-api') as { atomicTimeLimitMs: number }).atomicTimeLimitMs = 60_000;
  const retried = await send();
  expect(retried.status).toBe(200);
  expect(retried.headers['idempotency-replayed']).toBeUndefined();
  expect(await eventTitles()).toEqual([...before, 'First', 'Slow', 'Third'].sort());
});
