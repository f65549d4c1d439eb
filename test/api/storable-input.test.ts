/**
 * Input the database cannot store never reaches it (issue 13, defects 7 and 8), over every route, every
 * filterable field, every writable field and every command attribute, so that the answer is the same on
 * SQLite and PostgreSQL (TEST_DATABASE=postgres): NUL and lone surrogates are 400 in paths and query
 * parameters and 422 (with a pointer at the very value) in writes and commands; dates and date-times
 * outside years 0001-9999, and numbers their column cannot hold, are 400 in filters and 422 in writes.
 * The edges of each range are accepted, and a record written at them reads back unchanged.
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { publish, uploadImage, website } from '../helpers/fixtures';
import { portOf, sendRequest, type RawRequest } from '../helpers/raw-http';
import { tableSnapshot } from '../helpers/writes';
import { contentApiRoutes } from '../../src/plugins/public-api/server/src/routes/content-api';
import { SYSTEM_FILTER_TARGETS } from '../../src/plugins/public-api/server/src/fields/system-keys';
import { filterTargetOf } from '../../src/plugins/public-api/server/src/fields/table';
import { operatorApplies } from '../../src/plugins/public-api/server/src/query/filters';
import { FILTER_OPERATORS, type FilterTarget } from '../../src/plugins/public-api/server/src/query/types';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';
import { attributePointer } from '../../src/plugins/public-api/server/src/write/pointer';

let app: TestApp;
let s: Core.Strapi;
let port: number;
let auth: string;
let resources: Resource[];
/** One published record per collection resource, by resource id: its slug. */
const records = new Map<string, string>();

const UIDS = [
  'api::building.building',
  'api::event.event',
  'api::festival.festival',
  'api::job.job',
  'api::product.product',
  'api::page.page',
  'api::setting.setting',
  'api::job-application.job-application',
  'api::newsletter-subscription.newsletter-subscription',
  'plugin::upload.file',
];

beforeAll(async () => {
  app = await bootApp();
  s = app.strapi;
  port = await portOf(app);
  const site = await website(s, 'site-a', [
    { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
    { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' },
  ]);
  const image = await uploadImage(s, 'cover.png');
  const hall = await publish(s, 'api::building.building', { name: 'Main Hall', slug: 'main-hall' });
  await publish(s, 'api::festival.festival', { name: 'Summer Fest', slug: 'summer-fest', startsOn: '2027-06-01', endsOn: '2027-06-03' });
  await publish(s, 'api::event.event', {
    title: 'Jazz Night',
    slug: 'jazz-night',
    category: 'concert',
    startsAt: '2027-06-01T19:00:00.000Z',
    venue: hall.documentId,
    cover: image.id,
  });
  await publish(s, 'api::job.job', { title: 'Engineer', slug: 'engineer', department: 'engineering', employmentType: 'full-time' });
  await publish(s, 'api::product.product', { name: 'Ticket', slug: 'ticket', sku: 'T-1', price: 10, currency: 'EUR' });
  await publish(s, 'api::page.page', { title: 'About', slug: 'about', website: site.documentId });
  await publish(s, 'api::setting.setting', { siteName: 'Site A', website: site.documentId });

  resources = (await (s.plugin('public-api').service('resources') as { all: () => Promise<Resource[]> }).all()).filter(
    (resource) => resource.sourceType === 'native' || resource.website?.slug === 'site-a',
  );
  const slugs: Record<string, string> = {
    buildings: 'main-hall',
    festivals: 'summer-fest',
    events: 'jazz-night',
    jobs: 'engineer',
    products: 'ticket',
    pages: 'about',
  };
  for (const resource of resources) if (slugs[resource.slug]) records.set(resource.id, slugs[resource.slug]!);
  const grants = Object.fromEntries(
    resources.map((resource) => [
      resource.id,
      { actions: resource.mode === 'singleton' ? ['read', 'update'] : ['read', 'create', 'update', 'delete'], read: '*', write: '*' },
    ]),
  );
  auth = (await createKey(s, { resources: grants, commands: '*' })).auth;
});
afterAll(async () => {
  await app?.close();
});

type Answer = {
  status: number;
  body: { data?: unknown; errors?: { status: string; code: string; source?: unknown; meta?: { reason: string } }[] };
};

const send = async (request: RawRequest): Promise<Answer> => {
  const response = await sendRequest(port, {
    ...request,
    headers: {
      Authorization: auth,
      ...(request.body !== undefined ? { 'Content-Type': 'application/vnd.api+json' } : {}),
      ...request.headers,
    },
  });
  const body = response.text ? JSON.parse(response.text) : {};
  if (response.text) expectValidJsonApi(body);
  return { status: response.status, body };
};

const get = (target: string) => send({ method: 'GET', target });

const pathOf = (resource: Resource) =>
  resource.sourceType === 'native' ? `/api/v2/${resource.slug}` : `/api/v2/cms/${resource.website!.slug}/${resource.slug}`;

const collections = () => resources.filter((resource) => resource.mode === 'collection');

/** The 400 of one parameter, with its reason. */
const expectParameterRefused = (answer: Answer, parameter: string, reason: string) => {
  expect({ status: answer.status, errors: answer.body.errors }).toEqual({
    status: 400,
    errors: [expect.objectContaining({ status: '400', code: 'bad_request', source: { parameter }, meta: { reason } })],
  });
};

// ---------------------------------------------------------------------------------------------------------
// Paths and query parameters: 400 at the edge
// ---------------------------------------------------------------------------------------------------------

/** A real value for each path parameter, so that only the NUL can be wrong. */
const REAL: Record<string, string> = {
  resource: 'events',
  record: 'jazz-night',
  website: 'site-a',
  collection: 'pages',
  command: 'newsletter-signup',
};

describe('paths', () => {
  test('NUL in any parameter of any keyed route, with any method: 400, nothing written', async () => {
    const before = await tableSnapshot(s, UIDS);
    let checked = 0;
    for (const route of contentApiRoutes.filter((candidate) => candidate.name !== 'asset')) {
      const names = route.path
        .split('/')
        .filter((part) => part.startsWith(':'))
        .map((part) => part.slice(1));
      for (const name of names) {
        for (const nul of ['%00', 'x%00y']) {
          const path = route.path.replace(/:(\w+)/g, (_, param: string) => (param === name ? nul : REAL[param]!));
          const answer = await send({
            method: route.method,
            target: `/api/v2${path}`,
            ...(route.method === 'POST' || route.method === 'PATCH' ? { body: '{}' } : {}),
          });
          expect({ route: `${route.method} ${path}`, status: answer.status, errors: answer.body.errors }).toEqual({
            route: `${route.method} ${path}`,
            status: 400,
            errors: [expect.objectContaining({ status: '400', code: 'bad_request', meta: { reason: 'unstorable_text' } })],
          });
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(20);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('encodings that decode to no text (an overlong NUL, a lone surrogate) name no path: 404', async () => {
    for (const raw of ['%C0%80', '%ED%A0%80', 'x%ED%B0%80']) {
      const answer = await get(`/api/v2/events/${raw}`);
      expect(answer.status).toBe(404);
    }
  });

  test('assets answer a NUL in a file name as any wrong name: 404', async () => {
    const answer = await send({ method: 'GET', target: '/api/v2/assets/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/a%00.png' });
    expect(answer.status).toBe(404);
  });
});

describe('query parameters', () => {
  test('NUL in the name or the value of any parameter of any read: 400 naming it', async () => {
    const targets = [
      '/api/v2/',
      '/api/v2/schema',
      '/api/v2/commands/schema',
      '/api/v2/events',
      '/api/v2/events/jazz-night',
      '/api/v2/cms/site-a/pages',
      '/api/v2/cms/site-a/settings',
    ];
    for (const target of targets) {
      expectParameterRefused(await get(`${target}?locale=%00`), 'locale', 'unstorable_text');
      expectParameterRefused(await get(`${target}?filter%5Btitle%5D=a%00b`), 'filter[title]', 'unstorable_text');
      expectParameterRefused(await get(`${target}?x%00=1`), 'x\u0000', 'unstorable_text');
    }
  });

  /** Every key a collection of this resource filters by, with how its values are typed. */
  const filterable = (resource: Resource): [string, FilterTarget][] => [
    ...resource.fields.flatMap((field): [string, FilterTarget][] => {
      const target = filterTargetOf(field);
      return target ? [[field.key, target]] : [];
    }),
    ...SYSTEM_FILTER_TARGETS,
  ];

  test('every filterable field of every resource, every operator: a value with NUL is 400', async () => {
    for (const resource of collections()) {
      for (const [key, target] of filterable(resource)) {
        for (const op of FILTER_OPERATORS.filter((candidate) => operatorApplies(candidate, target.type))) {
          const parameter = `filter[${key}][${op}]`;
          expectParameterRefused(await get(`${pathOf(resource)}?${encodeURIComponent(parameter)}=a%00b`), parameter, 'unstorable_text');
        }
      }
    }
  });

  const DATES_OUT = ['0000-01-01', '0000-12-31', '10000-01-01'];
  const DATETIMES_OUT = [
    '0000-01-01',
    '0000-12-31T23:59:59Z',
    '0001-01-01T00:30:00+01:00',
    '9999-12-31T23:30:00-01:00',
    '+010000-01-01T00:00:00Z',
  ];
  const DATES_IN = ['0001-01-01', '9999-12-31'];
  const DATETIMES_IN = ['0001-01-01', '0001-01-01T00:00:00Z', '0000-12-31T23:30:00-01:00', '9999-12-31T23:59:59.999Z'];
  const VALUE_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in'] as const;

  test('every date and date-time filter of every resource, every operator: outside 0001-9999 is 400, the edges are answered', async () => {
    let checked = 0;
    for (const resource of collections()) {
      for (const [key, target] of filterable(resource).filter(
        ([, candidate]) => candidate.type === 'date' || candidate.type === 'datetime',
      )) {
        const [outside, inside] = target.type === 'date' ? [DATES_OUT, DATES_IN] : [DATETIMES_OUT, DATETIMES_IN];
        for (const op of VALUE_OPERATORS) {
          const parameter = `filter[${key}][${op}]`;
          for (const value of outside) {
            expectParameterRefused(
              await get(`${pathOf(resource)}?${encodeURIComponent(parameter)}=${encodeURIComponent(value)}`),
              parameter,
              'filter_value_invalid',
            );
          }
          for (const value of inside) {
            const answer = await get(`${pathOf(resource)}?${encodeURIComponent(parameter)}=${encodeURIComponent(value)}`);
            expect({ parameter, value, status: answer.status }).toEqual({ parameter, value, status: 200 });
          }
          checked += 1;
        }
      }
    }
    // createdAt, updatedAt, publishedAt everywhere, and the content types' own dates.
    expect(checked).toBeGreaterThan(3 * VALUE_OPERATORS.length * collections().length);
  });

  test('every number filter of every resource: a value its column cannot hold is 400, the column edges are answered', async () => {
    for (const resource of collections()) {
      for (const [key, target] of filterable(resource).filter(([, candidate]) => candidate.type === 'number')) {
        const column = target.column!;
        const outside = column.integer ? [String(column.max + 1), String(column.min - 1), '1.5', '1e300'] : ['1e309'];
        const inside = column.integer ? [String(column.max), String(column.min), '0'] : ['1e300', '-1e300', '0.5'];
        for (const op of ['eq', 'gt', 'in'] as const) {
          const parameter = `filter[${key}][${op}]`;
          for (const value of outside)
            expectParameterRefused(
              await get(`${pathOf(resource)}?${encodeURIComponent(parameter)}=${value}`),
              parameter,
              'filter_value_invalid',
            );
          for (const value of inside)
            expect({
              parameter,
              value,
              status: (await get(`${pathOf(resource)}?${encodeURIComponent(parameter)}=${value}`)).status,
            }).toEqual({ parameter, value, status: 200 });
        }
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// Writes and commands: 422 on the value
// ---------------------------------------------------------------------------------------------------------

/** A value of the field's own shape carrying `text` where that shape carries text, and where it sits. */
const shaped = (type: string, text: string): { value: unknown; at: (string | number)[] } => {
  switch (type) {
    case 'tags':
      return { value: ['fine', text], at: [1] };
    case 'richtext':
      return {
        value: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] },
        at: ['content', 0, 'content', 0, 'text'],
      };
    case 'relations':
    case 'images':
    case 'files':
      return { value: [{ id: text }], at: [0, 'id'] };
    case 'relation':
      return { value: { slug: text }, at: ['slug'] };
    default:
      return { value: text, at: [] };
  }
};

/** The fields this key may write, as the resource's own `meta.fields` says. */
const writableFields = async (resource: Resource): Promise<{ key: string; type: string }[]> => {
  const fields = ((await get(pathOf(resource))).body as { meta: { fields: { key: string; type: string; writable: boolean }[] } }).meta
    .fields;
  return fields.filter((field) => field.writable);
};

/** Where a write to this resource goes: a POST to a collection, a PATCH of a singleton. */
const writeTo = (resource: Resource, attributes: Record<string, unknown>): RawRequest => ({
  method: resource.mode === 'collection' ? 'POST' : 'PATCH',
  target: pathOf(resource),
  body: JSON.stringify({ data: { type: resource.slug, attributes } }),
});

const expectValueRefused = (answer: Answer, pointer: string, reason: string) => {
  expect({ status: answer.status, errors: answer.body.errors }).toEqual({
    status: 422,
    errors: expect.arrayContaining([
      expect.objectContaining({ status: '422', code: 'unprocessable_entity', source: { pointer }, meta: { reason } }),
    ]),
  });
};

describe('writes', () => {
  test('every writable field of every resource: NUL or half a surrogate pair where its value holds text is 422 at that place, nothing written', async () => {
    const before = await tableSnapshot(s, UIDS);
    let checked = 0;
    for (const resource of resources) {
      for (const field of await writableFields(resource)) {
        for (const text of ['a\u0000b', '\u0000', 'x\ud800', '\udc00y']) {
          const { value, at } = shaped(field.type, text);
          const answer = await send(writeTo(resource, { [field.key]: value }));
          expectValueRefused(answer, attributePointer(field.key, ...at), 'unstorable_text');
          checked += 1;
        }
      }
      // PATCH of a record goes through the same judgement.
      if (resource.mode === 'collection' && records.has(resource.id)) {
        const field = (await writableFields(resource)).find((candidate) => candidate.type === 'string')!;
        const answer = await send({
          method: 'PATCH',
          target: `${pathOf(resource)}/${records.get(resource.id)}`,
          body: JSON.stringify({ data: { type: resource.slug, attributes: { [field.key]: 'a\u0000' } } }),
        });
        expectValueRefused(answer, attributePointer(field.key), 'unstorable_text');
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('every writable date and date-time of every resource: outside 0001-9999 (in UTC) is 422 at the field', async () => {
    const before = await tableSnapshot(s, UIDS);
    for (const resource of resources) {
      for (const field of (await writableFields(resource)).filter(
        (candidate) => candidate.type === 'date' || candidate.type === 'datetime',
      )) {
        const outside =
          field.type === 'date'
            ? ['0000-01-01', '0000-02-29', '10000-01-01']
            : ['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00', '+010000-01-01T00:00:00Z'];
        for (const value of outside)
          expectValueRefused(await send(writeTo(resource, { [field.key]: value })), attributePointer(field.key), 'value_invalid');
      }
    }
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('the edges of the range are stored and read back unchanged', async () => {
    const patch = async (target: string, type: string, attributes: Record<string, unknown>) => {
      const answer = await send({ method: 'PATCH', target, body: JSON.stringify({ data: { type, attributes } }) });
      expect({ status: answer.status, errors: answer.body.errors }).toEqual({ status: 200, errors: undefined });
      return (await get(target)).body.data as { attributes: Record<string, unknown> };
    };
    for (const startsAt of ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
      expect((await patch('/api/v2/events/jazz-night', 'events', { startsAt, endsAt: null })).attributes.startsAt).toBe(startsAt);
    }
    expect((await patch('/api/v2/events/jazz-night', 'events', { startsAt: '0000-12-31T23:30:00-01:00' })).attributes.startsAt).toBe(
      '0001-01-01T00:30:00.000Z',
    );
    expect(
      (await patch('/api/v2/festivals/summer-fest', 'festivals', { startsOn: '0001-01-01', endsOn: '9999-12-31' })).attributes,
    ).toMatchObject({ startsOn: '0001-01-01', endsOn: '9999-12-31' });
    expect((await patch('/api/v2/jobs/engineer', 'jobs', { closesOn: '9999-12-31' })).attributes.closesOn).toBe('9999-12-31');
  });
});

describe('commands', () => {
  const VALID: Record<string, Record<string, unknown>> = {
    'job-application': { job: 'engineer', name: 'Ada', email: 'ada@example.com', consent: true },
    'newsletter-signup': { email: 'ada@example.com', consent: true },
  };

  test('every text attribute of every command: NUL or half a surrogate pair is 422 at that place, nothing written, no lookup', async () => {
    const schemas = (await get('/api/v2/commands/schema')).body.data as {
      id: string;
      attributes: { inputSchema: { properties: Record<string, { type?: string; enum?: unknown[] }> } };
    }[];
    expect(schemas.map((command) => command.id).sort()).toEqual(Object.keys(VALID).sort());
    const before = await tableSnapshot(s, UIDS);
    let checked = 0;
    for (const command of schemas) {
      for (const [name, property] of Object.entries(command.attributes.inputSchema.properties)) {
        const takesText = property.type === 'string' || property.enum !== undefined;
        if (!takesText && property.type !== 'array') continue;
        for (const text of ['a\u0000b', 'x\ud800']) {
          const value = takesText ? text : ['fine', text];
          const body = JSON.stringify({ data: { type: command.id, attributes: { ...VALID[command.id], [name]: value } } });
          const answer = await send({ method: 'POST', target: `/api/v2/commands/${command.id}`, body });
          expectValueRefused(answer, takesText ? attributePointer(name) : attributePointer(name, 1), 'unstorable_text');
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2 * 8);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });
});
