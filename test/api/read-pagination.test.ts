/**
 * Keyset pagination and sort (contract section 5).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { draft, ensureLocale, localize, publish } from '../helpers/fixtures';
import { usingMariadb, usingPostgres } from '../helpers/database';

let app: TestApp;
type Key = Awaited<ReturnType<typeof createKey>>;
let reader: Key;
let other: Key;

const EVENT = 'api::event.event';
// Sort values with ties and nulls; prices with nulls too.
const SORTS = [3, 1, null, 2, 2, null, 5, 1, 4, 2, null, 3, 0, 7, 7, 6, null, 1, 2, 9, 8, 4, 3];

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  await ensureLocale(app.strapi, 'de', 'German');
  for (const [index, sort] of SORTS.entries()) {
    const doc = await publish(app.strapi, EVENT, {
      title: `Event ${String(index).padStart(2, '0')}`,
      slug: `event-${index}`,
      sort,
      price: index % 4 === 0 ? null : (index * 7) % 11,
      startsAt: new Date(Date.UTC(2027, 0, 1 + (index % 9))).toISOString(),
      category: index % 2 ? 'talk' : 'concert',
      capacity: 100 + index,
    });
    if (index % 5 === 0)
      await localize(app.strapi, EVENT, doc.documentId, 'de', {
        title: `Veranstaltung ${index}`,
        slug: `veranstaltung-${index}`,
        startsAt: '2027-01-01T00:00:00.000Z',
        category: 'talk',
      });
  }
  await draft(app.strapi, EVENT, {
    title: 'Draft only',
    slug: 'draft-only',
    sort: 1,
    startsAt: '2027-01-01T00:00:00.000Z',
    category: 'talk',
  });
  const grants = { resources: { 'native:events': { actions: ['read'], read: ['title', 'price', 'startsAt', 'category'] } } };
  reader = await createKey(app.strapi, grants);
  other = await createKey(app.strapi, grants);
});
afterAll(async () => {
  await app?.close();
});

type Record_ = { id: string; attributes: Record<string, unknown>; meta: { sort: number | null; slug: string } };

const get = async (key: Key, path: string) => {
  const res = await app.http().get(path).set('Authorization', key.auth);
  expectValidJsonApi(res.body);
  return res;
};

/** Follows links.next to the end; returns every record and the URLs visited. */
const walk = async (key: Key, path: string, between?: (page: number, seen: Record_[]) => Promise<void>) => {
  const records: Record_[] = [];
  const urls: string[] = [];
  let next: string | undefined = path;
  for (let page = 0; next; page += 1) {
    const url: string = next.startsWith('http') ? new URL(next).pathname + new URL(next).search : next;
    urls.push(url);
    const res = await get(key, url);
    expect(res.status).toBe(200);
    records.push(...res.body.data);
    next = res.body.links.next;
    expect(res.body.meta.page.nextCursor === null).toBe(next === undefined);
    if (next && between) await between(page, records);
    if (page > 200) throw new Error('runaway pagination');
  }
  return { records, urls };
};

/** Nulls last ascending and first descending, then id ascending. */
const compare = (a: unknown, b: unknown, direction: 1 | -1) => {
  if (a === b) return 0;
  if (a === null || a === undefined) return direction === 1 ? 1 : -1;
  if (b === null || b === undefined) return direction === 1 ? -1 : 1;
  return (a < b ? -1 : 1) * direction;
};
const expectOrdered = (records: Record_[], keys: [(r: Record_) => unknown, 1 | -1][]) => {
  for (let i = 1; i < records.length; i += 1) {
    let result = 0;
    for (const [value, direction] of keys) {
      result = compare(value(records[i - 1]!), value(records[i]!), direction);
      if (result !== 0) break;
    }
    if (result === 0) result = records[i - 1]!.id < records[i]!.id ? -1 : 1;
    expect(result).toBe(-1);
  }
};

test('default order: sort ascending with nulls last, then id; every record exactly once', async () => {
  const { records, urls } = await walk(reader, '/api/v2/events?limit=5');
  expect(urls).toHaveLength(5);
  expect(records).toHaveLength(SORTS.length);
  expect(new Set(records.map((r) => r.id)).size).toBe(SORTS.length);
  expectOrdered(records, [[(r) => r.meta.sort, 1]]);
  expect(records.map((r) => r.meta.sort)).toEqual([...SORTS].sort((a, b) => compare(a, b, 1)));
  expect(records.map((r) => r.attributes.title)).not.toContain('Draft only');
});

test.each([
  ['-sort', [[(r: Record_) => r.meta.sort, -1]]],
  ['price', [[(r: Record_) => r.attributes.price, 1]]],
  [
    '-price,title',
    [
      [(r: Record_) => r.attributes.price, -1],
      [(r: Record_) => r.attributes.title, 1],
    ],
  ],
  [
    'startsAt,-sort',
    [
      [(r: Record_) => r.attributes.startsAt, 1],
      [(r: Record_) => r.meta.sort, -1],
    ],
  ],
  [
    'category,-createdAt',
    [
      [(r: Record_) => r.attributes.category, 1],
      [(_r: Record_) => 0, 1],
    ],
  ],
  ['-slug', [[(r: Record_) => r.meta.slug, -1]]],
] as [string, [(r: Record_) => unknown, 1 | -1][]][])('sort=%s walks every record once, in order', async (sort, keys) => {
  for (const limit of [1, 4, 100]) {
    const { records } = await walk(reader, `/api/v2/events?sort=${encodeURIComponent(sort)}&limit=${limit}`);
    expect(records).toHaveLength(SORTS.length);
    expect(new Set(records.map((r) => r.id)).size).toBe(SORTS.length);
    if (!sort.includes('createdAt')) expectOrdered(records, keys);
  }
});

test('links.next repeats every parameter of the request with the new cursor', async () => {
  const res = await get(reader, '/api/v2/events?sort=-price&limit=3&locale=en&filter%5Bcategory%5D=talk');
  const next = new URL(res.body.links.next);
  expect(next.pathname).toBe('/api/v2/events');
  expect([...next.searchParams.entries()]).toEqual([
    ['sort', '-price'],
    ['limit', '3'],
    ['locale', 'en'],
    ['filter[category]', 'talk'],
    ['cursor', res.body.meta.page.nextCursor],
  ]);
  // The last page has neither links.next nor a cursor.
  const last = await get(reader, '/api/v2/events?limit=100');
  expect(last.body.links.next).toBeUndefined();
  expect(last.body.meta.page.nextCursor).toBeNull();
});

test('pages in another locale walk that locale only', async () => {
  const { records } = await walk(reader, '/api/v2/events?locale=de&limit=2');
  expect(records.map((r) => r.attributes.title)).toEqual(expect.arrayContaining(['Veranstaltung 0']));
  expect(records).toHaveLength(SORTS.filter((_, i) => i % 5 === 0).length);
});

test('records created, changed and deleted between pages: none repeated, none of the untouched skipped', async () => {
  const before = (await walk(reader, '/api/v2/events?limit=100')).records;
  const documents = app.strapi.documents(EVENT as never);
  let created = 0;
  const deleted = new Set<string>();
  const changed = new Set<string>();
  const { records } = await walk(reader, '/api/v2/events?limit=4', async (page, seenSoFar) => {
    // A new record on every page, in every region of the order.
    await publish(app.strapi, EVENT, {
      title: `New ${page}`,
      slug: `new-${page}`,
      sort: page % 3 === 0 ? null : page,
      startsAt: '2027-02-01T00:00:00.000Z',
      category: 'talk',
    });
    created += 1;
    // Delete one record that was not read yet, and move another one.
    const seen = new Set(seenSoFar.map((r) => r.id));
    const unseen = before.filter((r) => !deleted.has(r.id) && !changed.has(r.id) && !seen.has(r.id));
    if (unseen.length > 2) {
      const victim = unseen[unseen.length - 1]!;
      await documents.delete({ documentId: victim.id } as never);
      deleted.add(victim.id);
      const moved = unseen[0]!;
      await documents.update({ documentId: moved.id, data: { sort: 100 }, status: 'published' } as never);
      changed.add(moved.id);
    }
  });
  const ids = records.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  const untouched = before.filter((r) => !deleted.has(r.id) && !changed.has(r.id));
  for (const record of untouched) expect(ids).toContain(record.id);
  for (const id of deleted) expect(ids).not.toContain(id);
  expect(created).toBeGreaterThan(3);
});

describe('cursor errors: 400 with source.parameter cursor', () => {
  let cursor: string;
  beforeAll(async () => {
    cursor = (await get(reader, '/api/v2/events?limit=2&sort=-price')).body.meta.page.nextCursor;
  });

  const expectCursorError = async (key: Key, path: string, reason: string) => {
    const res = await get(key, path);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'bad_request', source: { parameter: 'cursor' }, meta: { reason } });
  };

  test('tampered', async () => {
    const flipped = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
    await expectCursorError(reader, `/api/v2/events?limit=2&sort=-price&cursor=${flipped}`, 'cursor_invalid');
    await expectCursorError(reader, `/api/v2/events?limit=2&sort=-price&cursor=${cursor.slice(0, -1)}`, 'cursor_invalid');
    await expectCursorError(reader, '/api/v2/events?cursor=garbage', 'cursor_invalid');
  });

  test('foreign: issued to another key', async () => {
    await expectCursorError(other, `/api/v2/events?limit=2&sort=-price&cursor=${cursor}`, 'cursor_mismatch');
  });

  test('mismatched: other sort, filter or locale', async () => {
    await expectCursorError(reader, `/api/v2/events?limit=2&sort=price&cursor=${cursor}`, 'cursor_mismatch');
    await expectCursorError(reader, `/api/v2/events?limit=2&sort=-price&filter[category]=talk&cursor=${cursor}`, 'cursor_mismatch');
    await expectCursorError(reader, `/api/v2/events?limit=2&sort=-price&locale=de&cursor=${cursor}`, 'cursor_mismatch');
  });

  test('another limit with the same cursor is fine', async () => {
    const res = await get(reader, `/api/v2/events?limit=7&sort=-price&cursor=${cursor}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(7);
  });

  test('expired after 24 hours', async () => {
    const now = Date.now();
    const spy = jest.spyOn(Date, 'now').mockReturnValue(now + 24 * 3600 * 1000 + 60_000);
    try {
      await expectCursorError(reader, `/api/v2/events?limit=2&sort=-price&cursor=${cursor}`, 'cursor_expired');
    } finally {
      spy.mockRestore();
    }
  });
});

describe('limit and sort errors', () => {
  test.each(['0', '101', 'abc', '1.5', '-1', ''])('limit=%s is 400', async (limit) => {
    const res = await get(reader, `/api/v2/events?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'limit' });
  });

  test('limit defaults to 25 and accepts 1 and 100', async () => {
    const total = (await walk(reader, '/api/v2/events?limit=100')).records.length;
    expect((await get(reader, '/api/v2/events')).body.data).toHaveLength(Math.min(25, total));
    expect((await get(reader, '/api/v2/events?limit=1')).body.data).toHaveLength(1);
    expect((await get(reader, '/api/v2/events?limit=100')).status).toBe(200);
  });

  test('an unreadable field and a missing one get the same answer', async () => {
    const unreadable = await get(reader, '/api/v2/events?sort=capacity');
    const missing = await get(reader, '/api/v2/events?sort=nosuchfield');
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.errors[0].source).toEqual({ parameter: 'sort' });
    const strip = (body: { errors: { detail: string }[] }) =>
      body.errors.map((e) => ({ ...e, detail: e.detail.replace(/capacity|nosuchfield/g, 'X') }));
    expect(strip(unreadable.body)).toEqual(strip(missing.body));
  });

  test.each(['venue', 'title,title', '-', 'title,', 'body'])('sort=%s is 400', async (sort) => {
    const res = await get(reader, `/api/v2/events?sort=${encodeURIComponent(sort)}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'sort' });
  });

  test('long free text is not sortable', async () => {
    const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title', 'summary'] } } });
    const res = await get(key, '/api/v2/events?sort=summary');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'sort' });
    const fields = (await get(key, '/api/v2/events')).body.meta.fields as { key: string; sortable: boolean }[];
    expect(fields.find((f) => f.key === 'summary')).toMatchObject({ sortable: false });
    expect(fields.find((f) => f.key === 'title')).toMatchObject({ sortable: true });
  });

  // SQLite only, skipped (and reported so) on PostgreSQL: its varchar(255) refuses such a slug in the first place.
  // PostgreSQL's and MariaDB's varchar(255) refuse the value first (strict mode on MariaDB).
  (usingPostgres() || usingMariadb() ? test.skip : test)(
    'a sort value too long for a cursor is a 400 on sort, never a 500 (SQLite)',
    async () => {
      const knex = app.strapi.db.connection as unknown as {
        (table: string): { where: (c: string, v: string) => { update: (d: object) => Promise<number> } };
      };
      await knex('events')
        .where('slug', 'event-0')
        .update({ slug: `zzz-${'x'.repeat(5000)}` });
      const res = await get(reader, '/api/v2/events?sort=-slug&limit=1');
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ source: { parameter: 'sort' }, meta: { reason: 'sort_value_too_long' } });
    },
  );

  test('unknown parameters are 400 naming them', async () => {
    const res = await get(reader, '/api/v2/events?page[number]=2');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter: 'page[number]' });
  });
});
