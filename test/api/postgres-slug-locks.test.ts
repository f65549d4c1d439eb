/**
 * Issue 34, PostgreSQL: an atomic request locks the slug values it takes, not the content type. While key
 * A's atomic request holds its transaction (held open on purpose by a document service middleware of the
 * test, on its second operation), key B's write of another slug of the same type completes; B's write of
 * the very slug A took waits for A, then takes the next free one: slugs stay unique. Order is asserted,
 * never a time. PostgreSQL only: SQLite runs one write transaction at a time by design (its writes take
 * turns, database/write-turns.ts; its reads do not wait, test/api/sqlite-reads-during-writes.test.ts), and
 * so does MariaDB, whose content writes take the journal's order lock (database/journal-order.ts) and whose
 * slug writes lock the content type's slugs whole (services/slugs.ts): B's write waits for A there, by
 * design, and the MariaDB pass leaves this suite out (test/postgres-suites.js, `notOnMariadb`).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { usingPostgres } from '../helpers/database';
import { website } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { listenOnce } from '../helpers/writes';

const PAGE = 'api::page.page';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const JSON_API = 'application/vnd.api+json';
const ALL = { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' };

const describePostgres = usingPostgres() ? describe : describe.skip;

let app: TestApp;
/** Set while a test holds the page titled "Hold" (its create waits for `release`). */
let hold: { reached: () => void; released: Promise<void> } | null = null;

describePostgres('PostgreSQL: slug locks per value', () => {
  beforeAll(async () => {
    app = await bootApp();
    // One listener for the suite: requests in flight together must not close it under each other.
    await listenOnce(app);
    await website(app.strapi, 'site-a', [{ collection: 'pages', contentType: PAGE, mode: 'collection' }]);
    app.strapi.documents.use(async (context, next) => {
      const title = (context.params as { data?: { title?: unknown } } | undefined)?.data?.title;
      if (hold && context.uid === PAGE && context.action === 'create' && title === 'Hold') {
        hold.reached();
        await hold.released;
      }
      return next();
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  test("another key's write to the same type completes while an atomic request holds its transaction; one slug is never taken twice", async () => {
    const a = await createKey(app.strapi, { resources: { 'cms:site-a/pages': ALL } }, { name: 'key a' });
    const b = await createKey(app.strapi, { resources: { 'cms:site-a/pages': ALL } }, { name: 'key b' });
    let release!: () => void;
    let reached!: () => void;
    const holding = new Promise<void>((resolve) => (reached = resolve));
    hold = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
    const failsafe = setTimeout(release, 30_000);
    const order: string[] = [];

    // A: the page "Alpha One" (slug alpha-one, locked), then "Hold", held open.
    const atomic = app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', a.auth)
      .set('Content-Type', ATOMIC)
      .send(
        JSON.stringify({
          'atomic:operations': [
            { op: 'add', href: '/cms/site-a/pages', data: { type: 'pages', attributes: { title: 'Alpha One' } } },
            { op: 'add', href: '/cms/site-a/pages', data: { type: 'pages', attributes: { title: 'Hold' } } },
          ],
        }),
      )
      .then((res) => {
        order.push('a: atomic');
        return res;
      });
    await holding;

    // B, the same type, another slug: not behind A's transaction.
    const beta = await app
      .http()
      .post('/api/v2/cms/site-a/pages')
      .set('Authorization', b.auth)
      .set('Content-Type', JSON_API)
      .send(JSON.stringify({ data: { type: 'pages', attributes: { title: 'Beta' } } }));
    order.push('b: beta');
    expect([beta.status, beta.text]).toEqual([201, expect.any(String)]);
    expect(beta.body.data.attributes.slug).toBe('beta');

    // B, the slug A holds: waits for A's transaction, then finds it taken and takes the next.
    const sameSlug = app
      .http()
      .post('/api/v2/cms/site-a/pages')
      .set('Authorization', b.auth)
      .set('Content-Type', JSON_API)
      .send(JSON.stringify({ data: { type: 'pages', attributes: { title: 'Alpha One' } } }))
      .then((res) => {
        order.push('b: alpha one');
        return res;
      });

    release();
    clearTimeout(failsafe);
    const [done, second] = await Promise.all([atomic, sameSlug]);
    hold = null;
    expect([done.status, done.text]).toEqual([200, expect.any(String)]);
    expect(done.body['atomic:results'].map((result: any) => result.data.attributes.slug)).toEqual(['alpha-one', 'hold']);
    expect([second.status, second.text]).toEqual([201, expect.any(String)]);
    expect(second.body.data.attributes.slug).toBe('alpha-one-1');
    expect(order[0]).toBe('b: beta');
    expect(order.indexOf('a: atomic')).toBeLessThan(order.indexOf('b: alpha one'));
  });

  test('simultaneous creates of one title from two keys: each gets its own slug, none is refused or fails', async () => {
    const a = await createKey(app.strapi, { resources: { 'cms:site-a/pages': ALL } }, { name: 'key c' });
    const b = await createKey(app.strapi, { resources: { 'cms:site-a/pages': ALL } }, { name: 'key d' });
    const create = (auth: string) =>
      app
        .http()
        .post('/api/v2/cms/site-a/pages')
        .set('Authorization', auth)
        .set('Content-Type', JSON_API)
        .send(JSON.stringify({ data: { type: 'pages', attributes: { title: 'Gamma' } } }));
    const answers = await Promise.all([create(a.auth), create(b.auth), create(a.auth), create(b.auth), create(a.auth), create(b.auth)]);
    expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const slugs = answers.map((res) => res.body.data.attributes.slug as string);
    expect(new Set(slugs).size).toBe(6);
    expect([...slugs].sort()).toEqual(['gamma', 'gamma-1', 'gamma-2', 'gamma-3', 'gamma-4', 'gamma-5']);
  });
});
