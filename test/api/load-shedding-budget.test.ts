/**
 * A read refused for a crowded record budget holds no turn while its refusal waits (contract section 13;
 * http/record-budget.ts, http/load-gate.ts). While one key's include read holds the whole budget
 * (PUBLIC_API_EXPANDED_RECORDS_IN_FLIGHT), a further include read of that key is refused 503 `overloaded`
 * after PUBLIC_API_KEY_SHED_DELAY_MS; meanwhile another key's read takes the turn the refusal had and
 * is answered at once. (Before, the refusal slept on its turn, and under bench:abuse (a) a second key
 * waited up to the whole delay for one.)
 *
 * The budget is held by an include read whose client does not read its response: a turn, and the room
 * reserved with it, are held until the response has left.
 */
import net from 'node:net';
import { bootApp, type TestApp } from '../helpers/app';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { portOf } from '../helpers/raw-http';
import { seedBulkEvents } from '../../src/seed';

const SHED_DELAY_MS = 1_500;
/** Megabytes of a building's events, each with its venue's events: more than the sockets buffer. */
const HEAVY = '/api/v2/buildings?limit=2&include=events.venue.events';

let app: TestApp;
let port: number;
let flood: string;
let other: string;

const GRANTS = { resources: { 'native:events': { actions: ['read'], read: '*' }, 'native:buildings': { actions: ['read'], read: '*' } } };

beforeAll(async () => {
  app = await bootApp(
    {
      PUBLIC_API_REQUESTS_IN_FLIGHT: '2',
      PUBLIC_API_REQUESTS_PER_KEY: '1',
      PUBLIC_API_REQUEST_WAIT_MS: '10000',
      PUBLIC_API_EXPANDED_RECORDS_IN_FLIGHT: '1',
      PUBLIC_API_KEY_SHED_DELAY_MS: String(SHED_DELAY_MS),
      PUBLIC_API_RESPONSE_SEND_TIMEOUT_MS: '60000',
    },
    { template: 'demo' },
  );
  await seedBulkEvents(app.strapi, 1_000, { log: () => {} });
  flood = (await createKey(app.strapi, GRANTS, { name: 'flood' })).auth;
  other = (await createKey(app.strapi, GRANTS, { name: 'other' })).auth;
  port = await portOf(app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

/** The heavy read, by a client that reads nothing of the answer: its turn and its room stay held. */
const holdHeavyRead = (auth: string) =>
  new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET ${HEAVY} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`);
      // The first bytes of the answer show it is being sent; then nothing more is read.
      socket.once('data', () => {
        socket.pause();
        resolve(socket);
      });
    });
    socket.on('error', reject);
  });

const timed = async <T>(work: PromiseLike<T>, order: string[], name: string): Promise<{ result: T; ms: number }> => {
  const started = Date.now();
  const result = await work;
  order.push(name);
  return { result, ms: Date.now() - started };
};

test("a refusal for a crowded budget waits out its delay without a turn: another key's read runs meanwhile", async () => {
  const size = await app.http().get(HEAVY).set('Authorization', other);
  expect(size.status).toBe(200);
  // Too large for the sockets' buffers, so an unread answer stays in the server, holding its room.
  expect(size.text.length).toBeGreaterThan(8_000_000);

  const held = await holdHeavyRead(flood);
  try {
    const order: string[] = [];
    // One turn is held by the unread answer; this read takes the other, finds the budget taken by its
    // own key, and is refused after the delay.
    const refused = timed(app.http().get(HEAVY).set('Authorization', flood), order, 'flood');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const served = timed(app.http().get('/api/v2/events?limit=1').set('Authorization', other), order, 'other');
    const [flooding, reading] = await Promise.all([refused, served]);
    expect(flooding.result.status).toBe(503);
    expectValidJsonApi(flooding.result.body);
    expect(flooding.result.body.errors).toEqual([expect.objectContaining({ status: '503', meta: { reason: 'overloaded' } })]);
    expect(flooding.ms).toBeGreaterThanOrEqual(SHED_DELAY_MS - 50);
    expect(reading.result.status).toBe(200);
    // Served while the refusal waited, not after it (1.2 s later) once its turn came back.
    expect(order).toEqual(['other', 'flood']);
  } finally {
    // Read to the end (the server closes the connection after it), so no response is cut off.
    await new Promise((resolve) => {
      held.on('close', resolve);
      held.resume();
    });
  }
});
