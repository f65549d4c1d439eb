/**
 * Fair queueing across keys (contract section 13; http/fair-scheduler.ts, issue 34): when every turn is
 * taken, a freed turn goes to the key with waiting requests that has used least lately, not to the first
 * in line, so a key's flood of waiting requests does not delay another key's one by its length; and with
 * the queue full, another key's request takes the place of the flooding key's newest waiter, which is
 * answered 503 `overloaded` with Retry-After.
 *
 * Turns are held by writes whose bodies never finish arriving, as in load-shedding.test.ts: their running
 * time is the flooding key's usage. Each step waits until the gate shows it (`public_api_request_turns`
 * in the metrics), not for a time: on a loaded machine a key's first request may take longer than any
 * pause to reach the gate.
 */
import http from 'node:http';
import { bootApp, type TestApp } from '../helpers/app';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { portOf } from '../helpers/raw-http';
import { untilTurns } from '../helpers/turns';
import { OVERLOADED_RETRY_AFTER_SECONDS } from '../../src/plugins/public-api/server/src/config';

let app: TestApp;
let port: number;
let flood: string;
let other: string;

const METRICS_TOKEN = 'metrics-token-for-fair-turns-0123456789';

const GRANTS = { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } };

beforeAll(async () => {
  app = await bootApp({
    PUBLIC_API_REQUESTS_IN_FLIGHT: '2',
    PUBLIC_API_REQUESTS_PER_KEY: '20',
    PUBLIC_API_REQUESTS_WAITING: '3',
    PUBLIC_API_REQUEST_WAIT_MS: '20000',
    METRICS_TOKEN,
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

const until = (running: number, waiting: number) => untilTurns(app, METRICS_TOKEN, running, waiting);

/** A read of `auth`'s, its answer noted in `order` under `name` when it comes. */
const read = (auth: string, order: string[], name: string) =>
  app
    .http()
    .get('/api/v2/events?limit=1')
    .set('Authorization', auth)
    .then((res) => {
      order.push(name);
      return res;
    });

test("a freed turn goes to the key that used least, ahead of the flooding key's earlier waiters", async () => {
  const held = [hold(flood), hold(flood)];
  const order: string[] = [];
  try {
    await until(2, 0);
    // Every turn is the flood's; two more of its reads wait, then the other key's.
    const flooding = [read(flood, order, 'flood 1'), read(flood, order, 'flood 2')];
    await until(2, 2);
    const waiting = read(other, order, 'other');
    await until(2, 3);
    held.shift()!.destroy();
    const answers = await Promise.all([waiting, ...flooding]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    // Last in line, first served: the flood had used the turns all along.
    expect(order[0]).toBe('other');
  } finally {
    for (const req of held) req.destroy();
  }
});

test("with the queue full, another key's request takes the place of the flooding key's newest waiter", async () => {
  const held = [hold(flood), hold(flood)];
  const order: string[] = [];
  try {
    await until(2, 0);
    // The queue (3) is full of the flood's reads.
    const flooding = [read(flood, order, 'flood 1'), read(flood, order, 'flood 2'), read(flood, order, 'flood 3')];
    await until(2, 3);
    const waiting = read(other, order, 'other');
    // The flood's newest is shed at once for it.
    const shed = await flooding[2]!;
    expect(shed.status).toBe(503);
    expect(shed.headers['retry-after']).toBe(String(OVERLOADED_RETRY_AFTER_SECONDS));
    expectValidJsonApi(shed.body);
    expect(shed.body.errors).toEqual([expect.objectContaining({ status: '503', meta: { reason: 'overloaded' } })]);
    // A further read of the flood finds the queue full, and the flood the heaviest: refused itself.
    expect((await read(flood, order, 'flood 4')).status).toBe(503);
    held.shift()!.destroy();
    const answers = await Promise.all([waiting, flooding[0]!, flooding[1]!]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(order.filter((name) => name === 'other' || name === 'flood 1' || name === 'flood 2')[0]).toBe('other');
  } finally {
    for (const req of held) req.destroy();
  }
});
