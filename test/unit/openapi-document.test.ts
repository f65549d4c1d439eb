/**
 * The OpenAPI builder on the application's own content types, without Strapi: validity, what each kind
 * of grant puts in the document, names, and that nothing outside the grants appears (property test).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { z } from 'zod';
import type { CommandDefinition } from '../../src/plugins/public-api/server/src/commands';
import { recordTypeTree } from '../../src/plugins/public-api/server/src/grants/fieldset-projection';
import { includeTree, project, queryVocabulary } from '../../src/plugins/public-api/server/src/grants/projection';
import { allGrants, resolveGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import { targetResolver } from '../../src/plugins/public-api/server/src/grants/targets';
import type { KeyGrants } from '../../src/plugins/public-api/server/src/grants/types';
import { DocumentCache } from '../../src/plugins/public-api/server/src/openapi/cache';
import { buildOpenApiDocument, type OpenApiInput } from '../../src/plugins/public-api/server/src/openapi/document';
import { allocateNames, pascal, COMPONENT_SUFFIXES } from '../../src/plugins/public-api/server/src/openapi/names';
import { expandablePaths } from '../../src/plugins/public-api/server/src/query/include';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';
import { leakedNames } from '../helpers/openapi-leaks';
import { demoResources } from '../helpers/registry';

const BASE_URL = 'https://api.example.org/api/v2';
const resources = demoResources();
const byId = new Map(resources.map((resource) => [resource.id, resource]));

const grantsOf = (input: unknown, commands: string[] = []): KeyGrants => {
  const resolved = resolveGrants(input, resources, commands);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  return resolved.grants;
};

const build = (grants: KeyGrants, extra: Partial<OpenApiInput> = {}) =>
  buildOpenApiDocument({ baseUrl: BASE_URL, grants, resources, locales: ['de', 'en'], commands: [], ...extra });

type Doc = ReturnType<typeof build>;
type AnyOperation = {
  operationId: string;
  parameters?: { name?: string; $ref?: string; schema?: Record<string, unknown> }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
};

const operation = (doc: Doc, path: string, method: string): AnyOperation => (doc.paths[path] as Record<string, AnyOperation>)[method]!;

const parameter = (doc: Doc, op: AnyOperation, name: string) => {
  for (const entry of op.parameters ?? []) {
    const resolved = entry.$ref ? doc.components.parameters[entry.$ref.split('/').pop()!] : entry;
    if (resolved?.name === name) return resolved as { name: string; schema: Record<string, any>; style?: string; explode?: boolean };
  }
  return undefined;
};

const methodsOf = (doc: Doc) =>
  Object.fromEntries(
    Object.entries(doc.paths).map(([path, item]) => [
      path,
      Object.keys(item).filter((key) => ['get', 'post', 'patch', 'delete'].includes(key)),
    ]),
  );

const validate = async (doc: Doc) => {
  await SwaggerParser.validate(structuredClone(doc) as never);
};

test('a key with every grant: a valid OpenAPI 3.1.0 document of every resource and action', async () => {
  const doc = build(allGrants(resources, []));
  await validate(doc);
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.servers).toEqual([{ url: BASE_URL, description: 'This service.' }]);
  expect(doc.components.securitySchemes).toEqual({
    apiKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
  });
  expect(doc.security).toEqual([{ apiKey: [] }]);
  expect(methodsOf(doc)).toMatchObject({
    '/': ['get'],
    '/schema': ['get'],
    '/openapi': ['get'],
    '/openapi.json': ['get'],
    '/events': ['get', 'post'],
    '/events/{record}': ['get', 'patch', 'delete'],
    '/cms/site-a/pages': ['get', 'post'],
    '/cms/site-a/pages/{record}': ['get', 'patch', 'delete'],
    '/cms/site-a/settings': ['get', 'patch'],
    '/cms/site-a/home': ['get', 'patch'],
  });
  // Singletons have no record path.
  expect(doc.paths['/cms/site-a/settings/{record}']).toBeUndefined();
  const operationIds = Object.values(doc.paths).flatMap((item) =>
    Object.values(item)
      .filter((op) => typeof op === 'object' && op && 'operationId' in op)
      .map((op) => (op as AnyOperation).operationId),
  );
  expect(new Set(operationIds).size).toBe(operationIds.length);
});

test('the same input gives the same document, byte for byte', () => {
  const grants = allGrants(resources, []);
  expect(JSON.stringify(build(grants))).toBe(JSON.stringify(build(grants)));
});

test('a key without grants sees the index, the commands list (empty) and the document, and nothing else', async () => {
  const doc = build(grantsOf({ resources: {} }));
  await validate(doc);
  expect(Object.keys(doc.paths)).toEqual(['/', '/schema', '/openapi', '/openapi.json', '/commands/schema']);
  expect(Object.keys(doc.components.schemas).sort()).toEqual(['ErrorDocument', 'ErrorObject', 'JsonApi', 'ResourceIndexDocument']);
  expect(doc.tags.map((tag) => tag.name)).toEqual(['Service']);
});

test('reads: parameters cut to the key (sort keys, include paths, filters, locales), x-service on record paths', async () => {
  const grants = grantsOf({
    resources: {
      'native:events': { actions: ['read'], read: ['title', 'startsAt', 'category', 'price', 'venue', 'festival', 'body', 'tags'] },
      'native:buildings': { actions: ['read'], read: ['name', 'events'] },
    },
  });
  const doc = build(grants);
  await validate(doc);
  expect(methodsOf(doc)).toEqual({
    '/': ['get'],
    '/schema': ['get'],
    '/openapi': ['get'],
    '/openapi.json': ['get'],
    '/commands/schema': ['get'],
    '/sync': ['get'],
    '/buildings': ['get'],
    '/buildings/{record}': ['get'],
    '/events': ['get'],
    '/events/{record}': ['get'],
  });
  expect(doc.paths['/events/{record}']!['x-service']).toEqual({ identifier: ['slug', 'id'] });
  const list = operation(doc, '/events', 'get');
  expect(list.operationId).toBe('listEvents');

  const events = byId.get('native:events')!;
  const resolve = targetResolver(resources);
  const projectionOf = (resource: Resource) => project(grants, resource, resolve);
  const vocabulary = queryVocabulary(
    projectionOf(events),
    ['de', 'en'],
    includeTree(projectionOf(events), projectionOf),
    recordTypeTree(projectionOf(events), projectionOf),
  );

  const sort = parameter(doc, list, 'sort')!;
  expect(sort).toMatchObject({ in: 'query', style: 'form', explode: false });
  expect(sort.schema.items.enum).toEqual([...vocabulary.sortable].flatMap((key) => [key, `-${key}`]));
  expect(sort.schema.items.enum).toEqual(
    expect.arrayContaining(['title', '-startsAt', 'category', 'price', 'slug', 'sort', 'publishedAt']),
  );
  expect(sort.schema.items.enum).not.toContain('body');

  // The festival target is not exposed: neither included nor mentioned.
  const include = parameter(doc, list, 'include')!;
  expect(include.schema.items.enum).toEqual(expandablePaths(vocabulary.include));
  expect(include.schema.items.enum).toEqual(['venue', 'venue.events', 'venue.events.venue']);
  expect(JSON.stringify(doc)).not.toContain('festival');

  // A read's locale is one configured code or a fallback list of them (contract section 15).
  const localeSchema = parameter(doc, list, 'locale')!.schema;
  // Few configured locales: every list is enumerated, so generated clients keep a narrow type.
  expect(localeSchema).toEqual({ type: 'string', enum: ['de', 'en', 'de,en', 'en,de'] });
  expect(parameter(doc, list, 'limit')!.schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
  const filter = parameter(doc, list, 'filter')!;
  expect(filter).toMatchObject({ style: 'deepObject', explode: true });
  expect(Object.keys(filter.schema.properties)).toEqual([...vocabulary.filterable.keys()]);
  expect(filter.schema.properties.category.oneOf[0]).toEqual({
    type: 'string',
    enum: ['concert', 'exhibition', 'talk', 'workshop', 'theatre', 'film'],
  });
  expect(Object.keys(filter.schema.properties.price.oneOf[1].properties)).toEqual(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'null']);
  expect(Object.keys(filter.schema.properties.title.oneOf[1].properties)).toEqual(['eq', 'ne', 'in', 'contains', 'startsWith', 'null']);

  // Buildings are not localized, but their events are: `locale` picks the language those are shown in.
  expect(parameter(doc, operation(doc, '/buildings', 'get'), 'locale')!.schema).toEqual(localeSchema);
  expect(parameter(doc, operation(doc, '/buildings/{record}', 'get'), 'locale')).toBeDefined();
  // Without a relation to localized records it means nothing there, and is not described.
  const plain = build(grantsOf({ resources: { 'native:buildings': { actions: ['read'], read: ['name'] } } }));
  expect(parameter(plain, operation(plain, '/buildings', 'get'), 'locale')).toBeUndefined();
  expect(parameter(doc, operation(doc, '/events/{record}', 'get'), 'sort')).toBeUndefined();
  expect(parameter(doc, operation(doc, '/events/{record}', 'get'), 'include')).toBeDefined();

  // Sparse fieldsets: one parameter per type the read can return, the readable fields as an enum.
  for (const path of ['/events', '/events/{record}']) {
    const op = operation(doc, path, 'get');
    const names = (op.parameters ?? []).map((p: any) => p.name).filter((name?: string) => name?.startsWith('fields['));
    expect(names).toEqual(['fields[events]', 'fields[buildings]']);
    const events = parameter(doc, op, 'fields[events]')!;
    expect(events).toMatchObject({ in: 'query', style: 'form', explode: false });
    expect(events.schema).toEqual({
      type: 'array',
      uniqueItems: true,
      maxItems: 7,
      items: { type: 'string', enum: ['title', 'startsAt', 'category', 'tags', 'price', 'venue', 'body'] },
    });
    expect(parameter(doc, op, 'fields[buildings]')!.schema.items.enum).toEqual(['name', 'events']);
  }

  // Attributes: exactly the readable fields, typed; none required, since a fieldset may leave any out.
  const attributes = doc.components.schemas.EventsAttributes as Record<string, any>;
  expect(Object.keys(attributes.properties)).toEqual(['title', 'startsAt', 'category', 'tags', 'price', 'venue', 'body']);
  expect(attributes.required).toBeUndefined();
  expect(attributes.additionalProperties).toBe(false);
  expect(attributes.properties.title).toMatchObject({ type: 'string' });
  expect(attributes.properties.price).toMatchObject({ type: ['number', 'null'] });
  expect(attributes.properties.startsAt).toMatchObject({ type: 'string', format: 'date-time' });
  expect(attributes.properties.category).toMatchObject({
    type: 'string',
    enum: ['concert', 'exhibition', 'talk', 'workshop', 'theatre', 'film'],
  });
  expect(attributes.properties.venue.oneOf[0].oneOf).toEqual([
    { $ref: '#/components/schemas/BuildingsReference' },
    { $ref: '#/components/schemas/BuildingsRecord' },
  ]);
  expect(attributes.properties.body.oneOf[0]).toEqual({ $ref: '#/components/schemas/RichtextDoc' });
  expect((doc.components.schemas.BuildingsReference as any).properties.collection).toMatchObject({ type: 'string', const: 'buildings' });
});

test('a relation to a resource exposed without read is a reference only, never an expanded record', () => {
  const doc = build(
    grantsOf({
      resources: {
        'native:events': { actions: ['read'], read: ['title', 'venue'] },
        'native:buildings': { actions: ['create'], write: ['name'] },
      },
    }),
  );
  expect((doc.components.schemas.EventsAttributes as any).properties.venue.oneOf[0]).toEqual({
    $ref: '#/components/schemas/BuildingsReference',
  });
  expect(parameter(doc, operation(doc, '/events', 'get'), 'include')).toBeUndefined();
  expect(methodsOf(doc)['/buildings']).toEqual(['post']);
  expect(doc.paths['/buildings/{record}']).toBeUndefined();
});

test('writes: request bodies list exactly the writable fields per action, with Idempotency-Key and the contract statuses', async () => {
  const doc = build(
    grantsOf({
      resources: {
        'native:events': {
          actions: ['create', 'update', 'delete'],
          read: [],
          write: ['title', 'startsAt', 'category', 'slug', 'price', 'tags', 'body', 'cover', 'venue'],
        },
        'native:buildings': { actions: ['read'], read: ['name'] },
        'native:jobs': { actions: ['delete'] },
        'cms:site-a/settings': { actions: ['update'], write: ['siteName', 'primaryColor'] },
      },
    }),
  );
  await validate(doc);
  expect(methodsOf(doc)).toMatchObject({
    '/events': ['post'],
    '/events/{record}': ['patch', 'delete'],
    '/jobs/{record}': ['delete'],
    '/cms/site-a/settings': ['patch'],
  });
  const create = operation(doc, '/events', 'post');
  expect(create.operationId).toBe('createEventsRecord');
  // Events are localized: writes take `locale` too.
  expect(create.parameters).toEqual([{ $ref: '#/components/parameters/IdempotencyKey' }, { $ref: '#/components/parameters/Locale' }]);
  expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
  expect(Object.keys(create.responses)).toEqual([
    '201',
    '400',
    '401',
    '403',
    '404',
    '406',
    '408',
    '409',
    '413',
    '415',
    '422',
    '429',
    '431',
    '500',
    '503',
  ]);
  expect((create.responses['201'] as any).headers).toEqual({
    Location: { $ref: '#/components/headers/Location' },
    'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' },
  });
  expect(Object.keys((create.requestBody as any).content)).toEqual(['application/vnd.api+json', 'application/json']);

  const createAttributes = doc.components.schemas.EventsCreateWritableAttributes as Record<string, any>;
  expect(Object.keys(createAttributes.properties)).toEqual([
    'title',
    'slug',
    'startsAt',
    'category',
    'tags',
    'price',
    'venue',
    'cover',
    'body',
  ]);
  // Required by the content type, and no slug (generated when missing).
  expect(createAttributes.required).toEqual(['title', 'startsAt', 'category']);
  expect(createAttributes.properties.title).toMatchObject({ type: 'string', maxLength: 200 });
  expect(createAttributes.properties.price).toMatchObject({ type: ['number', 'null'], minimum: 0 });
  expect(createAttributes.properties.venue.oneOf[0]).toEqual({ $ref: '#/components/schemas/RelationInput' });
  expect(createAttributes.properties.cover.oneOf).toEqual([{ $ref: '#/components/schemas/AssetInput' }, { type: 'null' }]);
  expect(createAttributes.properties.tags).toMatchObject({ type: ['array', 'null'] });
  expect(createAttributes.properties.body.oneOf[0]).toEqual({ $ref: '#/components/schemas/RichtextDocInput' });
  const updateAttributes = doc.components.schemas.EventsUpdateWritableAttributes as Record<string, any>;
  expect(Object.keys(updateAttributes.properties)).toEqual(Object.keys(createAttributes.properties));
  expect(updateAttributes.required).toBeUndefined();
  expect((doc.components.schemas.EventsUpdateRequest as any).properties.data.properties.id).toMatchObject({ type: 'string' });
  expect((doc.components.schemas.EventsCreateRequest as any).properties.data.properties.id).toBeUndefined();
  // The key reads no event field: records answer with empty attributes.
  expect((doc.components.schemas.EventsAttributes as any).properties).toEqual({});

  // Removing answers 204; jobs archive and answer 200 with the final state.
  // The edge's statuses on every operation (http/statuses.ts): 408 and 413 of Node's parser, 429, 431.
  expect(Object.keys(operation(doc, '/events/{record}', 'delete').responses)).toEqual([
    '204',
    '400',
    '401',
    '403',
    '404',
    '406',
    '408',
    '409',
    '412',
    '413',
    '422',
    '429',
    '431',
    '500',
    '503',
  ]);
  expect(operation(doc, '/events/{record}', 'delete').parameters).toEqual([
    { $ref: '#/components/parameters/Locale' },
    { $ref: '#/components/parameters/IfMatch' },
  ]);
  // Jobs are not localized: If-Match is their only parameter.
  expect(operation(doc, '/jobs/{record}', 'delete').parameters).toEqual([{ $ref: '#/components/parameters/IfMatch' }]);
  const archived = (operation(doc, '/jobs/{record}', 'delete').responses['200'] as any).content['application/vnd.api+json'].schema;
  expect(archived.properties.data.properties.meta).toEqual({ $ref: '#/components/schemas/ArchivedRecordMeta' });
  expect((doc.components.schemas.ArchivedRecordMeta as any).properties.publishedAt).toMatchObject({ type: 'null' });
  // Singletons are updated at the resource path.
  const settings = operation(doc, '/cms/site-a/settings', 'patch');
  expect(settings.operationId).toBe('updateSiteA_Settings');
  expect(Object.keys((doc.components.schemas.SiteA_SettingsUpdateWritableAttributes as any).properties)).toEqual([
    'siteName',
    'primaryColor',
  ]);
  expect((doc.components.schemas.SiteA_SettingsUpdateWritableAttributes as any).properties.primaryColor).toMatchObject({
    pattern: '^#[0-9a-fA-F]{6}$',
    maxLength: 255,
  });
  expect(settings.parameters).toEqual([{ $ref: '#/components/parameters/IdempotencyKey' }, { $ref: '#/components/parameters/IfMatch' }]);
  expect(doc.components.schemas.SiteA_SettingsCreateWritableAttributes).toBeUndefined();
});

test('write request schemas accept what the contract allows (and read-back shapes) and refuse the rest', () => {
  const doc = build(
    grantsOf({
      resources: {
        'native:events': { actions: ['create'], write: ['title', 'startsAt', 'category', 'venue', 'cover', 'tags', 'body'] },
        'native:buildings': { actions: ['read'], read: ['name'] },
      },
    }),
  );
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile({ components: doc.components, $ref: '#/components/schemas/EventsCreateRequest' });
  const request = (attributes: Record<string, unknown>, type = 'events') => ({ data: { type, attributes } });
  const minimal = { title: 'New', startsAt: '2027-01-01T10:00:00Z', category: 'talk' };
  const accepted = [
    minimal,
    {
      ...minimal,
      venue: 'main-hall',
      cover: 'asset-id',
      tags: ['a'],
      body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hi' }] }] },
    },
    {
      ...minimal,
      venue: { id: 'abc', slug: 'main-hall', collection: 'buildings' },
      cover: { id: 'x', url: 'https://x/y.png', fileName: 'y.png' },
    },
    { ...minimal, venue: { slug: 'main-hall' }, cover: null, tags: null, body: null },
    { ...minimal, body: { type: 'doc', content: [{ type: 'image', attrs: { id: 'img', src: 'https://x/y.png' } }] } },
  ];
  for (const attributes of accepted)
    expect({ attributes, valid: validate(request(attributes)), errors: validate.errors }).toMatchObject({ valid: true });
  const refused = [
    request({ startsAt: minimal.startsAt, category: 'talk' }),
    request({ ...minimal, category: 'party' }),
    request({ ...minimal, capacity: 10 }),
    request({ ...minimal, venue: { slug: null } }),
    request({ ...minimal, title: 'x'.repeat(201) }),
    request({ ...minimal, body: { type: 'doc', content: [{ type: 'image', attrs: { src: 'https://x/y.png' } }] } }),
    request(minimal, 'buildings'),
  ];
  for (const body of refused) expect({ body, valid: validate(body) }).toMatchObject({ valid: false });
});

test('commands: granted ones from the registry, with their zod input as JSON Schema; others never', async () => {
  const commands = [
    {
      name: 'newsletter-signup',
      description: 'Sign up for the newsletter',
      input: () => z.object({ email: z.email(), consent: z.literal(true) }),
    },
    { name: 'secret-command', description: 'Not for this key', input: () => z.object({}) },
  ] as unknown as CommandDefinition[];
  const doc = build(
    grantsOf(
      { resources: {}, commands: ['newsletter-signup'] },
      commands.map((c) => c.name),
    ),
    { commands },
  );
  await validate(doc);
  expect(Object.keys(doc.paths)).toEqual(['/', '/schema', '/openapi', '/openapi.json', '/commands/schema', '/commands/newsletter-signup']);
  const run = operation(doc, '/commands/newsletter-signup', 'post');
  expect(run.operationId).toBe('runNewsletterSignupCommand');
  const attributes = (run.requestBody as any).content['application/vnd.api+json'].schema.properties.data.properties.attributes;
  expect(attributes).toMatchObject({
    type: 'object',
    required: ['email', 'consent'],
    properties: { email: { type: 'string', format: 'email' } },
  });
  expect(JSON.stringify(doc)).not.toContain('secret-command');
});

test('component names: PascalCase per resource, unique whatever the slugs', () => {
  expect(pascal('events')).toBe('Events');
  expect(pascal('site-a')).toBe('SiteA');
  const fake = (id: string, slug: string, website?: string) =>
    ({ id, slug, sourceType: website ? 'cms' : 'native', website: website ? { slug: website } : undefined }) as unknown as Resource;
  fc.assert(
    fc.property(
      fc.uniqueArray(
        fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), fc.option(fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,6}$/), { nil: undefined })),
        { maxLength: 12, selector: ([slug, website]) => `${website ?? ''}/${slug}` },
      ),
      (entries) => {
        const list = entries.map(([slug, website], index) => fake(`r${index}`, slug, website));
        const names = allocateNames(list, new Set(['ErrorDocument']));
        const all = [...names.values()].flatMap((name) => [name, ...COMPONENT_SUFFIXES.map((suffix) => `${name}${suffix}`)]);
        expect(new Set(all).size).toBe(all.length);
        expect(all).not.toContain('ErrorDocument');
        for (const name of names.values()) expect(name).toMatch(/^[A-Za-z0-9._-]+$/);
      },
    ),
    { numRuns: 300 },
  );
});

/**
 * The leak property: for any grants, every resource, website, field and command name the grants do
 * not reach is absent from the document (see test/helpers/openapi-leaks.ts for the words every
 * document holds).
 */
describe('nothing outside the grants appears', () => {
  const leaks = (grants: KeyGrants, commands: string[]) =>
    leakedNames({
      document: build(grants, {
        commands: commands.map((name) => ({ name, description: `Run ${name}`, input: () => z.object({}) }) as unknown as CommandDefinition),
      }),
      grants,
      resources,
      commands,
    });

  test('a narrowly granted key', () => {
    const grants = grantsOf({ resources: { 'native:jobs': { actions: ['read'], read: ['title', 'department'] } } });
    expect(leaks(grants, [])).toEqual([]);
    const text = JSON.stringify(build(grants));
    for (const name of [
      'events',
      'buildings',
      'festivals',
      'products',
      'site-a',
      'pages',
      'salaryMin',
      'remote',
      'applications',
      'employmentType',
    ]) {
      expect(text).not.toContain(name);
    }
  });

  test('the check finds a name that should not be there', () => {
    const grants = grantsOf({ resources: { 'native:jobs': { actions: ['read'], read: ['title'] } } });
    const document = build(grants);
    expect(leaks(grants, [])).toEqual([]);
    const tampered = structuredClone(document);
    (tampered.components.schemas.JobsAttributes as any).properties.salaryMin = { type: 'integer' };
    tampered.info.description += ' See also the festivals.';
    expect(leakedNames({ document: tampered, grants, resources, commands: [] }).sort()).toEqual([
      'festival',
      'festivals',
      'salaryMin',
      'salarymin',
    ]);
  });

  const grantArbitrary = fc
    .tuple(
      fc.subarray(resources.map((resource) => resource.id)),
      fc.array(
        fc.tuple(
          fc.subarray(['read', 'create', 'update', 'delete'] as const),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.double({ min: 0, max: 1, noNaN: true }),
        ),
        {
          minLength: resources.length,
          maxLength: resources.length,
        },
      ),
      fc.subarray(['newsletter-signup', 'job-application']),
    )
    .map(([ids, choices, commands]) => {
      const grantResources: Record<string, { actions: string[]; read: string[]; write: string[] }> = {};
      ids.forEach((id, index) => {
        const resource = byId.get(id)!;
        const [actions, readShare, writeShare] = choices[index]!;
        const supported = resource.mode === 'singleton' ? actions.filter((action) => action === 'read' || action === 'update') : actions;
        const pick = (share: number) => resource.fields.filter((_, i) => ((i * 7919) % 100) / 100 < share).map((field) => field.key);
        grantResources[id] = { actions: supported, read: pick(readShare), write: pick(writeShare) };
      });
      return { grants: grantsOf({ resources: grantResources, commands }, ['newsletter-signup', 'job-application']), commands };
    });

  test('for any grants (property)', () => {
    fc.assert(
      fc.property(grantArbitrary, ({ grants }) => {
        expect(leaks(grants, ['newsletter-signup', 'job-application'])).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});

test('the document cache is bounded by entries and bytes, least recently used first out', () => {
  const cache = new DocumentCache({ maxEntries: 3, maxBytes: 10 });
  const entry = (text: string) => ({ text: Buffer.from(text), etag: text });
  cache.set('a', entry('aa'));
  cache.set('b', entry('bb'));
  cache.set('c', entry('cc'));
  expect(cache.get('a')?.text.toString()).toBe('aa');
  cache.set('d', entry('dd'));
  expect(cache.get('b')).toBeUndefined();
  expect(cache.size).toBe(3);
  cache.set('e', entry('eeeeee'));
  expect(cache.totalBytes).toBeLessThanOrEqual(10);
  expect(cache.get('e')?.text.toString()).toBe('eeeeee');
  cache.set('huge', entry('x'.repeat(11)));
  expect(cache.get('huge')).toBeUndefined();
});
