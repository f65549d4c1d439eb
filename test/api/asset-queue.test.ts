/**
 * The transform queue (contract section 13, "Assets"): transforms in flight are bounded
 * (PUBLIC_API_TRANSFORMS_IN_FLIGHT), a client address holds at most PUBLIC_API_TRANSFORMS_PER_CLIENT
 * turns, freed turns go round-robin between clients so a flooding client cannot starve the rest, and a
 * transform that outlasts PUBLIC_API_TRANSFORM_TIMEOUT_MS is stopped: 503 with Retry-After either way.
 *
 * Client addresses come from X-Forwarded-For: the app trusts a proxy here (IS_PROXIED). Heavy transforms
 * are AVIF encodings of noise, the slowest thing a client can ask of libvips.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { bootApp } from '../helpers/app';
import { asBytes, jsonOf, pathOf, solidImage, storeFile } from '../helpers/assets';
import { publish } from '../helpers/fixtures';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { TRANSFORM_RETRY_AFTER_SECONDS } from '../../src/plugins/public-api/server/src/handlers/assets';

type Load = { running: number; cheap: number; waiting: number; clients: number };
type Answer = { status: number; headers: Record<string, string>; body: Buffer };

const noise = (side: number) =>
  sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();

const setUp = async (env: Record<string, string>) => {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-asset-queue-'));
  const app = await bootApp({ IS_PROXIED: 'true', PUBLIC_API_ASSET_CACHE_DIR: cacheDir, ...env });
  const key = await createKey(app.strapi, { resources: { 'native:buildings': { actions: ['read'], read: ['name', 'images'] } } });
  let counter = 0;
  const image = async (name: string, bytes: Buffer): Promise<string> => {
    counter += 1;
    const slug = `queue-${counter}`;
    const file = await storeFile(app.strapi, { name, bytes, mime: 'image/png' });
    await publish(app.strapi, 'api::building.building', { name: slug, slug, images: [file.id] });
    const res = await app.http().get(`/api/v2/buildings/${slug}`).set('Authorization', key.auth);
    expect(res.status).toBe(200);
    return pathOf((res.body.data.attributes.images as { url: string }[])[0]!.url);
  };
  // Sent at once (a supertest request is only sent when awaited).
  const get = (url: string, client: string): Promise<Answer> =>
    app
      .http()
      .get(url)
      .set('X-Forwarded-For', client)
      .buffer(true)
      .parse(asBytes)
      .then((res) => res as unknown as Answer);
  const load = (): Load =>
    (app.strapi.plugin('public-api').service('assets') as { transforms: () => { load: () => Load } }).transforms().load();
  const close = async () => {
    await app.close();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  };
  return { app, image, get, load, close };
};

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 3_000 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
};

const expectUnavailable = (res: Answer, reason: string) => {
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe(String(TRANSFORM_RETRY_AFTER_SECONDS));
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  const body = jsonOf(res);
  expectValidJsonApi(body);
  expect(body.errors).toEqual([expect.objectContaining({ status: '503', code: 'service_unavailable', meta: { reason } })]);
};

describe('one transform at a time, three turns per client', () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  let heavy: string;
  let small: string;

  beforeAll(async () => {
    env = await setUp({
      PUBLIC_API_TRANSFORMS_IN_FLIGHT: '1',
      PUBLIC_API_TRANSFORMS_PER_CLIENT: '3',
      PUBLIC_API_TRANSFORM_TIMEOUT_MS: '60000',
    });
    heavy = await env.image('noise.png', await noise(240));
    small = await env.image('small.png', await solidImage(64, 64));
  });
  afterAll(async () => {
    await env?.close();
  });

  test("a second client's small thumbnail is served while one client floods; the flood's extra request is 503", async () => {
    const finished: string[] = [];
    const track = (label: string, answer: Promise<Answer>) =>
      answer.then((res) => {
        finished.push(label);
        return res;
      });
    // Distinct variants, so that no two share one computation. The flooding client sends from several
    // addresses of its IPv6 /64, which is one client (issue 33: each address was a client of its own).
    const flood = [1, 2, 3].map((n) => track(`flood-${n}`, env.get(`${heavy}?w=${240 - n}&format=avif`, `2001:db8:7:1::${n}`)));
    await until(() => env.load().running === 1 && env.load().waiting === 2);

    // The flooding client has its three turns: a fourth is refused at once, whoever else is waiting.
    expectUnavailable(await env.get(`${heavy}?w=200&format=avif`, '2001:db8:7:1:ffff::4'), 'transforms_busy');

    const thumbnail = track('thumbnail', env.get(`${small}?w=16`, '198.51.100.7'));
    const answers = await Promise.all([...flood, thumbnail]);
    for (const res of answers) expect(res.status).toBe(200);
    // The thumbnail waited for at most one more of the flood's transforms (round-robin), not for all of them.
    expect(finished.indexOf('thumbnail')).toBeLessThan(finished.indexOf('flood-3'));
    expect((await sharp(answers[3]!.body).metadata()).width).toBe(16);
    expect(env.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });

  test('a cached variant takes no turn: it is served while the queue is full', async () => {
    expect((await env.get(`${small}?w=16`, '198.51.100.7')).status).toBe(200);
    const flood = [1, 2, 3].map((n) => env.get(`${heavy}?w=${230 - n}&format=avif`, '203.0.113.1'));
    await until(() => env.load().running === 1);
    const started = Date.now();
    const cached = await env.get(`${small}?w=16`, '198.51.100.7');
    expect(cached.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
    for (const res of await Promise.all(flood)) expect(res.status).toBe(200);
  });
});

describe('the lane of cheap transforms', () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  let heavy: string;
  let small: string;

  beforeAll(async () => {
    env = await setUp({ PUBLIC_API_TRANSFORMS_IN_FLIGHT: '1', PUBLIC_API_TRANSFORM_TIMEOUT_MS: '60000' });
    heavy = await env.image('noise.png', await noise(400));
    small = await env.image('small.png', await solidImage(64, 64));
  });
  afterAll(async () => {
    await env?.close();
  });

  test('a first small thumbnail is computed while heavy transforms of two clients hold the one turn and wait', async () => {
    const flood = [env.get(`${heavy}?w=399&format=avif`, '203.0.113.1'), env.get(`${heavy}?w=398&format=avif`, '203.0.113.2')];
    await until(() => env.load().running === 1 && env.load().waiting === 1);
    const thumbnail = await env.get(`${small}?w=24&format=webp`, '198.51.100.7');
    expect(thumbnail.status).toBe(200);
    expect((await sharp(thumbnail.body).metadata()).width).toBe(24);
    // It did not wait for the heavy ones: they still hold the turn and the queue.
    expect(env.load()).toMatchObject({ running: 1, waiting: 1, cheap: 0 });
    for (const res of await Promise.all(flood)) expect(res.status).toBe(200);
    expect(env.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });
});

describe('a time limit of one second', () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  let slow: string;

  beforeAll(async () => {
    // No lane for cheap transforms: the small one below must wait for the one turn.
    env = await setUp({
      PUBLIC_API_TRANSFORMS_IN_FLIGHT: '1',
      PUBLIC_API_CHEAP_TRANSFORMS_IN_FLIGHT: '0',
      PUBLIC_API_TRANSFORM_TIMEOUT_MS: '1000',
    });
    slow = await env.image('slow.png', await noise(500));
  });
  afterAll(async () => {
    await env?.close();
  });

  test('a transform that outlasts it is answered 503 transform_timed_out with Retry-After at the limit; its turn is held until it ends', async () => {
    const started = Date.now();
    const res = await env.get(`${slow}?w=499&format=avif`, '203.0.113.9');
    expectUnavailable(res, 'transform_timed_out');
    // Answered at its limit, not when the encoding ends (it takes several seconds).
    expect(Date.now() - started).toBeLessThan(2_500);
    const variants = (
      env.app.strapi.plugin('public-api').service('assets') as { variants: () => { stats: () => { computed: number } } }
    ).variants();
    expect(variants.stats().computed).toBe(0);
    // The encoder is still at work: its turn is still taken, so nothing else runs beside it.
    expect(env.load().running).toBe(1);
    const waited = await env.get(`${slow}?w=10`, '198.51.100.7');
    // A request that waits past the limit for a turn gets the same answer.
    expectUnavailable(waited, 'transform_timed_out');
    await until(() => env.load().running === 0);
    expect(env.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
    // The queue serves again once the work has ended.
    expect((await env.get(`${slow}?w=10`, '198.51.100.7')).status).toBe(200);
  });
});
