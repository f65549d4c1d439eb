/**
 * Contract section 13, first bullet: per-key rate limits with the IETF RateLimit fields, 429 with
 * Retry-After, a changed limit applied on the next request, and failed authentications limited per client
 * address (the app trusts X-Forwarded-For here, IS_PROXIED, so each test can be its own address).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { createKey, keysService } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';

let app: TestApp;
const EVENTS_READ = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };
let address = 0;
/** A client address of its own for each use: the per-address counter of one test never meets another's. */
const nextAddress = () => `198.51.100.${(address += 1)}`;

beforeAll(async () => {
  app = await bootApp({
    IS_PROXIED: 'true',
    PUBLIC_API_RATE_LIMIT_REQUESTS: '5',
    PUBLIC_API_RATE_LIMIT_WINDOW: '60',
    PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT_REQUESTS: '3',
    PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT_WINDOW: '60',
    // Leases cover a second of a key's demand here, so that a slow machine's requests still lease (below).
    PUBLIC_API_RATE_LIMIT_LEASE_MS: '1000',
  });
});
afterAll(async () => {
  await app?.close();
});

const get = (auth: string | undefined, from = nextAddress()) => {
  const req = app.http().get('/api/v2/events').set('X-Forwarded-For', from);
  return auth ? req.set('Authorization', auth) : req;
};

const fieldsOf = (value: string | undefined) => {
  const match = /^"(key|address)";r=(\d+);t=(\d+)$/.exec(value ?? '');
  if (!match) throw new Error(`RateLimit field '${value}' is not "policy";r=<n>;t=<n>`);
  return { policy: match[1], remaining: Number(match[2]), reset: Number(match[3]) };
};

test('a 200 carries the key policy (the config default) and where the counter stands', async () => {
  const key = await createKey(app.strapi, EVENTS_READ);
  const first = await get(key.auth);
  expect(first.status).toBe(200);
  expect(first.headers['ratelimit-policy']).toBe('"key";q=5;w=60');
  const state = fieldsOf(first.headers.ratelimit);
  expect(state).toEqual({ policy: 'key', remaining: 4, reset: expect.any(Number) });
  expect(state.reset).toBeGreaterThanOrEqual(1);
  expect(state.reset).toBeLessThanOrEqual(60);
  const second = await get(key.auth);
  expect(fieldsOf(second.headers.ratelimit).remaining).toBe(3);
});

test('errors after the key is known carry the fields too, and a browser may read them', async () => {
  const key = await createKey(app.strapi, { ...EVENTS_READ, origins: ['https://app.example'] });
  const res = await get(key.auth).set('Origin', 'https://app.example').query({ 'filter[nope]': 'x' });
  expect(res.status).toBe(400);
  expect(fieldsOf(res.headers.ratelimit).remaining).toBe(4);
  expect(res.headers['access-control-expose-headers']).toEqual(expect.stringContaining('RateLimit, RateLimit-Policy, Retry-After'));
});

test("past the key's own limit: 429 too_many_requests with Retry-After", async () => {
  const key = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 3, window: 60 } });
  for (let i = 2; i >= 0; i -= 1) {
    const res = await get(key.auth);
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"key";q=3;w=60');
    expect(fieldsOf(res.headers.ratelimit).remaining).toBe(i);
  }
  const refused = await get(key.auth);
  expect(refused.status).toBe(429);
  expect(refused.headers['content-type']).toBe('application/vnd.api+json');
  expectValidJsonApi(refused.body);
  expect(refused.body.errors).toEqual([
    expect.objectContaining({ status: '429', code: 'too_many_requests', meta: { reason: 'rate_limited' } }),
  ]);
  const retryAfter = Number(refused.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(fieldsOf(refused.headers.ratelimit)).toEqual({ policy: 'key', remaining: 0, reset: retryAfter });
  // Another key is counted on its own.
  const other = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 3, window: 60 } });
  expect((await get(other.auth)).status).toBe(200);
});

test('a changed limit applies on the next request, the count kept', async () => {
  const key = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 10, window: 60 } });
  expect((await get(key.auth)).status).toBe(200);
  expect((await get(key.auth)).status).toBe(200);
  await keysService(app.strapi).update(key.keyId, { limits: { requests: 2, window: 60 } });
  const lowered = await get(key.auth);
  expect(lowered.status).toBe(429);
  expect(lowered.headers['ratelimit-policy']).toBe('"key";q=2;w=60');
  await keysService(app.strapi).update(key.keyId, { limits: null });
  const raised = await get(key.auth);
  expect(raised.status).toBe(200);
  // The config default (5): four requests counted in this window.
  expect(raised.headers['ratelimit-policy']).toBe('"key";q=5;w=60');
  expect(fieldsOf(raised.headers.ratelimit).remaining).toBe(1);
});

test('a key that sends again once refused is refused from memory: those refusals are not counted', async () => {
  const key = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 2, window: 60 } });
  expect((await get(key.auth)).status).toBe(200);
  expect((await get(key.auth)).status).toBe(200);
  // The store refuses the third (counted: 3), and this process learns the key is spent.
  expect((await get(key.auth)).status).toBe(429);
  // Refused again, from memory, with the same fields (after the shed delay): nothing more is counted.
  for (let i = 0; i < 2; i += 1) {
    const again = await get(key.auth);
    expect(again.status).toBe(429);
    expectValidJsonApi(again.body);
    expect(again.body.errors[0]).toMatchObject({ code: 'too_many_requests', meta: { reason: 'rate_limited' } });
    expect(again.headers['ratelimit-policy']).toBe('"key";q=2;w=60');
    expect(fieldsOf(again.headers.ratelimit).remaining).toBe(0);
    expect(Number(again.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }
  // A raised limit asks the store at once: three counted, not five.
  await keysService(app.strapi).update(key.keyId, { limits: { requests: 5, window: 60 } });
  const raised = await get(key.auth);
  expect(raised.status).toBe(200);
  expect(fieldsOf(raised.headers.ratelimit).remaining).toBe(1);
});

test('a key refuses limits it cannot have, each problem named', async () => {
  const key = await createKey(app.strapi, EVENTS_READ);
  await expect(keysService(app.strapi).update(key.keyId, { limits: { requests: 0, window: 60 } })).rejects.toMatchObject({
    name: 'ValidationError',
    details: {
      errors: [{ path: ['limits', 'requests'], message: 'The number of cost units per window is a whole number from 1 to 1000000.' }],
    },
  });
  await expect(createKey(app.strapi, EVENTS_READ, { limits: { requests: 5, window: 100_000 } })).rejects.toMatchObject({
    details: { errors: [{ path: ['limits', 'window'], message: 'The rate limit window is a whole number of seconds from 1 to 86400.' }] },
  });
});

test('failed authentications are limited per client address; valid keys from it are still served', async () => {
  const guesser = nextAddress();
  for (let i = 0; i < 3; i += 1) expect((await get('Bearer pdk_000000000000_guess', guesser)).status).toBe(401);
  const refused = await get('Bearer pdk_000000000000_guess', guesser);
  expect(refused.status).toBe(429);
  expectValidJsonApi(refused.body);
  expect(refused.body.errors[0]).toMatchObject({ code: 'too_many_requests', meta: { reason: 'unauthenticated_rate_limited' } });
  expect(refused.headers['ratelimit-policy']).toBe('"address";q=3;w=60');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // A shared NAT: another client behind the same address, with a valid key, is served (issue 33).
  const key = await createKey(app.strapi, EVENTS_READ);
  const served = await get(key.auth, guesser);
  expect(served.status).toBe(200);
  expect(served.headers['ratelimit-policy']).toBe('"key";q=5;w=60');
  // Every kind of failure from the address stays refused: a well-formed wrong key, a malformed one, none.
  const [secret] = key.token.split('_').slice(2);
  const wrongSecret = key.token.replace(secret!, secret!.split('').reverse().join(''));
  for (const auth of [`Bearer ${wrongSecret}`, 'Bearer not-a-key', undefined]) {
    const res = await get(auth, guesser);
    expect(res.status).toBe(429);
    expect(res.body.errors[0].meta.reason).toBe('unauthenticated_rate_limited');
  }
  // Another address is not affected.
  expect((await get('Bearer pdk_000000000000_guess')).status).toBe(401);
  expect((await get(key.auth)).status).toBe(200);
});

test("a spent address's failures cost the shared counter store nothing", async () => {
  const guesser = nextAddress();
  const knex = app.strapi.db.connection;
  const stored = async () => {
    const row = await knex('public_api_rate_limits').where('key', 'like', `%address:${guesser}`).first('points');
    return Number(row?.points ?? 0);
  };
  // The third failure spends the quota of 3; the fourth is the first refused.
  for (let i = 0; i < 3; i += 1) expect((await get('Bearer pdk_000000000000_guess', guesser)).status).toBe(401);
  expect(await stored()).toBe(3);
  for (let i = 0; i < 5; i += 1) expect((await get('Bearer pdk_000000000000_guess', guesser)).status).toBe(429);
  expect(await stored()).toBe(3);
});

test('IPv6 clients are counted by /64, IPv4-mapped IPv6 as IPv4', async () => {
  // Four failures from four addresses of one /64: the fourth is over the quota of 3.
  const statuses: number[] = [];
  for (const address of ['2001:db8:33:1::1', '2001:DB8:33:1:ffff:ffff:ffff:ffff', '2001:0db8:0033:0001:abcd::1', '2001:db8:33:1::2']) {
    statuses.push((await get('Bearer pdk_000000000000_guess', address)).status);
  }
  expect(statuses).toEqual([401, 401, 401, 429]);
  // The next /64 has its own counter.
  expect((await get('Bearer pdk_000000000000_guess', '2001:db8:33:2::1')).status).toBe(401);
  // A dual-stack listener's view of an IPv4 client shares that client's counter.
  const v4 = nextAddress();
  for (let i = 0; i < 3; i += 1) await get('Bearer pdk_000000000000_guess', i % 2 ? v4 : `::ffff:${v4}`);
  expect((await get('Bearer pdk_000000000000_guess', `::ffff:${v4}`)).status).toBe(429);
  expect((await get('Bearer pdk_000000000000_guess', v4)).status).toBe(429);
});

test('a busy key is counted in the store a lease at a time, and r stays exact', async () => {
  const key = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 10_000, window: 60 } });
  const knex = app.strapi.db.connection;
  const stored = async () => {
    const row = await knex('public_api_rate_limits').where('key', 'like', `%key:${key.keyId}`).first('points');
    return Number(row?.points ?? 0);
  };
  let servedFromLease = 0;
  for (let i = 1; i <= 30; i += 1) {
    const before = await stored();
    const res = await get(key.auth);
    expect(res.status).toBe(200);
    expect(fieldsOf(res.headers.ratelimit).remaining).toBe(10_000 - i);
    const after = await stored();
    // The store never holds fewer points than the requests answered.
    expect(after).toBeGreaterThanOrEqual(i);
    if (after === before) servedFromLease += 1;
  }
  // The first request of the window took one point; later ones leased several.
  expect(servedFromLease).toBeGreaterThan(10);
  // Near a limit, every request is counted on its own: a key of 3 is refused at its fourth request.
  const small = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 3, window: 60 } });
  for (let i = 0; i < 3; i += 1) expect((await get(small.auth)).status).toBe(200);
  expect((await get(small.auth)).status).toBe(429);
});
