/**
 * Webhooks across instances (contract section 16): two application processes on one PostgreSQL or MariaDB database
 * send each event exactly once between them (the fan-out moves each endpoint's position in the same
 * transaction as it queues, and each delivery is claimed by one instance with FOR UPDATE SKIP LOCKED); and
 * an instance killed with SIGKILL while it sends loses no event: another one sends it when the claim's
 * lease runs out.
 *
 * PostgreSQL and MariaDB (TEST_DATABASE=postgres or mariadb); skipped on SQLite, one file for one process.
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { testDatabase } from '../helpers/database';
import { createKey } from '../helpers/keys';
import { startApp, type RunningApp } from '../helpers/processes';
import { FAST_WEBHOOKS_ENV, eventually, startReceiver, webhookService, type Receiver } from '../helpers/webhooks';
import { listenOnce } from '../helpers/writes';

const describeOnServer = testDatabase() === 'sqlite' ? describe.skip : describe;

type Dispatcher = { start: () => void; stop: () => Promise<void> };
type EndpointsService = { create: (key: number, body: unknown) => Promise<{ endpoint: { id: number } }> };

// Forty writes of one key at once: its share of the load gate's turns is raised so that none is shed. A
// delivery may take FAST_WEBHOOKS_ENV's 3 s (test/helpers/webhooks.ts); the kill -9 test's lease follows the
// timeout and stays well inside its wait.
const ENV = { ...FAST_WEBHOOKS_ENV, PUBLIC_API_REQUESTS_PER_KEY: '64' };

describeOnServer('webhooks on two instances of one database', () => {
  let app: TestApp;
  let s: Core.Strapi;
  let receiver: Receiver;
  let writer: { auth: string };
  const children: RunningApp[] = [];

  beforeAll(async () => {
    app = await bootApp(ENV);
    s = app.strapi;
    await listenOnce(app);
    receiver = await startReceiver();
    writer = await createKey(s, { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } });
  }, 120_000);
  afterAll(async () => {
    for (const child of children) await child.stop();
    await app?.close();
    await receiver?.close();
  });

  const subscribe = async (path: string) => {
    const key = await createKey(s, { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } } });
    return (await webhookService<EndpointsService>(s, 'webhook-endpoints').create(key.id, { url: receiver.url(path) })).endpoint;
  };

  const write = (url: string, title: string) =>
    fetch(`${url}/api/v2/events`, {
      method: 'POST',
      headers: { Authorization: writer.auth, 'Content-Type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'events', attributes: { title, startsAt: '2027-01-01T10:00:00Z', category: 'talk' } } }),
    });

  test('40 changes made on both instances: every event reaches each endpoint exactly once', async () => {
    const second = await startApp(ENV);
    children.push(second);
    const address = s.server.httpServer.address() as { port: number };
    const urls = [`http://127.0.0.1:${address.port}`, second.url];
    await subscribe('/twice-a');
    await subscribe('/twice-b');
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => write(urls[i % 2]!, `Exactly once ${i}`)));
    expect(answers.map((res) => res.status)).toEqual(Array(40).fill(201));
    for (const path of ['/twice-a', '/twice-b']) {
      const requests = await receiver.waitFor(40, (request) => request.path === path, 30_000);
      // A little longer: a duplicate would come now.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const ids = receiver.received.filter((request) => request.path === path).map((request) => request.headers['webhook-id']);
      expect(ids).toHaveLength(40);
      expect(new Set(ids).size).toBe(40);
      const titles = requests.map((request) => JSON.parse(request.body).data.attributes.title as string).sort();
      expect(titles).toEqual(Array.from({ length: 40 }, (_, i) => `Exactly once ${i}`).sort());
    }
    await second.stop();
  }, 120_000);

  test('kill -9 of the instance that is sending: another instance sends every event', async () => {
    // This process stops sending, so that the child is the one that claims.
    await webhookService<Dispatcher>(s, 'webhook-dispatcher').stop();
    const doomed = await startApp(ENV);
    children.push(doomed);
    receiver.hang('/crash');
    const endpoint = await subscribe('/crash');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => write(doomed.url, `Crash ${i}`)));
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(201));
    // The child has claimed and is sending (the receiver holds the requests): kill it mid-send.
    await receiver.waitFor(4, (request) => request.path === '/crash', 30_000);
    process.kill(doomed.pid, 'SIGKILL');
    await doomed.stop();
    const seen = new Set(receiver.received.filter((request) => request.path === '/crash').map((request) => request.headers['webhook-id']));
    // The receiver answers again; this process sends again: what the child had claimed, once its lease ends.
    receiver.unhang('/crash');
    webhookService<Dispatcher>(s, 'webhook-dispatcher').start();
    await eventually(
      async () => {
        const rows = (await s.db
          .query('plugin::public-api.webhook-delivery' as never)
          .findMany({ where: { endpoint: endpoint.id, status: 'delivered' } })) as { eventId: string }[];
        return new Set(rows.map((row) => row.eventId)).size === 8;
      },
      60_000,
      'every event to be delivered',
    );
    const answered = receiver.received.filter((request) => request.path === '/crash');
    const titles = new Set(answered.map((request) => JSON.parse(request.body).data.attributes.title as string));
    expect([...titles].sort()).toEqual(Array.from({ length: 8 }, (_, i) => `Crash ${i}`).sort());
    // What the killed instance was sending was sent again (at least once), under the same webhook-id.
    for (const id of seen) expect(answered.filter((request) => request.headers['webhook-id'] === id).length).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
