/**
 * One key's share of the turns (contract section 13; http/load-gate.ts): while turns are free and nobody
 * waits, a key runs as many requests as it sends; once requests must wait, a key holding its share
 * (PUBLIC_API_REQUESTS_PER_KEY) is refused 503 `overloaded`, after PUBLIC_API_KEY_SHED_DELAY_MS, while
 * another key's request waits in the queue and takes the next turn given back.
 *
 * Turns are held by writes whose bodies never finish arriving, as in load-shedding.test.ts.
 */
import http from 'node:http';
import { bootApp, type TestApp } from '../helpers/app';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { portOf } from '../helpers/raw-http';
import { OVERLOADED_RETRY_AFTER_SECONDS } from '../../src/plugins/public-api/server/src/config';

let app: TestApp;
let port: number;
let flood: string;
let other: string;

const GRANTS = { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } };

beforeAll(async () => {
  app = await bootApp({
    PUBLIC_API_REQUESTS_IN_FLIGHT: '3',
    PUBLIC_API_REQUESTS_PER_KEY: '2',
    PUBLIC_API_REQUESTS_WAITING: '8',
    PUBLIC_API_REQUEST_WAIT_MS: '10000',
    PUBLIC_API_KEY_SHED_DELAY_MS: '1500',
  });
  flood = (await createKey(app.strapi, GRANTS, { name: 'flood' })).auth;
  other = (await createKey(app.strapi, GRANTS, { name: 'other' })).auth;
  port = await portOf(app);
});
afterAll(async () => {
  await app?.close();
});

/** A create that declares a body and sends only its first bytes, until destroyed: a turn held. */
const hold = (auth: string) => {
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v2/events',
    headers: { Authorization: auth, 'Content-Type': 'application/vnd.api+json', 'Content-Length': '200' },
  });
  req.on('error', () => undefined);
  req.write('{"data":');
  return req;
};

const get = (auth: string) => app.http().get('/api/v2/events').set('Authorization', auth);

/** Waits until `count` held writes have their turns (a read of the other key then has to wait). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

test('work-conserving: on free turns a key runs past its share', async () => {
  const held = [hold(flood), hold(flood)];
  try {
    await settle();
    // The key holds its share (2) but a turn is free and nobody waits: it runs.
    expect((await get(flood)).status).toBe(200);
  } finally {
    for (const req of held) req.destroy();
  }
});

test("past its share while others wait, a key is refused after the shed delay; the other key's waiting request goes first", async () => {
  const held = [hold(flood), hold(flood), hold(flood)];
  const order: string[] = [];
  try {
    await settle();
    // Every turn is taken (three, by the flooding key): the other key's read waits in the queue.
    const waiting = get(other).then((res) => {
      order.push('other');
      return res;
    });
    await settle();
    // The flooding key must wait too, but holds more than its share: refused, after the delay.
    const refused = get(flood).then((res) => {
      order.push('flood');
      return res;
    });
    await settle();
    held.shift()!.destroy();
    const [otherAnswer, floodAnswer] = await Promise.all([waiting, refused]);
    expect(otherAnswer.status).toBe(200);
    expect(floodAnswer.status).toBe(503);
    expect(floodAnswer.headers['retry-after']).toBe(String(OVERLOADED_RETRY_AFTER_SECONDS));
    expectValidJsonApi(floodAnswer.body);
    expect(floodAnswer.body.errors).toEqual([expect.objectContaining({ status: '503', meta: { reason: 'overloaded' } })]);
    // The refusal was held back (1.5 s) while the turn given back 0.3 s after it went to the other key.
    expect(order).toEqual(['other', 'flood']);
  } finally {
    for (const req of held) req.destroy();
  }
});

test('a client that goes away while its request waits for a turn leaves no turn held', async () => {
  // Three times: every turn is held, a read waits in the queue, its client goes away, then the turns come
  // back and the read runs with nobody to answer. Were its turn kept, after three rounds none would be left.
  for (let round = 0; round < 3; round += 1) {
    const held = [hold(flood), hold(flood), hold(flood)];
    await settle();
    const gone = http.get({ host: '127.0.0.1', port, path: '/api/v2/events', headers: { Authorization: other } });
    const closed = new Promise((resolve) => gone.on('close', resolve));
    gone.on('error', () => undefined);
    await settle();
    gone.destroy();
    await closed;
    for (const req of held) req.destroy();
    await settle();
  }
  const answers = await Promise.all([get(other), get(other), get(other)]);
  expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
});
