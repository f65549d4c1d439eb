/**
 * Property: for random grants and random requests, nothing a key may not read ever leaves the server
 * (records, expanded relations at any depth, field metadata, errors), no sort, filter or include on an
 * unreadable field is accepted, and the order of results is explained by readable values alone.
 */
import fc from 'fast-check';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { ensureLocale, localize, publish } from '../helpers/fixtures';

let app: TestApp;

const FIELDS: Record<string, string[]> = {
  events: [
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
  ],
  buildings: ['name', 'slug', 'sort', 'address', 'city', 'floors', 'yearBuilt', 'accessible', 'description', 'images', 'events'],
  festivals: ['name', 'slug', 'sort', 'startsOn', 'endsOn', 'description', 'website', 'poster', 'events'],
};
const RELATIONS: Record<string, Record<string, string>> = {
  events: { venue: 'buildings', festival: 'festivals' },
  buildings: { events: 'events' },
  festivals: { events: 'events' },
};
const SYSTEM = ['slug', 'sort', 'createdAt', 'updatedAt', 'publishedAt'];
// Distinctive values, so that a leak of a field's value is visible in the text of a response.
const secretOf = (resource: string, field: string) => `S3CR3T-${resource}-${field}`;

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  await ensureLocale(s, 'de', 'German');
  const halls = [];
  for (let i = 0; i < 3; i += 1) {
    halls.push(
      await publish(s, 'api::building.building', {
        name: `${secretOf('buildings', 'name')}-${i}`,
        slug: `hall-${i}`,
        sort: i % 2 ? null : i,
        address: secretOf('buildings', 'address'),
        city: secretOf('buildings', 'city'),
        floors: 3 - i,
        yearBuilt: 1900 + i,
        accessible: i % 2 === 0,
      }),
    );
  }
  const fest = await publish(s, 'api::festival.festival', {
    name: secretOf('festivals', 'name'),
    slug: 'fest',
    startsOn: '2027-01-01',
    endsOn: '2027-01-02',
    website: 'https://fest.example/S3CR3T-festivals-website',
  });
  for (let i = 0; i < 9; i += 1) {
    const event = await publish(s, 'api::event.event', {
      title: `${secretOf('events', 'title')}-${i % 4}`,
      slug: `event-${i}`,
      sort: i % 3 === 0 ? null : i % 4,
      summary: secretOf('events', 'summary'),
      startsAt: new Date(Date.UTC(2027, 0, 1 + (i % 5))).toISOString(),
      category: ['talk', 'concert', 'film'][i % 3],
      tags: [secretOf('events', 'tags')],
      price: i % 4 === 0 ? null : (i * 3) % 7,
      soldOut: i % 2 === 0,
      capacity: (i * 13) % 5,
      venue: halls[i % 3]!.documentId,
      festival: i % 2 ? fest.documentId : null,
    });
    if (i % 3 === 0)
      await localize(s, 'api::event.event', event.documentId, 'de', {
        title: `${secretOf('events', 'title')}-de`,
        slug: `event-${i}-de`,
        startsAt: '2027-01-01T00:00:00.000Z',
        category: 'talk',
      });
  }
});
afterAll(async () => {
  await app?.close();
});

type Grants = Record<string, { actions: string[]; read: string[] }>;

const grantsArb: fc.Arbitrary<Grants> = fc.record({
  events: fc.record({ actions: fc.subarray(['read', 'create']), read: fc.subarray(FIELDS.events!) }),
  buildings: fc.record({ actions: fc.subarray(['read', 'create']), read: fc.subarray(FIELDS.buildings!) }),
  festivals: fc.record({ actions: fc.subarray(['read', 'create']), read: fc.subarray(FIELDS.festivals!) }),
});

const requestArb = fc.record({
  resource: fc.constantFrom('events', 'buildings', 'festivals'),
  sort: fc.array(fc.tuple(fc.constantFrom(...new Set([...FIELDS.events!, ...FIELDS.buildings!, ...SYSTEM, 'nosuch'])), fc.boolean()), {
    maxLength: 2,
  }),
  include: fc.array(
    fc.constantFrom('venue', 'festival', 'events', 'venue.events', 'festival.events.venue', 'events.festival', 'title', 'nosuch'),
    { maxLength: 2 },
  ),
  filters: fc.array(
    fc.tuple(
      fc.constantFrom('title', 'price', 'category', 'venue', 'city', 'floors', 'capacity', 'startsOn', 'slug', 'nosuch'),
      fc.constantFrom('eq', 'ne', 'gt', 'null', 'contains'),
      fc.constantFrom('1', 'talk', 'hall-0', 'true', '2027-01-01', 'S3'),
    ),
    { maxLength: 2 },
  ),
  limit: fc.integer({ min: 1, max: 4 }),
  locale: fc.constantFrom(null, 'en', 'de'),
});

type Doc = { type: string; id: string; attributes: Record<string, unknown>; meta: Record<string, unknown> };

const isRecord = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && 'type' in value && 'attributes' in value && 'meta' in value;

/** Every attribute of every record, at every depth, is readable for its resource. */
const assertOnlyReadable = (record: Doc, grants: Grants) => {
  const readable = new Set(grants[record.type]?.actions.includes('read') ? grants[record.type]!.read : []);
  for (const [key, value] of Object.entries(record.attributes)) {
    expect(readable.has(key)).toBe(true);
    for (const nested of Array.isArray(value) ? value : [value]) if (isRecord(nested)) assertOnlyReadable(nested, grants);
  }
};

/** How each field the requests filter on is typed for filters (the content types' schemas; slug is a system value). */
const FILTER_TYPES: Record<string, { type: 'string' | 'number' | 'select' | 'relation' | 'date'; accepts: (value: string) => boolean }> = {
  title: { type: 'string', accepts: () => true },
  city: { type: 'string', accepts: () => true },
  slug: { type: 'string', accepts: () => true },
  price: { type: 'number', accepts: (value) => /^-?\d+(\.\d+)?$/.test(value) },
  floors: { type: 'number', accepts: (value) => /^-?\d+$/.test(value) },
  capacity: { type: 'number', accepts: (value) => /^-?\d+$/.test(value) },
  category: { type: 'select', accepts: (value) => ['concert', 'exhibition', 'talk', 'workshop', 'theatre', 'film'].includes(value) },
  venue: { type: 'relation', accepts: (value) => value.length > 0 },
  startsOn: { type: 'date', accepts: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) },
};

type Problem = { parameter: string | undefined; reason: string | undefined };
const sortedProblems = (problems: Problem[]) =>
  [...problems].sort((a, b) => `${a.parameter} ${a.reason}`.localeCompare(`${b.parameter} ${b.reason}`));

/**
 * What the filters of a request whose fields may all be used are refused for (contract section 6): a
 * parameter given twice; an operator that does not apply to the field's type (ranges on numbers and
 * dates, substrings on text); a value the field's type cannot hold (`null` takes 'true' or 'false').
 */
const filterProblems = (filters: [string, string, string][]): Problem[] => {
  const names = filters.map(([field, op]) => `filter[${field}][${op}]`);
  const problems: Problem[] = [];
  filters.forEach(([field, op, value], index) => {
    const parameter = names[index]!;
    if (names.indexOf(parameter) !== index) return;
    if (names.lastIndexOf(parameter) !== index) {
      problems.push({ parameter, reason: 'parameter_repeated' });
      return;
    }
    const target = FILTER_TYPES[field]!;
    const applies = op === 'gt' ? ['number', 'date'].includes(target.type) : op === 'contains' ? target.type === 'string' : true;
    if (!applies) problems.push({ parameter, reason: 'filter_operator_invalid' });
    else if (op === 'null' ? !['true', 'false'].includes(value) : !target.accepts(value))
      problems.push({ parameter, reason: 'filter_value_invalid' });
  });
  return problems;
};

const compare = (a: unknown, b: unknown, descending: boolean) => {
  if (a === b) return 0;
  if (a === null || a === undefined) return descending ? -1 : 1;
  if (b === null || b === undefined) return descending ? 1 : -1;
  return (a < b ? -1 : 1) * (descending ? -1 : 1);
};

test('nothing unreadable leaves, nothing unreadable is accepted, the order is explained by readable values', async () => {
  await fc.assert(
    fc.asyncProperty(grantsArb, requestArb, async (grants, request) => {
      const key = await createKey(app.strapi, {
        resources: Object.fromEntries(Object.entries(grants).map(([slug, grant]) => [`native:${slug}`, grant])),
      });
      const params = new URLSearchParams();
      params.set('limit', String(request.limit));
      if (request.sort.length) params.set('sort', request.sort.map(([field, desc]) => `${desc ? '-' : ''}${field}`).join(','));
      if (request.include.length) params.set('include', request.include.join(','));
      for (const [field, op, value] of request.filters) params.append(`filter[${field}][${op}]`, value);
      if (request.locale) params.set('locale', request.locale);
      const res = await app.http().get(`/api/v2/${request.resource}?${params}`).set('Authorization', key.auth);
      expectValidJsonApi(res.body);

      const grant = grants[request.resource]!;
      const readable = new Set(grant.actions.includes('read') ? grant.read : []);
      const exposed = (slug: string) => grants[slug]!.actions.length > 0;
      const readableOf = (slug: string) => new Set(grants[slug]!.actions.includes('read') ? grants[slug]!.read : []);

      // Values of fields the key may not read never appear, whatever the status.
      for (const [slug, fields] of Object.entries(FIELDS)) {
        const visible = readableOf(slug);
        for (const field of fields) {
          if (!visible.has(field)) expect(res.text).not.toContain(secretOf(slug, field));
        }
      }

      if (!grant.actions.includes('read')) {
        expect(res.status).toBe(403);
        return;
      }
      const sortable = (field: string) =>
        SYSTEM.includes(field) ||
        (readable.has(field) &&
          !['tags', 'venue', 'festival', 'cover', 'body', 'description', 'images', 'events', 'poster', 'summary'].includes(field));
      const sortOk = request.sort.every(([field]) => sortable(field)) && new Set(request.sort.map(([f]) => f)).size === request.sort.length;
      const includeOk =
        request.include.every((path) => {
          let slug: string = request.resource;
          for (const segment of path.split('.')) {
            const target = RELATIONS[slug]?.[segment];
            if (!target || !readableOf(slug).has(segment) || !grants[target]!.actions.includes('read')) return false;
            slug = target;
          }
          return true;
        }) && new Set(request.include).size === request.include.length;
      const filterOk = request.filters.every(
        ([field]) =>
          ['slug'].includes(field) ||
          (readable.has(field) && (RELATIONS[request.resource]?.[field] === undefined || exposed(RELATIONS[request.resource]![field]!))),
      );
      if (!sortOk || !includeOk || !filterOk) {
        // Something unreadable (or unusable) was asked for: never answered with data.
        expect(res.status).toBe(400);
        return;
      }
      // Every field asked for may be used: a 400 now is for the filters' operators and values alone, each
      // named by its parameter, and a request without such a mistake is answered with data.
      const problems = filterProblems(request.filters);
      if (problems.length) {
        expect(res.status).toBe(400);
        const reported = (res.body.errors as { source?: { parameter?: string }; meta?: { reason?: string } }[]).map((error) => ({
          parameter: error.source?.parameter,
          reason: error.meta?.reason,
        }));
        expect(sortedProblems(reported)).toEqual(sortedProblems(problems));
        return;
      }
      expect(res.status).toBe(200);

      for (const meta of res.body.meta.fields as { key: string; readable: boolean }[]) {
        expect(readable.has(meta.key)).toBe(true);
      }
      for (const record of res.body.data as Doc[]) assertOnlyReadable(record, grants);

      // The order follows the requested (readable) keys, then the default, then id.
      const terms = request.sort.length ? request.sort : [['sort', false] as [string, boolean]];
      const valueOf = (record: Doc, field: string) =>
        SYSTEM.includes(field) && !(field in record.attributes) ? record.meta[field] : (record.attributes[field] ?? null);
      const data = res.body.data as Doc[];
      for (let i = 1; i < data.length; i += 1) {
        let result = 0;
        for (const [field, descending] of terms) {
          const a = valueOf(data[i - 1]!, field);
          const b = valueOf(data[i]!, field);
          result = compare(
            typeof a === 'object' && a !== null ? JSON.stringify(a) : a,
            typeof b === 'object' && b !== null ? JSON.stringify(b) : b,
            descending,
          );
          if (result !== 0) break;
        }
        if (result === 0) result = data[i - 1]!.id < data[i]!.id ? -1 : 1;
        expect(result).toBe(-1);
      }
    }),
    { numRuns: 150 },
  );
});
