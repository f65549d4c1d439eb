/**
 * Locale fallback (contract section 15, issue 17): `locale=de,fr,en` answers each record in the first
 * listed locale it exists in, with `meta.locale`; paging stays exact (one record per document, none twice,
 * none skipped) also when the sort values differ by locale; the cursor is bound to the list's order; one
 * statement per page whatever its size.
 */
import type { Knex } from 'knex';
import { bootApp, type TestApp } from '../helpers/app';
import { usingMariadb, usingPostgres } from '../helpers/database';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { ensureLocale, localize, publish, website } from '../helpers/fixtures';

let app: TestApp;
type Key = { auth: string };
let key: Key;

const LOCALES = ['en', 'de', 'fr'] as const;
type Locale = (typeof LOCALES)[number];

/** Per document: its title in each locale it exists in. Titles differ in order from one locale to the next. */
type Doc = { id: string; titles: Partial<Record<Locale, string>> };
const docs: Doc[] = [];

const EVENT = 'api::event.event';
const DOCUMENTS = 14;

/** A deterministic, locale-dependent title: the order of documents by title differs in each locale. */
/**
 * A statement of the read that reads records or their links: one that reads buildings or events, from or
 * joined. (MariaDB's reference lists start from the join table and join the records: read/first-links.ts.)
 */
const READS_CONTENT = /^select .* (from|join) [`"](buildings|events)[`"]/i;

const titleOf = (index: number, locale: Locale) => {
  const rank = { en: index, de: (index * 5) % DOCUMENTS, fr: DOCUMENTS - 1 - index }[locale];
  return `${locale}-${String(rank).padStart(2, '0')}-${index}`;
};

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  await ensureLocale(s, 'de', 'German');
  await ensureLocale(s, 'fr', 'French');
  for (let index = 0; index < DOCUMENTS; index += 1) {
    // Each document exists in a non-empty subset of the locales (bits 1..7 of index % 7 + 1), created in the first.
    const mask = (index % 7) + 1;
    const present = LOCALES.filter((_, bit) => mask & (1 << bit));
    const [first, ...rest] = present;
    const base = { sort: index, startsAt: '2027-06-01T19:30:00.000Z', category: 'concert' };
    const created = await publish(s, EVENT, { ...base, title: titleOf(index, first!), slug: `e${index}-${first}` }, first);
    for (const locale of rest)
      await localize(s, EVENT, created.documentId, locale, { ...base, title: titleOf(index, locale), slug: `e${index}-${locale}` });
    docs.push({ id: created.documentId, titles: Object.fromEntries(present.map((locale) => [locale, titleOf(index, locale)])) });
  }
  key = await createKey(s, { resources: { 'native:events': { actions: ['read'], read: ['title', 'sort'] } } });
});

afterAll(async () => {
  await app?.close();
});

const get = async (path: string, status = 200) => {
  const res = await app.http().get(path).set('Authorization', key.auth);
  if (res.status !== status) throw new Error(`${path}: expected ${status}, got ${res.status}\n${res.text}`);
  expectValidJsonApi(res.body);
  return res.body;
};

type Answer = { id: string; locale: string; title: string };

/** What a list read must answer: each document in its first listed locale, in the order of `sort`. */
const expected = (list: Locale[], sort: 'title' | '-title' | 'sort'): Answer[] => {
  const chosen = docs.flatMap((doc, index) => {
    const locale = list.find((code) => doc.titles[code] !== undefined);
    return locale ? [{ id: doc.id, locale, title: doc.titles[locale]!, index }] : [];
  });
  chosen.sort((a, b) => {
    if (sort === 'sort') return a.index - b.index;
    const order = a.title < b.title ? -1 : a.title > b.title ? 1 : 0;
    return sort === 'title' ? order : -order;
  });
  return chosen.map(({ id, locale, title }) => ({ id, locale, title }));
};

type RecordObject = { id: string; attributes: { title: string }; meta: { locale?: string } };

/** Every page of a read, following links.next, with a page size drawn per page. */
const readAll = async (query: string, sizes: () => number): Promise<Answer[]> => {
  const answers: Answer[] = [];
  let next: string | null = `/api/v2/events?${query}&limit=${sizes()}`;
  for (let pages = 0; next !== null; pages += 1) {
    if (pages > 100) throw new Error('More pages than records: paging does not advance.');
    const body = await get(next);
    for (const record of body.data as RecordObject[]) {
      answers.push({ id: record.id, locale: record.meta.locale!, title: record.attributes.title });
    }
    const link: string | undefined = body.links.next;
    next = link ? `${new URL(link).pathname}${new URL(link).search.replace(/limit=\d+/, `limit=${sizes()}`)}` : null;
  }
  return answers;
};

/** A small deterministic generator (no flaky seeds): page sizes 1 to 4. */
const sizesFrom = (seed: number) => {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return (state % 4) + 1;
  };
};

describe('collections', () => {
  const lists: Locale[][] = [['de', 'en'], ['fr', 'de', 'en'], ['en', 'fr'], ['de', 'fr'], ['fr']];
  for (const list of lists) {
    for (const sort of ['title', '-title', 'sort'] as const) {
      test(`locale=${list.join(',')}&sort=${sort}: each document once, in its first listed locale, exact across pages`, async () => {
        const want = expected(list, sort);
        for (const seed of [1, 7, 42]) {
          const got = await readAll(`locale=${list.join(',')}&sort=${sort}`, sizesFrom(seed));
          if (list.length === 1) {
            // A single locale keeps its answers as before: no meta.locale.
            expect(got.map(({ id, title }) => ({ id, title }))).toEqual(want.map(({ id, title }) => ({ id, title })));
            expect(got.every((answer) => answer.locale === undefined)).toBe(true);
          } else {
            expect(got).toEqual(want);
          }
        }
      });
    }
  }

  test('filters match the chosen row (its locale values)', async () => {
    const body = await get('/api/v2/events?locale=de,en&filter[title][startsWith]=en-&limit=100');
    const want = expected(['de', 'en'], 'sort').filter((answer) => answer.locale === 'en');
    expect(want.length).toBeGreaterThan(0);
    expect((body.data as RecordObject[]).map((record) => record.id).sort()).toEqual(want.map((answer) => answer.id).sort());
  });

  test('the cursor is bound to the order of the list', async () => {
    const first = await get('/api/v2/events?locale=de,en&limit=2');
    const cursor: string = first.meta.page.nextCursor;
    expect(cursor).toBeTruthy();
    await get(`/api/v2/events?locale=de,en&limit=2&cursor=${cursor}`);
    for (const other of ['en,de', 'de', 'de,en,fr']) {
      const refused = await get(`/api/v2/events?locale=${other}&limit=2&cursor=${cursor}`, 400);
      expect(refused.errors[0]).toMatchObject({ source: { parameter: 'cursor' }, meta: { reason: 'cursor_mismatch' } });
    }
  });

  test.each([
    ['de,xx', 'locale_unknown'],
    ['de,', 'locale_unknown'],
    ['de,DE', 'locale_repeated'],
    ['en,de,fr,en,de,fr', 'locale_list_too_long'],
  ])('locale=%s is refused (%s)', async (list, reason) => {
    const refused = await get(`/api/v2/events?locale=${list}`, 400);
    expect(refused.errors[0]).toMatchObject({ source: { parameter: 'locale' }, meta: { reason } });
    const single = await get(`/api/v2/events/${docs[0]!.id}?locale=${list}`, 400);
    expect(single.errors[0]).toMatchObject({ source: { parameter: 'locale' }, meta: { reason } });
  });
});

describe('single records', () => {
  test('each document in its first listed locale, else 404', async () => {
    for (const list of [['de', 'en'], ['fr', 'de'], ['de']] as Locale[][]) {
      for (const doc of docs) {
        const locale = list.find((code) => doc.titles[code] !== undefined);
        const path = `/api/v2/events/${doc.id}?locale=${list.join(',')}`;
        if (!locale) {
          await get(path, 404);
          continue;
        }
        const body = await get(path);
        expect(body.data.attributes.title).toBe(doc.titles[locale]);
        expect(body.data.meta.locale).toBe(list.length > 1 ? locale : undefined);
      }
    }
  });

  test('by slug: the slug of the chosen row', async () => {
    const doc = docs.find((candidate) => candidate.titles.de && candidate.titles.en)!;
    const index = docs.indexOf(doc);
    expect((await get(`/api/v2/events/e${index}-de?locale=de,en`)).data.id).toBe(doc.id);
    // The en row is not the one answered when a de row exists.
    await get(`/api/v2/events/e${index}-en?locale=de,en`, 404);
    expect((await get(`/api/v2/events/e${index}-en?locale=en,de`)).data.meta.locale).toBe('en');
  });
});

describe('drafts (status=draft, preview keys)', () => {
  test('a draft-only translation is the chosen row on draft reads, not on published ones', async () => {
    const s = app.strapi;
    const created = await publish(
      s,
      EVENT,
      { title: 'en-zz-draft', slug: 'draft-fallback-en', sort: 99, startsAt: '2027-06-01T19:30:00.000Z', category: 'talk' },
      'en',
    );
    // A German draft that was never published.
    await s.documents(EVENT as never).update({
      documentId: created.documentId,
      locale: 'de',
      data: {
        title: 'de-zz-draft',
        slug: 'draft-fallback-de',
        sort: 99,
        startsAt: '2027-06-01T19:30:00.000Z',
        category: 'talk',
      } as never,
    } as never);
    const preview = await createKey(s, { resources: { 'native:events': { actions: ['read'], read: ['title'] } } }, { preview: true });
    const read = async (auth: string, path: string) => {
      const res = await app.http().get(path).set('Authorization', auth);
      expect(res.status).toBe(200);
      return res.body;
    };
    const drafted = await read(preview.auth, `/api/v2/events/${created.documentId}?locale=de,en&status=draft`);
    expect([drafted.data.attributes.title, drafted.data.meta.locale, drafted.data.meta.status]).toEqual(['de-zz-draft', 'de', 'draft']);
    const published = await read(preview.auth, `/api/v2/events/${created.documentId}?locale=de,en`);
    expect([published.data.attributes.title, published.data.meta.locale]).toEqual(['en-zz-draft', 'en']);
    // Collections alike: the draft read finds it by its German title, the published read by its English one.
    const draftPage = await read(preview.auth, '/api/v2/events?locale=de,en&status=draft&filter[title][startsWith]=de-zz');
    expect(draftPage.data.map((record: RecordObject) => [record.id, record.meta.locale])).toEqual([[created.documentId, 'de']]);
    expect((await read(preview.auth, '/api/v2/events?locale=de,en&filter[title][startsWith]=de-zz')).data).toEqual([]);
    const publishedPage = await read(preview.auth, '/api/v2/events?locale=de,en&filter[title][startsWith]=en-zz');
    expect(publishedPage.data.map((record: RecordObject) => [record.id, record.meta.locale])).toEqual([[created.documentId, 'en']]);
  });
});

/**
 * References and `include` (issue 17): a target document of a localized resource is shown in the first
 * listed locale it has a visible row in, whichever locale the link names; expanded records say which in
 * `meta.locale`. Buildings are not localized, their events are.
 */
describe('include and references', () => {
  const BUILDING = 'api::building.building';
  const BUILDINGS = 9;
  /** Per building: its events, each with the locales it exists in (published). */
  const venues: { id: string; events: { id: string; titles: Partial<Record<Locale, string>> }[] }[] = [];
  let reader: Key;

  beforeAll(async () => {
    const s = app.strapi;
    const base = { startsAt: '2027-06-01T19:30:00.000Z', category: 'concert' };
    for (let b = 0; b < BUILDINGS; b += 1) {
      const building = await publish(s, BUILDING, { name: `Venue ${b}`, slug: `venue-${b}` });
      const events = [];
      // One event in de and en, one in en only, one in fr only: de,en shows the first in de, the second in en.
      for (const [tag, present] of [
        ['both', ['en', 'de']],
        ['en', ['en']],
        ['fr', ['fr']],
      ] as const) {
        const title = (locale: Locale) => `${locale}-venue-${b}-${tag}`;
        const [first, ...rest] = present;
        const created = await publish(
          s,
          EVENT,
          { ...base, venue: building.documentId, title: title(first), slug: `v${b}-${tag}-${first}` },
          first,
        );
        for (const locale of rest)
          await localize(s, EVENT, created.documentId, locale, {
            ...base,
            venue: building.documentId,
            title: title(locale),
            slug: `v${b}-${tag}-${locale}`,
          });
        events.push({ id: created.documentId, titles: Object.fromEntries(present.map((locale) => [locale, title(locale)])) });
      }
      venues.push({ id: building.documentId, events });
    }
    reader = await createKey(s, {
      resources: {
        'native:buildings': { actions: ['read'], read: ['name', 'events'] },
        'native:events': { actions: ['read'], read: ['title', 'venue'] },
      },
    });
  });

  type Expanded = { id: string; attributes: { title: string }; meta: { locale?: string } };
  const getAs = async (auth: string, path: string) => {
    const res = await app.http().get(path).set('Authorization', auth);
    if (res.status !== 200) throw new Error(`${path}: expected 200, got ${res.status}\n${res.text}`);
    expectValidJsonApi(res.body);
    return res.body;
  };
  /** Each building's events as the list `list` must show them: each in its first listed locale, or absent. */
  const want = (list: Locale[]) =>
    Object.fromEntries(
      venues.map((venue) => [
        venue.id,
        venue.events
          .flatMap((event) => {
            const locale = list.find((code) => event.titles[code] !== undefined);
            return locale ? [{ id: event.id, title: event.titles[locale]!, locale }] : [];
          })
          .sort((a, b) => a.id.localeCompare(b.id)),
      ]),
    );
  const shown = (body: { data: { id: string; attributes: { events: Expanded[] } }[] }) =>
    Object.fromEntries(
      body.data
        .filter((building) => venues.some((venue) => venue.id === building.id))
        .map((building) => [
          building.id,
          building.attributes.events
            .map((event) => ({ id: event.id, title: event.attributes.title, locale: event.meta.locale }))
            .sort((a, b) => a.id.localeCompare(b.id)),
        ]),
    );

  for (const list of [
    ['de', 'en'],
    ['fr', 'de', 'en'],
    ['en', 'fr'],
  ] as Locale[][]) {
    test(`locale=${list.join(',')}: a building's events are included each in its first listed locale, with meta.locale`, async () => {
      const body = await getAs(reader.auth, `/api/v2/buildings?locale=${list.join(',')}&include=events&limit=100`);
      expect(shown(body)).toEqual(want(list));
      // References (not expanded) name the same documents.
      const plain = await getAs(reader.auth, `/api/v2/buildings?locale=${list.join(',')}&limit=100`);
      for (const building of plain.data as { id: string; attributes: { events: { id: string }[] } }[]) {
        const expected = want(list)[building.id];
        if (!expected) continue;
        expect(building.attributes.events.map((ref) => ref.id).sort()).toEqual(expected.map((event) => event.id));
      }
    });
  }

  test('a single code keeps its answers: the events in that locale only, no meta.locale', async () => {
    const body = await getAs(reader.auth, '/api/v2/buildings?locale=de&include=events&limit=100');
    const expected = want(['de']);
    expect(shown(body)).toEqual(
      Object.fromEntries(
        Object.entries(expected).map(([id, events]) => [
          id,
          events.map(({ id: event, title }) => ({ id: event, title, locale: undefined })),
        ]),
      ),
    );
  });

  test("an event answered in en includes its venue's events by the list (nested include)", async () => {
    const venue = venues[0]!;
    const enOnly = venue.events[1]!;
    const body = await getAs(reader.auth, `/api/v2/events/${enOnly.id}?locale=de,en&include=venue.events`);
    expect(body.data.meta.locale).toBe('en');
    const nested = body.data.attributes.venue.attributes.events as Expanded[];
    expect(
      nested
        .map((event) => ({ id: event.id, title: event.attributes.title, locale: event.meta.locale }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    ).toEqual(want(['de', 'en'])[venue.id]);
  });

  test('a localized owner answered in en (a homepage) reads its own links, its events shown by the list', async () => {
    const s = app.strapi;
    const venue = venues[3]!;
    const [both, enOnly] = venue.events;
    await website(s, 'fallback-site', [{ collection: 'home', contentType: 'api::homepage.homepage', mode: 'singleton' }]);
    // The homepage exists in en only: its en row links the events' en rows.
    await publish(s, 'api::homepage.homepage', { headline: 'Welcome', featuredEvents: [both!.id, enOnly!.id] }, 'en');
    const home = await createKey(s, {
      resources: {
        'cms:fallback-site/home': { actions: ['read'], read: ['headline', 'featuredEvents'] },
        'native:events': { actions: ['read'], read: ['title'] },
      },
    });
    const body = await getAs(home.auth, '/api/v2/cms/fallback-site/home?locale=de,en&include=featuredEvents');
    expect(body.data.meta.locale).toBe('en');
    const featured = (body.data.attributes.featuredEvents as Expanded[]).map((event) => [
      event.id,
      event.attributes.title,
      event.meta.locale,
    ]);
    expect(featured).toEqual([
      [both!.id, both!.titles.de, 'de'],
      [enOnly!.id, enOnly!.titles.en, 'en'],
    ]);
    const references = await getAs(home.auth, '/api/v2/cms/fallback-site/home?locale=de,en');
    expect(references.data.attributes.featuredEvents.map((ref: { id: string }) => ref.id)).toEqual([both!.id, enOnly!.id]);
  });

  test('preview: a draft-only translation of an event is the included row on draft reads only', async () => {
    const s = app.strapi;
    const venue = venues[1]!;
    const event = venue.events[1]!; // published in en only
    await s.documents(EVENT as never).update({
      documentId: event.id,
      locale: 'de',
      data: {
        title: 'de-venue-draft',
        slug: 'venue-draft-de',
        venue: venue.id,
        startsAt: '2027-06-01T19:30:00.000Z',
        category: 'concert',
      } as never,
    } as never);
    const preview = await createKey(
      s,
      {
        resources: {
          'native:buildings': { actions: ['read'], read: ['name', 'events'] },
          'native:events': { actions: ['read'], read: ['title'] },
        },
      },
      { preview: true },
    );
    const pick = (body: { data: { id: string; attributes: { events: Expanded[] } }[] }) =>
      body.data.find((building) => building.id === venue.id)!.attributes.events.find((included) => included.id === event.id);
    const drafted = pick(await getAs(preview.auth, '/api/v2/buildings?locale=de,en&include=events&status=draft&limit=100'));
    expect([drafted?.attributes.title, drafted?.meta.locale]).toEqual(['de-venue-draft', 'de']);
    const published = pick(await getAs(preview.auth, '/api/v2/buildings?locale=de,en&include=events&limit=100'));
    expect([published?.attributes.title, published?.meta.locale]).toEqual([event.titles.en, 'en']);
  });

  /**
   * Relation filters (issue 17): a target is matched as references show it, on its document's row in the
   * first listed locale it has, whichever locale the owner's link names; not on its row in the first
   * listed locale only.
   */
  describe('relation filters follow the list', () => {
    const ids = (body: { data: { id: string }[] }) => body.data.map((record) => record.id).sort();
    const buildingsWhere = async (query: string) =>
      ids(await getAs(reader.auth, `/api/v2/buildings?${query}&limit=100`)).filter((id) => venues.some((venue) => venue.id === id));

    test('a building is found by an event it shows only in a later locale (by id and by the slug shown)', async () => {
      const venue = venues[4]!;
      const [both, enOnly, frOnly] = venue.events;
      expect(await buildingsWhere(`locale=de,en&filter[events]=${enOnly!.id}`)).toEqual([venue.id]);
      expect(await buildingsWhere(`locale=de,en&filter[events]=v4-en-en`)).toEqual([venue.id]);
      // The event that has a German row is shown (and matched) by its German slug, not its English one.
      expect(await buildingsWhere(`locale=de,en&filter[events]=v4-both-de`)).toEqual([venue.id]);
      expect(await buildingsWhere(`locale=de,en&filter[events]=v4-both-en`)).toEqual([]);
      expect(await buildingsWhere(`locale=en,de&filter[events]=v4-both-en`)).toEqual([venue.id]);
      expect(await buildingsWhere(`locale=de,en&filter[events][in]=${both!.id},${enOnly!.id}`)).toEqual([venue.id]);
      // An event in none of the listed locales is shown by none, so it matches none.
      expect(await buildingsWhere(`locale=de,en&filter[events]=${frOnly!.id}`)).toEqual([]);
      expect(await buildingsWhere(`locale=fr,de&filter[events]=${frOnly!.id}`)).toEqual([venue.id]);
      // A single locale keeps its answer: the event has no German row.
      expect(await buildingsWhere(`locale=de&filter[events]=${enOnly!.id}`)).toEqual([]);
    });

    test('ne and null agree with the references each building shows', async () => {
      const venue = venues[5]!;
      const enOnly = venue.events[1]!;
      const all = venues.map((candidate) => candidate.id).sort();
      expect(await buildingsWhere(`locale=de,en&filter[events][ne]=${enOnly.id}`)).toEqual(all.filter((id) => id !== venue.id));
      expect(await buildingsWhere(`locale=de,en&filter[events][null]=false`)).toEqual(all);
      expect(await buildingsWhere(`locale=de,en&filter[events][null]=true`)).toEqual([]);
      // In French alone only the French-only events are shown; by fr,de the others too.
      expect(await buildingsWhere(`locale=fr&filter[events][ne]=${venue.events[2]!.id}`)).toEqual(all.filter((id) => id !== venue.id));
      expect(await buildingsWhere(`locale=fr,de&filter[events][ne]=${venue.events[0]!.id}`)).toEqual(all.filter((id) => id !== venue.id));
      expect(await buildingsWhere(`locale=fr&filter[events][ne]=${venue.events[0]!.id}`)).toEqual(all);
    });

    test('a localized owner answered in a later locale matches its target as shown (products and their event)', async () => {
      const s = app.strapi;
      const venue = venues[6]!;
      const both = venue.events[0]!;
      // A product in English only, linked (from its English row) to the English row of an event that also has a German row.
      const product = await publish(
        s,
        'api::product.product',
        { name: 'Fallback ticket', slug: 'fallback-ticket', sku: 'FALLBACK-1', price: 10, currency: 'EUR', event: both.id },
        'en',
      );
      const shopper = await createKey(s, {
        resources: {
          'native:products': { actions: ['read'], read: ['name', 'event'] },
          'native:events': { actions: ['read'], read: ['title'] },
        },
      });
      const products = async (query: string) => ids(await getAs(shopper.auth, `/api/v2/products?${query}&limit=100`));
      const shown = await getAs(shopper.auth, `/api/v2/products/${product.documentId}?locale=de,en`);
      expect([shown.data.meta.locale, shown.data.attributes.event.slug]).toEqual(['en', 'v6-both-de']);
      expect(await products(`locale=de,en&filter[event]=${both.id}`)).toEqual([product.documentId]);
      expect(await products(`locale=de,en&filter[event]=v6-both-de`)).toEqual([product.documentId]);
      expect(await products(`locale=de,en&filter[event]=v6-both-en`)).toEqual([]);
      expect(await products(`locale=de,en&filter[event][null]=true`)).toEqual([]);
      // In English alone the event is shown (and matched) in English.
      expect(await products(`locale=en&filter[event]=v6-both-en`)).toEqual([product.documentId]);
    });

    test('events filtered by their venue: each chosen row by its own links', async () => {
      const venue = venues[7]!;
      const body = await getAs(reader.auth, `/api/v2/events?locale=de,en&filter[venue]=venue-7&limit=100`);
      const got = (body.data as Expanded[]).map((event) => ({ id: event.id, title: event.attributes.title, locale: event.meta.locale }));
      expect(got.sort((a, b) => a.id.localeCompare(b.id))).toEqual(want(['de', 'en'])[venue.id]);
    });

    test("the cursor of a building page binds the list's order (its filters follow it)", async () => {
      const first = await getAs(reader.auth, '/api/v2/buildings?locale=de,en&filter[events][null]=false&limit=2');
      const cursor: string = first.meta.page.nextCursor;
      expect(cursor).toBeTruthy();
      await getAs(reader.auth, `/api/v2/buildings?locale=de,en&filter[events][null]=false&limit=2&cursor=${cursor}`);
      const refused = await app
        .http()
        .get(`/api/v2/buildings?locale=de,fr&filter[events][null]=false&limit=2&cursor=${cursor}`)
        .set('Authorization', reader.auth);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0]).toMatchObject({ source: { parameter: 'cursor' }, meta: { reason: 'cursor_mismatch' } });
    });

    test('a filtered page runs the statements a single-locale one does, whatever its size', async () => {
      // The read's own statements: the page and its relations (not a key or webhook lookup a timer may run meanwhile).
      const count = async (path: string) => {
        await getAs(reader.auth, path);
        await app.flushKeyUse();
        let seen = 0;
        const listener = (query: { sql: string }) => {
          if (READS_CONTENT.test(query.sql)) seen += 1;
        };
        const connection = app.strapi.db.connection as unknown as {
          on: (e: string, l: (query: { sql: string }) => void) => void;
          off: (e: string, l: (query: { sql: string }) => void) => void;
        };
        connection.on('query', listener);
        try {
          await getAs(reader.auth, path);
        } finally {
          connection.off('query', listener);
        }
        return seen;
      };
      const enOnly = venues[2]!.events[1]!;
      const single = await count(`/api/v2/buildings?locale=de&filter[events][ne]=${enOnly.id}&limit=2`);
      expect(single).toBeGreaterThan(0);
      expect(await count(`/api/v2/buildings?locale=fr,de,en&filter[events][ne]=${enOnly.id}&limit=2`)).toBe(single);
      expect(await count(`/api/v2/buildings?locale=fr,de,en&filter[events][ne]=${enOnly.id}&limit=8`)).toBe(single);
    });
  });

  test('statements: include with a fallback list costs what a single-locale include does, whatever the page size', async () => {
    // The read's own statements (records and relations), not a key or webhook lookup a timer may run meanwhile.
    const count = async (path: string) => {
      await getAs(reader.auth, path);
      await app.flushKeyUse();
      let seen = 0;
      const listener = (query: { sql: string }) => {
        if (READS_CONTENT.test(query.sql)) seen += 1;
      };
      const connection = app.strapi.db.connection as unknown as {
        on: (e: string, l: (query: { sql: string }) => void) => void;
        off: (e: string, l: (query: { sql: string }) => void) => void;
      };
      connection.on('query', listener);
      try {
        await getAs(reader.auth, path);
      } finally {
        connection.off('query', listener);
      }
      return seen;
    };
    const single = await count('/api/v2/buildings?locale=de&include=events.venue&limit=2');
    expect(await count('/api/v2/buildings?locale=fr,de,en&include=events.venue&limit=2')).toBe(single);
    expect(await count('/api/v2/buildings?locale=fr,de,en&include=events.venue&limit=8')).toBe(single);
    expect(await count(`/api/v2/buildings/${venues[2]!.id}?locale=fr,de,en&include=events`)).toBe(
      await count(`/api/v2/buildings/${venues[2]!.id}?locale=de&include=events`),
    );
  });
});

describe('cost', () => {
  type QueryEvent = { sql: string };
  const statements = async (path: string): Promise<number> => {
    await get(path);
    await app.flushKeyUse();
    let seen = 0;
    // The read's own statements, not a key or webhook lookup a timer may run meanwhile.
    const listener = (query: QueryEvent) => {
      if (/^select .* from [`"]events[`"]/i.test(query.sql)) seen += 1;
    };
    const connection = app.strapi.db.connection as unknown as {
      on: (event: string, listener: (query: QueryEvent) => void) => void;
      off: (event: string, listener: (query: QueryEvent) => void) => void;
    };
    connection.on('query', listener);
    try {
      await get(path);
    } finally {
      connection.off('query', listener);
    }
    return seen;
  };

  test('a page with a fallback list runs as many statements as a single-locale page, whatever its size', async () => {
    const single = await statements('/api/v2/events?locale=de&sort=title&limit=2');
    expect(await statements('/api/v2/events?locale=fr,de,en&sort=title&limit=2')).toBe(single);
    expect(await statements('/api/v2/events?locale=fr,de,en&sort=title&limit=8')).toBe(single);
    expect(await statements(`/api/v2/events/${docs[6]!.id}?locale=fr,de,en`)).toBe(
      await statements(`/api/v2/events/${docs[6]!.id}?locale=de`),
    );
  });

  /**
   * The plan of the page statement (as read-indexes.test.ts takes it): on PostgreSQL with sequential scans,
   * bitmap scans and sorts priced out, since an almost empty table is read fastest without any index.
   */
  const planOf = async (knex: Knex, sql: string, bindings: readonly unknown[]): Promise<string> => {
    if (usingMariadb()) {
      // MariaDB's EXPLAIN: a row per table read, with how (`type`: ALL is a full scan) and by which index.
      const [rows] = await knex.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[]);
      return (rows as { table: string; type: string; key: string | null }[])
        .map((row) => `${row.table} ${row.type} ${row.key ?? '-'}`)
        .join(' | ');
    }
    if (!usingPostgres()) {
      const plan = await knex.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as Knex.RawBinding[]);
      return plan.map((row: { detail: string }) => row.detail).join(' | ');
    }
    return knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_seqscan = off');
      await trx.raw('SET LOCAL enable_bitmapscan = off');
      await trx.raw('SET LOCAL enable_sort = off');
      const plan = await trx.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[]);
      return plan.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join(' | ');
    });
  };

  test('the page statement looks up earlier locales by index (NOT EXISTS on document_id, locale), never scanning per row', async () => {
    const knex = app.strapi.db.connection as unknown as Knex;
    const pages: { sql: string; bindings: readonly unknown[] }[] = [];
    const listen = (query: { sql: string; bindings?: readonly unknown[] }) => {
      if (/^select .* from [`"]events[`"]/i.test(query.sql) && /not exists/i.test(query.sql))
        pages.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    knex.on('query', listen);
    try {
      const first = await get('/api/v2/events?locale=fr,de,en&limit=3');
      await get(`${new URL(first.links.next).pathname}${new URL(first.links.next).search}`);
    } finally {
      knex.off('query', listen);
    }
    expect(pages.length).toBeGreaterThanOrEqual(2);
    for (const page of pages) {
      // knex reports PostgreSQL's placeholders as $1, $2...; raw() takes ?.
      const plan = await planOf(knex, page.sql.replace(/\$\d+/g, '?'), page.bindings);
      // The correlated lookups of earlier locales go through an index of fb (Strapi's document_id, locale index).
      if (usingPostgres()) {
        expect(plan).toMatch(/Index (Only )?Scan using \S+ on events fb/);
        expect(plan).not.toMatch(/Seq Scan on events fb/);
      } else if (usingMariadb()) {
        expect(plan).toMatch(/\bfb (ref|eq_ref|range|index_subquery|unique_subquery) \S+/);
        expect(plan).not.toMatch(/\bfb (ALL|index)\b/);
      } else {
        expect(plan).toMatch(/SEARCH fb USING (COVERING )?INDEX/);
        expect(plan).not.toMatch(/SCAN fb\b(?! USING)/);
      }
    }
  });
});
