/**
 * Native resources come from the plugin's configuration (contract sections 1 and 18): the config
 * validator's one line for each thing that can be wrong with `nativeResources`, the registry's for a uid
 * that names no content type, single types as singletons, and none configured.
 */
import fc from 'fast-check';
import config from '../../src/plugins/public-api/server/src/config';
import { RESERVED_NATIVE_SLUGS, nativeResourcesProblem } from '../../src/plugins/public-api/server/src/config/native-resources';
import { buildNativeResources } from '../../src/plugins/public-api/server/src/registry/build';
import { contentApiRoutes } from '../../src/plugins/public-api/server/src/routes/content-api';
import { NATIVE_RESOURCES } from '../../src/settings/native-resources';
import { contentTypeSchemas } from '../helpers/registry';

const valid = { ...config.default, keySecret: 'x'.repeat(32) };
const withNatives = (nativeResources: unknown) => () => config.validator({ ...valid, nativeResources } as never);
const events = { slug: 'events', uid: 'api::event.event', deleteMode: 'remove' as const };

test("this application's five, and none at all, are valid", () => {
  expect(withNatives(NATIVE_RESOURCES)).not.toThrow();
  expect(withNatives([])).not.toThrow();
  expect(withNatives(undefined)).not.toThrow();
  expect(config.default.nativeResources).toEqual([]);
});

test.each([
  [
    'not a list',
    { events },
    `The public-api plugin's nativeResources must be a list of { slug, uid, deleteMode }, got {"events":{"slug":"events","uid":"api::event.event","deleteMode":"remove"}}.`,
  ],
  [
    'an entry that is no object',
    ['events'],
    "The public-api plugin's nativeResources[0] must be an object { slug, uid, deleteMode }, got 'events'.",
  ],
  [
    'an unknown member',
    [{ ...events, mode: 'singleton' }],
    "The public-api plugin's nativeResources[0] has an unknown member 'mode'; a native resource has slug, uid and deleteMode.",
  ],
  [
    'a slug that is no slug',
    [{ ...events, slug: 'Events' }],
    "The public-api plugin's nativeResources[0].slug 'Events' is not a slug: lowercase letters, digits and dashes, starting with a letter (at most 64).",
  ],
  [
    'a missing slug',
    [{ uid: 'api::event.event', deleteMode: 'remove' }],
    "The public-api plugin's nativeResources[0].slug undefined is not a slug: lowercase letters, digits and dashes, starting with a letter (at most 64).",
  ],
  [
    'a reserved slug',
    [events, { slug: 'sync', uid: 'api::job.job', deleteMode: 'archive' }],
    `The public-api plugin's nativeResources[1].slug 'sync' is reserved by the API's own paths and documents (${RESERVED_NATIVE_SLUGS.join(', ')}); choose another.`,
  ],
  [
    'a duplicate slug',
    [events, { slug: 'events', uid: 'api::festival.festival', deleteMode: 'remove' }],
    "The public-api plugin's nativeResources[1].slug 'events' is already the slug of nativeResources[0].",
  ],
  [
    'a uid that is no uid',
    [{ ...events, uid: 'event' }],
    "The public-api plugin's nativeResources[0].uid 'event' is not a content type uid such as 'api::event.event'.",
  ],
  [
    "one of the plugin's own content types",
    [{ ...events, uid: 'plugin::public-api.api-key' }],
    "The public-api plugin's nativeResources[0].uid 'plugin::public-api.api-key' is one of the plugin's own content types, which the API never serves.",
  ],
  [
    'a content type served twice',
    [events, { ...events, slug: 'happenings' }],
    "The public-api plugin's nativeResources[1].uid 'api::event.event' is already served by nativeResources[0]: one resource per content type.",
  ],
  [
    'a bad delete mode',
    [{ ...events, deleteMode: 'hide' }],
    "The public-api plugin's nativeResources[0].deleteMode must be one of 'remove', 'archive', got 'hide'.",
  ],
])('%s: one line naming it', (_case, nativeResources, message) => {
  expect(withNatives(nativeResources)).toThrow(new Error(message));
  expect(message).not.toContain('\n');
});

test("every first segment of the API's own paths is a reserved slug", () => {
  const literals = contentApiRoutes
    .map((route) => route.path.split('/')[1] ?? '')
    .filter((segment) => segment !== '' && !segment.startsWith(':'));
  // `openapi.json` is no slug at all; the rest must be refused by name.
  for (const segment of literals.filter((name) => /^[a-z-]+$/.test(name))) expect(RESERVED_NATIVE_SLUGS).toContain(segment);
});

test('for any input, the check answers null or one line, and never throws', () => {
  fc.assert(
    fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true }), (value) => {
      const problem = nativeResourcesProblem(value);
      expect(problem === null || (typeof problem === 'string' && !problem.includes('\n'))).toBe(true);
    }),
  );
  fc.assert(
    fc.property(
      fc.array(fc.record({ slug: fc.string(), uid: fc.constantFrom('api::event.event', 'api::job.job', 'x'), deleteMode: fc.string() })),
      (value) => {
        const problem = nativeResourcesProblem(value);
        if (problem === null) expect(new Set(value.map((entry) => entry.slug)).size).toBe(value.length);
      },
    ),
  );
});

describe('the registry', () => {
  const schemas = contentTypeSchemas();

  test('a uid that names no content type refuses the start with one line', () => {
    expect(() => buildNativeResources([events, { slug: 'articles', uid: 'api::article.article', deleteMode: 'remove' }], schemas)).toThrow(
      new Error("The public-api plugin's nativeResources[1] ('articles') names content type api::article.article, which does not exist."),
    );
  });

  test('none configured: no native resource', () => {
    expect(buildNativeResources([], schemas)).toEqual([]);
  });

  test('as configured: slug, uid, delete mode; a collection type is a collection', () => {
    const resources = buildNativeResources(NATIVE_RESOURCES, schemas);
    expect(resources.map(({ id, slug, uid, deleteMode, mode }) => ({ id, slug, uid, deleteMode, mode }))).toEqual(
      NATIVE_RESOURCES.map(({ slug, uid, deleteMode }) => ({ id: `native:${slug}`, slug, uid, deleteMode, mode: 'collection' })),
    );
  });

  test('a single type is a singleton, named as one thing', () => {
    const [home] = buildNativeResources([{ slug: 'home', uid: 'api::homepage.homepage', deleteMode: 'remove' }], schemas);
    expect(home).toMatchObject({
      id: 'native:home',
      sourceType: 'native',
      mode: 'singleton',
      kind: 'singleType',
      name: 'Homepage',
      localized: true,
    });
    expect(home!.fields.map((field) => field.key)).toEqual(['headline', 'intro', 'hero', 'featuredEvents']);
  });
});
