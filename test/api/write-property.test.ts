/**
 * Property tests of writes (contract section 7): random attribute maps, valid and not, against random
 * grants. A write never stores a field the key may not write, a successful PATCH leaves every field it
 * did not send as it was, a successful POST leaves them at their defaults, and a refused write leaves
 * the database exactly as it was.
 */
import type { Core } from '@strapi/strapi';
import fc from 'fast-check';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { publish, uploadImage } from '../helpers/fixtures';
import { listenOnce, resourceDocument, tableSnapshot, writer } from '../helpers/writes';

const EVENT = 'api::event.event';
const UIDS = [EVENT, 'api::building.building', 'api::festival.festival'];

const FIELDS = [
  'title',
  'slug',
  'sort',
  'summary',
  'startsAt',
  'endsAt',
  'category',
  'tags',
  'price',
  'soldOut',
  'capacity',
  'venue',
  'festival',
  'cover',
  'body',
] as const;
type FieldName = (typeof FIELDS)[number];

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let readerAuth: string;
let targetId: string;
let defaults: Record<string, unknown>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  ids.hall = (await publish(s, 'api::building.building', { name: 'Main Hall', slug: 'main-hall' })).documentId;
  ids.fest = (
    await publish(s, 'api::festival.festival', { name: 'Summer Fest', slug: 'summer-fest', startsOn: '2027-06-01', endsOn: '2027-06-03' })
  ).documentId;
  ids.image = (await uploadImage(s, 'cover.png')).documentId;
  targetId = (await publish(s, EVENT, { title: 'Target', slug: 'target', category: 'talk', startsAt: '2027-06-01T10:00:00.000Z' }))
    .documentId;
  const baseline = await publish(s, EVENT, { title: 'Baseline', slug: 'baseline', category: 'talk', startsAt: '2027-06-01T10:00:00.000Z' });
  readerAuth = (
    await createKey(s, {
      resources: {
        'native:events': { actions: ['read'], read: '*' },
        'native:buildings': { actions: ['read'], read: ['name'] },
        'native:festivals': { actions: ['read'], read: ['name'] },
      },
    })
  ).auth;
  defaults = (await api.get(`/api/v2/events/${baseline.documentId}`, readerAuth)).body.data.attributes;
});
afterAll(async () => {
  await app?.close();
});

/** For each field: values that are right (three times as likely) and values wrong in shape, range or reference. */
const either = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: invalid });

const VALUES: Record<FieldName, fc.Arbitrary<unknown>> = {
  title: either(
    fc.string({ minLength: 1, maxLength: 30 }).filter((t) => t.trim() !== ''),
    fc.constantFrom(5, 'x'.repeat(300)),
  ),
  slug: either(fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), fc.constant(null)), fc.constant('not a slug')),
  sort: either(fc.integer({ min: -5, max: 50 }), fc.constantFrom(1.5, '3')),
  summary: either(fc.oneof(fc.string({ maxLength: 40 }), fc.constant(null)), fc.constant({})),
  startsAt: either(
    fc.date({ min: new Date('2026-01-01'), max: new Date('2028-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constant('garbage'),
  ),
  endsAt: either(
    fc.oneof(
      fc.date({ min: new Date('2026-01-01'), max: new Date('2028-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constant(null),
    ),
    fc.constant('2027-13-01T00:00:00Z'),
  ),
  category: either(fc.constantFrom('concert', 'talk', 'film', null), fc.constant('opera')),
  tags: either(fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 3 }), fc.constantFrom('jazz', [1])),
  price: either(
    fc.integer({ min: 0, max: 100000 }).map((cents) => cents / 100),
    fc.constantFrom(-5, 'free'),
  ),
  soldOut: either(fc.boolean(), fc.constant('yes')),
  capacity: either(fc.integer({ min: 0, max: 5000 }), fc.constant(-1)),
  venue: either(fc.constantFrom('main-hall', null), fc.constantFrom('nowhere', { id: 'missing' })),
  festival: either(fc.constantFrom('summer-fest', null), fc.constant(['summer-fest'])),
  cover: either(fc.constantFrom('IMAGE', null), fc.constant('no-such-asset')),
  body: either(
    fc.constantFrom({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hello' }] }] }, null),
    fc.constant({ type: 'doc', content: [{ type: 'table' }] }),
  ),
};

const REQUIRED = { title: 'Random', category: 'talk', startsAt: '2027-06-01T10:00:00.000Z' };

const exposure = fc.constantFrom<null | 'read' | 'create'>(null, 'read', 'create');

/**
 * A key's write grant, and attributes drawn mostly from it: up to four granted fields, sometimes one
 * that may not be granted (or does not exist). A POST is often given the required fields.
 */
const scenario = fc
  .record({
    method: fc.constantFrom<'post' | 'patch'>('post', 'patch'),
    write: fc.subarray([...FIELDS]),
    buildings: exposure,
    festivals: exposure,
    complete: fc.boolean(),
  })
  .chain((base) =>
    fc
      .record({
        chosen: fc.subarray(base.write, { maxLength: Math.min(4, base.write.length) }),
        stray: fc.option(fc.constantFrom<string>(...FIELDS, 'bogus'), { freq: 2 }),
      })
      .chain(({ chosen, stray }) => {
        const names = [...new Set([...chosen, ...(stray === null ? [] : [stray])])];
        return fc.tuple(...names.map((name) => (name === 'bogus' ? fc.constant(true) : VALUES[name as FieldName]))).map((drawn) => {
          const attributes: Record<string, unknown> = Object.fromEntries(names.map((name, index) => [name, drawn[index]]));
          if (base.method === 'post' && base.complete) {
            return {
              ...base,
              write: [...new Set([...base.write, 'title', 'category', 'startsAt'])],
              attributes: { ...REQUIRED, ...attributes },
            };
          }
          return { ...base, attributes };
        });
      }),
  );

const grantOf = (actions: string[]) => ({ actions, read: [], write: [] });

test('random writes never store an unwritable field, change only what they send, and leave nothing when refused', async () => {
  let succeeded = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(scenario, async ({ method, write, buildings, festivals, attributes }) => {
      const resources: Record<string, unknown> = {
        'native:events': { actions: ['read', 'create', 'update'], read: [], write },
      };
      if (buildings) resources['native:buildings'] = grantOf([buildings]);
      if (festivals) resources['native:festivals'] = grantOf([festivals]);
      const key = await createKey(s, { resources });
      const sent: Record<string, unknown> = Object.fromEntries(
        Object.entries(attributes).map(([name, value]) => [name, value === 'IMAGE' ? ids.image : value]),
      );

      const before = await tableSnapshot(s, UIDS);
      const targetBefore = (await api.get(`/api/v2/events/${targetId}`, readerAuth)).body.data;
      const res =
        method === 'post'
          ? await api.post('/api/v2/events', key.auth, resourceDocument('events', sent))
          : await api.patch(`/api/v2/events/${targetId}`, key.auth, resourceDocument('events', sent));

      expect(res.status).toBeLessThan(500);
      // Which relation fields the key sees (a relation to a resource it holds nothing on is no field).
      const visible = new Set<string>(write.filter((name) => (name === 'venue' ? buildings : name === 'festival' ? festivals : true)));
      const unwritable = Object.keys(sent).filter((name) => !visible.has(name));

      if (res.status >= 400) {
        refused += 1;
        expect(await tableSnapshot(s, UIDS)).toEqual(before);
        if (unwritable.length) {
          expect(res.status).toBe(422);
          const named = res.body.errors
            .filter((e: { meta?: { reason: string } }) => e.meta?.reason === 'field_not_writable')
            .map((e: { source: { pointer: string } }) => e.source.pointer);
          expect(named).toEqual(unwritable.map((name) => `/data/attributes/${name}`));
        }
        return;
      }

      succeeded += 1;
      expect(unwritable).toEqual([]);
      const id = res.body.data.id as string;
      const after = (await api.get(`/api/v2/events/${id}`, readerAuth)).body.data;
      for (const field of FIELDS) {
        if (field in sent) continue;
        if (method === 'patch') expect([field, after.attributes[field]]).toEqual([field, targetBefore.attributes[field]]);
        else if (field !== 'slug') expect([field, after.attributes[field]]).toEqual([field, defaults[field]]);
      }
      if (method === 'patch') expect(after.id).toBe(targetId);
      // Every record created has a slug it can be addressed by.
      else expect((await api.get(`/api/v2/events/${after.meta.slug}`, readerAuth)).body.data.id).toBe(id);
    }),
    { numRuns: 80 },
  );
  // Both sides of the property were exercised.
  expect(succeeded).toBeGreaterThan(10);
  expect(refused).toBeGreaterThan(10);
});
