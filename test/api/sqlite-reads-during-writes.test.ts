/**
 * Issue 34: SQLite reads never wait for a writer. A write's transaction holds Strapi's one connection
 * (here held open on purpose, with a row written so that it holds SQLite's write lock); reads of another
 * key answer while it is held, on the read-only connection (database/sqlite-reader.ts): the key lookup,
 * the rate-limit count (held in memory while the writer is busy, written when it is free), the records,
 * a revalidation, the sync feed. They see the last committed state; once the write commits, the next read
 * sees it. Order is asserted, never a time. SQLite only: PostgreSQL's pool reads beside its writers
 * (test/api/postgres-slug-locks.test.ts covers its writes).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { usingPostgres } from '../helpers/database';
import { createKey } from '../helpers/keys';
import { listenOnce } from '../helpers/writes';

const EVENT = 'api::event.event';
const RATE_LIMIT_TABLE = 'public_api_rate_limits';
const READ_EVENTS = { resources: { 'native:events': { actions: ['read'], read: '*' } } };

/** One Host for every request: links (and so ETags) do not follow the test server's port. */
let app: TestApp;
const get = (target: string) => app.http().get(target).set('Host', 'reads.test');

const describeSqlite = usingPostgres() ? describe.skip : describe;

/** A write transaction held open until `release()`: it has written one event, so it holds the write lock. */
const holdWrite = async (app: TestApp, title: string) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const holding = new Promise<void>((resolve) => (started = resolve));
  const done = app.strapi.db.transaction(async () => {
    await app.strapi
      .documents(EVENT)
      .create({ data: { title, startsAt: '2027-06-01T19:00:00.000Z', category: 'concert' } as never, status: 'published' });
    started();
    await released;
  });
  await holding;
  return { release, done };
};

describeSqlite('SQLite: reads during a write that holds the connection', () => {
  beforeAll(async () => {
    // Counters in the database (no Redis), so that every request's count is a write of its own.
    // Without leases, every request is one point in the table: the counts below are exact.
    app = await bootApp({ REDIS_URL: '', PUBLIC_API_RATE_LIMIT_REQUESTS: '600', PUBLIC_API_RATE_LIMIT_LEASE_MS: '0' });
    // One listener for the suite: requests in flight together must not close it under each other.
    await listenOnce(app);
    await app.strapi.documents(EVENT).create({
      data: { title: 'Committed before', startsAt: '2027-05-01T19:00:00.000Z', category: 'concert' } as never,
      status: 'published',
    });
    // The process's first count creates the counters' table (once per process): not during a held write.
    const warm = await createKey(app.strapi, READ_EVENTS);
    expect((await get('/api/v2/events').set('Authorization', warm.auth)).status).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
  });

  test('a new key reads, revalidates and syncs while the write is held, and sees the write once it commits', async () => {
    const key = await createKey(app.strapi, READ_EVENTS);
    const order: string[] = [];
    const held = await holdWrite(app, 'Held write');
    const writeEnded = held.done.then(() => order.push('write committed'));
    // A failed expectation below must not leave the connection held for the next test.
    const failsafe = setTimeout(held.release, 30_000);

    const list = await get('/api/v2/events').set('Authorization', key.auth);
    order.push('list answered');
    expect(list.status).toBe(200);
    // The last committed state: the held write is not seen.
    expect(list.body.data.map((record: any) => record.attributes.title)).toEqual(['Committed before']);
    expect(list.headers.ratelimit).toMatch(/r=599\b/);

    const one = await get(`/api/v2/events/${list.body.data[0].id}`).set('Authorization', key.auth);
    order.push('record answered');
    expect(one.status).toBe(200);
    expect(one.headers.ratelimit).toMatch(/r=598\b/);

    const again = await get('/api/v2/events').set('Authorization', key.auth).set('If-None-Match', list.headers.etag);
    order.push('revalidation answered');
    // The same page as before the write began: not modified.
    expect(again.status).toBe(304);

    const synced = await get('/api/v2/sync').set('Authorization', key.auth);
    order.push('sync answered');
    expect(synced.status).toBe(200);

    held.release();
    clearTimeout(failsafe);
    await writeEnded;
    expect(order).toEqual(['list answered', 'record answered', 'revalidation answered', 'sync answered', 'write committed']);

    // Committed: the next read sees it, and its count follows the ones held while the writer was busy.
    const after = await get('/api/v2/events').set('Authorization', key.auth);
    expect(after.status).toBe(200);
    expect(after.body.data.map((record: any) => record.attributes.title).sort()).toEqual(['Committed before', 'Held write']);
    // Four requests before this one (the list, the record, the revalidation, the sync).
    expect(after.headers.ratelimit).toMatch(/r=595\b/);
  });

  test("another key's read answers while an atomic request holds the writer, and its write takes the next turn", async () => {
    const writer = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } });
    const other = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } });
    let release!: () => void;
    let reached!: () => void;
    const holding = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const failsafe = setTimeout(release, 30_000);
    /** The titles created, in the order the writes ran: the order of the turns. */
    const created: string[] = [];
    // The atomic request's second operation waits, inside its transaction, until the test lets it go on.
    app.strapi.documents.use(async (context, next) => {
      const title = (context.params as { data?: { title?: unknown } } | undefined)?.data?.title;
      if (context.uid === EVENT && context.action === 'create' && typeof title === 'string') created.push(title);
      if (context.uid === EVENT && context.action === 'create' && title === 'Atomic hold') {
        reached();
        await released;
      }
      return next();
    });
    const order: string[] = [];
    const add = (title: string) => ({
      op: 'add',
      data: { type: 'events', attributes: { title, startsAt: '2027-06-01T19:00:00.000Z', category: 'concert' } },
    });
    const atomic = app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', writer.auth)
      .set('Content-Type', 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"')
      .send(JSON.stringify({ 'atomic:operations': [add('Atomic first'), add('Atomic hold')] }))
      .then((res) => {
        order.push('atomic');
        return res;
      });
    await holding;
    // A second atomic request of the same key waits for a turn; the other key's write is given the next one.
    const second = app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', writer.auth)
      .set('Content-Type', 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"')
      .send(JSON.stringify({ 'atomic:operations': [add('Atomic second')] }))
      .then((res) => {
        order.push('second atomic');
        return res;
      });
    const read = await get('/api/v2/events?limit=100').set('Authorization', other.auth);
    order.push('read');
    expect(read.status).toBe(200);
    expect(read.body.data.map((record: any) => record.attributes.title)).not.toContain('Atomic first');
    // Sent after the second atomic request reached its turn's queue (the read above went round the event loop).
    const single = app
      .http()
      .post('/api/v2/events')
      .set('Authorization', other.auth)
      .set('Content-Type', 'application/vnd.api+json')
      .send(
        JSON.stringify({
          data: { type: 'events', attributes: { title: 'Other key', startsAt: '2027-06-01T19:00:00.000Z', category: 'concert' } },
        }),
      )
      .then((res) => {
        order.push('other write');
        return res;
      });
    // Both writes must have reached their turn's queue before the held one ends; nothing tells the test when
    // they have (a second is ample: each needs its key looked up and its body read), and no time is asserted.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    release();
    clearTimeout(failsafe);
    const [first, again, written] = await Promise.all([atomic, second, single]);
    expect([first.status, again.status, written.status]).toEqual([200, 200, 201]);
    expect(order[0]).toBe('read');
    // Turns: the other key's write ran before the second request of the key that held the writer.
    expect(created.filter((title) => title !== 'Held write' && title !== 'Second held write')).toEqual([
      'Atomic first',
      'Atomic hold',
      'Other key',
      'Atomic second',
    ]);
  });

  test("a read answers while the Strapi events of an atomic request's commit are still being emitted", async () => {
    // An atomic request of 100 adds commits, then Strapi's document service emits each add's events at once
    // (`onCommit`: `entry.create` and `entry.publish`, each a populated findOne of its own, outside the
    // transaction). They are write work, sliced (database/yielding-writes.ts): a read sent when the answer
    // arrives is answered before the last of them is emitted, not after all of them. Order, not time.
    const writer = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } });
    const reader = await createKey(app.strapi, READ_EVENTS);
    const marker = `Batch ${Date.now()}`;
    let emitted = 0;
    const count = async (payload: { uid?: string; entry?: { title?: unknown } }) => {
      if (payload.uid === EVENT && typeof payload.entry?.title === 'string' && payload.entry.title.startsWith(marker)) emitted += 1;
    };
    app.strapi.eventHub.on('entry.create', count);
    app.strapi.eventHub.on('entry.publish', count);
    const operations = Array.from({ length: 100 }, (_, i) => ({
      op: 'add',
      data: { type: 'events', attributes: { title: `${marker} ${i}`, startsAt: '2027-07-01T19:00:00.000Z', category: 'concert' } },
    }));
    const atomic = await app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', writer.auth)
      .set('Content-Type', 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"')
      .send(JSON.stringify({ 'atomic:operations': operations }));
    expect(atomic.status).toBe(200);
    const read = await get(`/api/v2/events?limit=1`).set('Authorization', reader.auth);
    const emittedWhenRead = emitted;
    expect(read.status).toBe(200);
    // Every event is emitted in the end: slicing delays them, never drops one.
    for (let i = 0; i < 600 && emitted < 200; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    app.strapi.eventHub.removeListener('entry.create', count);
    app.strapi.eventHub.removeListener('entry.publish', count);
    expect(emitted).toBe(200);
    expect(emittedWhenRead).toBeLessThan(200);
  });

  test('points counted while the writer was busy are written to the table once it is free, none twice', async () => {
    const key = await createKey(app.strapi, READ_EVENTS);
    const first = await get('/api/v2/events').set('Authorization', key.auth);
    expect(first.headers.ratelimit).toMatch(/r=599\b/);
    const held = await holdWrite(app, 'Second held write');
    const failsafe = setTimeout(held.release, 30_000);
    for (let i = 0; i < 3; i += 1) {
      const res = await get('/api/v2/events').set('Authorization', key.auth);
      expect(res.headers.ratelimit).toMatch(new RegExp(`r=${598 - i}\\b`));
    }
    held.release();
    clearTimeout(failsafe);
    await held.done;
    // The held points are written once the connection is free (a flush waiting its turn for it).
    const stored = async () =>
      (await app.strapi.db.connection(RATE_LIMIT_TABLE).where('key', 'like', `%key:${key.keyId}`).select('points')) as { points: number }[];
    for (let i = 0; i < 50 && (await stored())[0]?.points !== 4; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await stored()).map((row) => row.points)).toEqual([4]);
    const next = await get('/api/v2/events').set('Authorization', key.auth);
    expect(next.headers.ratelimit).toMatch(/r=595\b/);
  });
});
