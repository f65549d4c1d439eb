/**
 * The transform queue (contract section 13, "Assets"): transforms in flight are bounded
 * (PUBLIC_API_TRANSFORMS_IN_FLIGHT), a client address holds at most PUBLIC_API_TRANSFORMS_PER_CLIENT
 * turns, freed turns go round-robin between clients so a flooding client cannot starve the rest, and a
 * transform that outlasts PUBLIC_API_TRANSFORM_TIMEOUT_MS is stopped: 503 with Retry-After either way.
 *
 * Client addresses come from X-Forwarded-For: the app trusts a proxy here (IS_PROXIED); an IPv6 client is
 * its /64. Heavy transforms are AVIF encodings of noise, the slowest thing a client can ask of libvips.
 * Transforms run in processes of a pool (assets/transform-pool.ts): one past its limit is killed.
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
    const cached = await env.get(`${small}?w=16`, '198.51.100.7');
    expect(cached.status).toBe(200);
    // Answered while the flood still holds the queue: it waited for no turn.
    expect(env.load().running + env.load().waiting).toBeGreaterThan(0);
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

/** The transform pool of the app (services/assets.ts). */
type Pool = { load: () => { processes: number; busy: number }; pids: () => number[] };
const poolOf = (env: Awaited<ReturnType<typeof setUp>>): Pool =>
  (env.app.strapi.plugin('public-api').service('assets') as { transformPool: () => Pool }).transformPool();

/** The CPU a process has used (ms, user and system), or null once it is gone (a zombie counts as gone). */
const cpuOfProcess = (pid: number): number | null => {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // After "pid (name)": state is field 3, utime and stime fields 14 and 15, in clock ticks (100 per second).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return null;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a time limit of three seconds', () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  let slow: string;

  beforeAll(async () => {
    // One turn and no lane for cheap transforms.
    env = await setUp({
      PUBLIC_API_TRANSFORMS_IN_FLIGHT: '1',
      PUBLIC_API_CHEAP_TRANSFORMS_IN_FLIGHT: '0',
      PUBLIC_API_TRANSFORM_TIMEOUT_MS: '3000',
    });
    // An AVIF of 1.4 megapixels of noise: far longer than the limit on any machine.
    slow = await env.image('slow.png', await noise(1200));
  });
  afterAll(async () => {
    await env?.close();
  });

  test('a transform that outlasts it is killed at the limit: answered 503, its CPU and its turn free at once, the next transform served', async () => {
    const pool = poolOf(env);
    const answer = env.get(`${slow}?w=1199&format=avif`, '203.0.113.9');
    await until(() => pool.load().busy === 1);
    const [pid] = pool.pids();
    // The encoder is at work in its process: its CPU time grows (or it is already over, killed).
    const startCpu = cpuOfProcess(pid!)!;
    await until(() => (cpuOfProcess(pid!) ?? Infinity) - startCpu >= 300);

    expectUnavailable(await answer, 'transform_timed_out');
    // The turn is free as the answer leaves (before, it stayed taken until the encoder ended).
    expect(env.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
    // Killed, not left running: the process is gone, so its CPU time stops growing.
    await until(() => cpuOfProcess(pid!) === null);
    expect(pool.pids()).not.toContain(pid);
    // A fresh process took its place, and serves the next transform.
    const served = await env.get(`${slow}?w=10`, '198.51.100.7');
    expect(served.status).toBe(200);
    expect((await sharp(served.body).metadata()).width).toBe(10);
    const variants = (
      env.app.strapi.plugin('public-api').service('assets') as { variants: () => { stats: () => { computed: number } } }
    ).variants();
    expect(variants.stats().computed).toBe(1);
    expect(pool.load()).toEqual({ processes: 1, busy: 0 });

    // Nothing encodes in this process instead: with nothing asked, it spends next to no CPU.
    const before = ownCpuMs();
    await pause(1_000);
    expect(ownCpuMs() - before).toBeLessThan(500);
  });
});

describe('a share of cost per client, and expensive transforms on all turns but one: three turns, floods of large AVIF variants', () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  let photo: string;

  beforeAll(async () => {
    // No lane: the other address's transform is not cheap, it needs a general turn. Expensive transforms
    // (the AVIFs below) may hold two of the three turns.
    env = await setUp({
      PUBLIC_API_TRANSFORMS_IN_FLIGHT: '3',
      PUBLIC_API_CHEAP_TRANSFORMS_IN_FLIGHT: '0',
      PUBLIC_API_TRANSFORMS_PER_CLIENT: '3',
      // The flood need not finish: its encodings of noise are killed at the limit on a slow machine.
      PUBLIC_API_TRANSFORM_TIMEOUT_MS: '8000',
    });
    photo = await env.image('photo.png', await noise(700));
  });
  afterAll(async () => {
    await env?.close();
  });

  test("one address's flood holds one turn, the others serve another address at once; one IPv6 /64 is one client", async () => {
    const finished: string[] = [];
    const track = (label: string, answer: Promise<Answer>) =>
      answer.then((res) => {
        finished.push(label);
        return res;
      });
    // Three addresses of one /64: one client. Each AVIF of about half a megapixel costs 5: two together
    // are over the share of 8.
    const flood = [1, 2, 3].map((n) => track(`flood-${n}`, env.get(`${photo}?w=${700 - n}&format=avif`, `2001:db8:aa:1::${n}`)));
    await until(() => env.load().running === 1 && env.load().waiting === 2);
    // Two turns stay free although the flood waits: its share is spent.
    expect(env.load()).toEqual({ running: 1, cheap: 0, waiting: 2, clients: 1 });
    // A fourth address of the same /64 is the same client, at its bound of three turns.
    expectUnavailable(await env.get(`${photo}?w=600&format=avif`, '2001:db8:aa:1::4'), 'transforms_busy');

    // Another /64 asks for a WebP of 0.25 megapixels (cost 0.9: not cheap), and takes a free turn at once.
    const other = track('other', env.get(`${photo}?w=500&format=webp`, '2001:db8:aa:2::1'));
    const served = await other;
    expect(served.status).toBe(200);
    expect((await sharp(served.body).metadata()).width).toBe(500);
    // Served beside the flood's first encoding, not after it.
    expect(finished).toEqual(['other']);
    for (const res of await Promise.all(flood)) {
      if (res.status !== 200) expectUnavailable(res, 'transform_timed_out');
    }
    expect(env.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });

  test("three addresses flood with expensive AVIFs: they hold two turns, and a fourth address's medium WebP takes the third at once", async () => {
    const finished: string[] = [];
    const track = (label: string, answer: Promise<Answer>) =>
      answer.then((res) => {
        finished.push(label);
        return res;
      });
    const flood = [1, 2, 3].map((n) => track(`flood-${n}`, env.get(`${photo}?w=${690 - n}&format=avif`, `203.0.113.${n}`)));
    await until(() => env.load().running === 2 && env.load().waiting === 1);
    expect(env.load()).toEqual({ running: 2, cheap: 0, waiting: 1, clients: 3 });
    const other = track('other', env.get(`${photo}?w=450&format=webp`, '198.51.100.7'));
    const served = await other;
    expect(served.status).toBe(200);
    expect((await sharp(served.body).metadata()).width).toBe(450);
    expect(finished).toEqual(['other']);
    for (const res of await Promise.all(flood)) {
      if (res.status !== 200) expectUnavailable(res, 'transform_timed_out');
    }
    expect(env.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });
});
