/**
 * Idempotency-Key across instances (contract section 7): two application processes on one PostgreSQL or MariaDB
 * database, 50 concurrent POSTs with one key and one body spread over both. The claim is a unique row,
 * so exactly one request writes; every other answer is a replay of it or a 409 while it runs, and a
 * later retry replays it.
 *
 * PostgreSQL and MariaDB (TEST_DATABASE=postgres or mariadb); skipped on SQLite, one file for one process.
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { testDatabase } from '../helpers/database';
import { createKey } from '../helpers/keys';
import { startApp, type RunningApp } from '../helpers/processes';
import { listenOnce } from '../helpers/writes';

const describeOnServer = testDatabase() === 'sqlite' ? describe.skip : describe;

describeOnServer('two instances, one database', () => {
  let app: TestApp;
  let s: Core.Strapi;
  let second: RunningApp;
  let urls: string[];
  let auth: string;

  beforeAll(async () => {
    // Fifty requests of one key at once: its share of the load gate's turns (half of them by default) is
    // raised so that they all reach the claim, which is what this suite is about.
    const share = { PUBLIC_API_REQUESTS_PER_KEY: '64' };
    app = await bootApp(share);
    s = app.strapi;
    await listenOnce(app);
    const address = s.server.httpServer.address() as { port: number };
    // The second instance gets this process's database settings (set by bootApp).
    second = await startApp(share);
    urls = [`http://127.0.0.1:${address.port}`, second.url];
    auth = (await createKey(s, { resources: { 'native:events': { actions: ['read', 'create'], read: ['title'], write: '*' } } })).auth;
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await app?.close();
  });

  type Answer = { instance: number; status: number; replayed: string | null; text: string };

  const send = async (instance: number, body: string, key: string): Promise<Answer> => {
    const res = await fetch(`${urls[instance]}/api/v2/events`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/vnd.api+json', 'Idempotency-Key': key },
      body,
    });
    return { instance, status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
  };

  test('50 concurrent POSTs with one key over both instances create exactly one record', async () => {
    const body = JSON.stringify({
      data: { type: 'events', attributes: { title: 'Once Only', category: 'talk', startsAt: '2027-01-01T10:00:00Z', tags: ['a', 'b'] } },
    });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i % 2, body, 'one-key-for-fifty')));

    const rows = (await s.db.query('api::event.event' as never).findMany({ where: { title: 'Once Only' } })) as { publishedAt: unknown }[];
    expect(rows.filter((row) => row.publishedAt !== null)).toHaveLength(1);
    expect(rows).toHaveLength(2); // its draft and its published version

    const originals = answers.filter((answer) => answer.status === 201 && answer.replayed === null);
    const replays = answers.filter((answer) => answer.status === 201 && answer.replayed === 'true');
    const inFlight = answers.filter((answer) => answer.status === 409);
    expect(originals).toHaveLength(1);
    expect(replays.length + inFlight.length).toBe(49);
    for (const replay of replays) expect(replay.text).toBe(originals[0]!.text);
    for (const busy of inFlight) expect(JSON.parse(busy.text).errors[0].meta).toEqual({ reason: 'idempotency_in_progress' });
    // Both instances took part.
    expect(new Set(answers.map((answer) => answer.instance))).toEqual(new Set([0, 1]));

    // A later retry, on either instance, replays the original.
    for (const instance of [0, 1]) {
      const retry = await send(instance, body, 'one-key-for-fifty');
      expect(retry).toEqual({ instance, status: 201, replayed: 'true', text: originals[0]!.text });
    }
    // And the same key with another body is refused on either.
    const other = body.replace('Once Only', 'Twice');
    for (const instance of [0, 1]) expect((await send(instance, other, 'one-key-for-fifty')).status).toBe(422);
  });

  test('without a key, the same requests are all written (the key is what deduplicates)', async () => {
    const body = JSON.stringify({
      data: { type: 'events', attributes: { title: 'Many', category: 'talk', startsAt: '2027-01-01T10:00:00Z' } },
    });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        fetch(`${urls[i % 2]}/api/v2/events`, {
          method: 'POST',
          headers: { Authorization: auth, 'Content-Type': 'application/json' },
          body,
        }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(6).fill(201));
    const slugs = await Promise.all(
      answers.map(async (res) => ((await res.json()) as { data: { meta: { slug: string } } }).data.meta.slug),
    );
    // Slugs stay unique across instances (the slug lock is in the database).
    expect(new Set(slugs).size).toBe(6);
  });
});
