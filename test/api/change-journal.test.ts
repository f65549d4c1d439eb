/**
 * The change journal (services/journal, contract section 16): one entry per change to a published
 * record, from every path a write takes (the document service as the content manager uses it, /api/v2
 * writes, atomic operations), written in the change's own transaction (a rolled-back write leaves none),
 * never for drafts; its readers (`entries`, `latest`, `horizon`) and pruning. On PostgreSQL: a
 * transaction that commits a lower seq after a higher one is not skipped by a reader.
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { usingPostgres } from '../helpers/database';
import { ensureLocale } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { listenOnce, writer } from '../helpers/writes';
import type journalService from '../../src/plugins/public-api/server/src/services/journal';
import { JOURNAL_START, JOURNAL_RETENTION_MS, PRUNE_GRACE_MS } from '../../src/plugins/public-api/server/src/services/journal';

const EVENT = 'api::event.event';
const BUILDING = 'api::building.building';
const TABLE = 'public_api_changes';

type Journal = ReturnType<typeof journalService>;

let app: TestApp;
let s: Core.Strapi;
let journal: Journal;
let api: ReturnType<typeof writer>;
let auth: string;

const EVENT_DATA = { title: 'Open rehearsal', startsAt: '2027-05-01T18:00:00.000Z', category: 'concert' };

beforeAll(async () => {
  app = await bootApp();
  s = app.strapi;
  journal = s.plugin('public-api').service('journal') as Journal;
  api = writer(app);
  await listenOnce(app);
  await ensureLocale(s, 'de', 'German');
  auth = (
    await createKey(s, {
      resources: {
        'native:events': { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' },
        'native:buildings': { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' },
      },
    })
  ).auth;
});
afterAll(async () => {
  await app?.close();
});

const knex = () => s.db.connection;

/** The entries written since `seq` (exclusive), as [uid, documentId, locale, kind]. */
const entriesSince = async (seq: number) =>
  ((await knex()(TABLE).where('seq', '>', seq).orderBy('seq')) as Record<string, unknown>[]).map((row) => [
    row.content_type,
    row.document_id,
    row.locale,
    row.kind,
  ]);

const lastSeq = async (): Promise<number> => {
  const row = (await knex()(TABLE).max({ max: 'seq' }).first()) as { max: number | string | null } | undefined;
  return Number(row?.max ?? 0);
};

/** Runs `write` and answers the entries it wrote. */
const written = async (write: () => Promise<unknown>) => {
  const before = await lastSeq();
  await write();
  return entriesSince(before);
};

describe('entries from the document service (the content manager, scripts, commands)', () => {
  const events = () => s.documents(EVENT as never);

  test('a published create is `published`; a draft create writes nothing', async () => {
    let id = '';
    expect(
      await written(async () => {
        id = ((await events().create({ data: EVENT_DATA as never, status: 'published' })) as { documentId: string }).documentId;
      }),
    ).toEqual([[EVENT, id, 'en', 'published']]);
    expect(await written(() => events().create({ data: { ...EVENT_DATA, title: 'Draft only' } as never }))).toEqual([]);
  });

  test('the life of a document: draft saves write nothing, publish, republish, unpublish, delete', async () => {
    const { documentId } = (await events().create({ data: { ...EVENT_DATA, title: 'Life' } as never })) as { documentId: string };
    expect(await written(() => events().publish({ documentId } as never))).toEqual([[EVENT, documentId, 'en', 'published']]);
    expect(await written(() => events().update({ documentId, data: { title: 'Life (draft edit)' } } as never))).toEqual([]);
    expect(await written(() => events().publish({ documentId } as never))).toEqual([[EVENT, documentId, 'en', 'updated']]);
    expect(
      await written(() => events().update({ documentId, data: { title: 'Life, published at once' }, status: 'published' } as never)),
    ).toEqual([[EVENT, documentId, 'en', 'updated']]);
    expect(await written(() => events().discardDraft({ documentId } as never))).toEqual([]);
    expect(await written(() => events().unpublish({ documentId } as never))).toEqual([[EVENT, documentId, 'en', 'unpublished']]);
    expect(await written(() => events().unpublish({ documentId } as never))).toEqual([]);
    expect(await written(() => events().publish({ documentId } as never))).toEqual([[EVENT, documentId, 'en', 'published']]);
    expect(await written(() => events().delete({ documentId } as never))).toEqual([[EVENT, documentId, 'en', 'deleted']]);
  });

  test('each locale is its own entry; deleting a draft-only document writes nothing', async () => {
    const { documentId } = (await events().create({ data: { ...EVENT_DATA, title: 'Bilingual' } as never, status: 'published' })) as {
      documentId: string;
    };
    expect(
      await written(() =>
        events().update({ documentId, locale: 'de', data: { ...EVENT_DATA, title: 'Zweisprachig' }, status: 'published' } as never),
      ),
    ).toEqual([[EVENT, documentId, 'de', 'published']]);
    const deleted = await written(() => events().delete({ documentId, locale: '*' } as never));
    expect(deleted).toHaveLength(2);
    expect(deleted).toEqual(
      expect.arrayContaining([
        [EVENT, documentId, 'en', 'deleted'],
        [EVENT, documentId, 'de', 'deleted'],
      ]),
    );
    const { documentId: draftOnly } = (await events().create({ data: { ...EVENT_DATA, title: 'Never shown' } as never })) as {
      documentId: string;
    };
    expect(await written(() => events().delete({ documentId: draftOnly } as never))).toEqual([]);
  });

  test('a type that is not localized has a null locale', async () => {
    let id = '';
    expect(
      await written(async () => {
        id = (
          (await s.documents(BUILDING as never).create({ data: { name: 'Old Mill' } as never, status: 'published' })) as {
            documentId: string;
          }
        ).documentId;
      }),
    ).toEqual([[BUILDING, id, null, 'published']]);
  });

  test('records that link to a changed record get an `updated` entry (their references changed)', async () => {
    const depot = (
      (await s.documents(BUILDING as never).create({ data: { name: 'Depot' } as never, status: 'published' })) as { documentId: string }
    ).documentId;
    let show = '';
    // The building lists its events (the inverse side of an event's venue): publishing the event changes it.
    expect(
      await written(async () => {
        show = (
          (await events().create({ data: { ...EVENT_DATA, title: 'Depot show', venue: depot } as never, status: 'published' })) as {
            documentId: string;
          }
        ).documentId;
      }),
    ).toEqual([
      [EVENT, show, 'en', 'published'],
      [BUILDING, depot, null, 'updated'],
    ]);
    // The event's venue reference disappears when the building is unpublished.
    expect(await written(() => s.documents(BUILDING as never).unpublish({ documentId: depot } as never))).toEqual([
      [EVENT, show, 'en', 'updated'],
      [BUILDING, depot, null, 'unpublished'],
    ]);
  });

  test('a write that rolls back leaves no entry (the entry is in its transaction)', async () => {
    const before = await lastSeq();
    await expect(
      s.db.transaction(async () => {
        await events().create({ data: { ...EVENT_DATA, title: 'Rolled back' } as never, status: 'published' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await entriesSince(before)).toEqual([]);
    expect(await knex()('events').where('title', 'Rolled back')).toEqual([]);
  });

  test('a write refused by a domain rule leaves no entry', async () => {
    const before = await lastSeq();
    await expect(
      events().create({ data: { ...EVENT_DATA, title: 'Backwards', endsAt: '2027-04-01T18:00:00.000Z' } as never, status: 'published' }),
    ).rejects.toThrow();
    expect(await entriesSince(before)).toEqual([]);
  });
});

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const atomic = (body: unknown) =>
  app
    .http()
    .post('/api/v2/operations')
    .set('Authorization', auth)
    .set('Content-Type', ATOMIC)
    .set('Accept', ATOMIC)
    .send(JSON.stringify(body));

describe('entries from /api/v2', () => {
  test('create, update, archive or delete through the API', async () => {
    const before = await lastSeq();
    const created = await api.post('/api/v2/events', auth, { data: { type: 'events', attributes: { ...EVENT_DATA, title: 'Via API' } } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(
      (await api.patch(`/api/v2/events/${id}`, auth, { data: { type: 'events', attributes: { title: 'Via API, renamed' } } })).status,
    ).toBe(200);
    expect((await api.del(`/api/v2/events/${id}`, auth)).status).toBe(204);
    expect(await entriesSince(before)).toEqual([
      [EVENT, id, 'en', 'published'],
      [EVENT, id, 'en', 'updated'],
      [EVENT, id, 'en', 'deleted'],
    ]);
  });

  test('atomic operations: every change of a committed request; none of a refused one', async () => {
    const before = await lastSeq();
    const ok = await atomic({
      'atomic:operations': [
        { op: 'add', data: { type: 'buildings', lid: 'b1', attributes: { name: 'Atomic Hall' } } },
        { op: 'add', data: { type: 'events', attributes: { ...EVENT_DATA, title: 'Atomic opening', venue: { lid: 'b1' } } } },
      ],
    });
    expect(ok.status).toBe(200);
    const [building, event] = ok.body['atomic:results'].map((result: { data: { id: string } }) => result.data.id);
    expect(await entriesSince(before)).toEqual([
      [BUILDING, building, null, 'published'],
      [EVENT, event, 'en', 'published'],
      // The hall lists its events: it reads differently once the event is there.
      [BUILDING, building, null, 'updated'],
    ]);

    const middle = await lastSeq();
    const refused = await atomic({
      'atomic:operations': [
        { op: 'add', data: { type: 'buildings', attributes: { name: 'Never built' } } },
        { op: 'add', data: { type: 'events', attributes: { title: 'No start' } } },
      ],
    });
    expect(refused.status).toBe(422);
    expect(await entriesSince(middle)).toEqual([]);
  });

  test('atomic operations: plain adds journaled together give the entries of one-by-one writes, in order; each result shows its record right after its operation', async () => {
    const before = await lastSeq();
    const ok = await atomic({
      'atomic:operations': [
        { op: 'add', data: { type: 'buildings', lid: 'b1', attributes: { name: 'Batch Hall' } } },
        { op: 'add', data: { type: 'events', lid: 'e1', attributes: { ...EVENT_DATA, title: 'Batch first' } } },
        { op: 'add', data: { type: 'events', attributes: { ...EVENT_DATA, title: 'Batch second', venue: { lid: 'b1' } } } },
        { op: 'update', ref: { type: 'events', lid: 'e1' }, data: { type: 'events', attributes: { title: 'Batch first, renamed' } } },
        { op: 'add', data: { type: 'buildings', attributes: { name: 'Batch Annex' } } },
        { op: 'remove', ref: { type: 'events', lid: 'e1' } },
      ],
    });
    expect(ok.status).toBe(200);
    const results = ok.body['atomic:results'] as { data?: { id: string; attributes: Record<string, unknown> } }[];
    const [hall, first, second, , annex] = results.map((result) => result.data?.id);
    // The add's result was read before the update that follows it, the update's after it.
    expect(results[1]!.data!.attributes.title).toBe('Batch first');
    expect(results[3]!.data!.attributes.title).toBe('Batch first, renamed');
    expect(results[5]).toEqual({});
    expect(await entriesSince(before)).toEqual([
      [BUILDING, hall, null, 'published'],
      [EVENT, first, 'en', 'published'],
      [EVENT, second, 'en', 'published'],
      [BUILDING, hall, null, 'updated'],
      [EVENT, first, 'en', 'updated'],
      [BUILDING, annex, null, 'published'],
      [EVENT, first, 'en', 'deleted'],
    ]);
  });

  test('atomic operations: the journal and read-back statements of plain adds do not grow with their number', async () => {
    const statements = async (adds: number) => {
      const sql: string[] = [];
      const listener = (query: { sql: string }) => sql.push(query.sql);
      knex().on('query', listener);
      try {
        const response = await atomic({
          'atomic:operations': Array.from({ length: adds }, (_, index) => ({
            op: 'add',
            data: { type: 'events', attributes: { ...EVENT_DATA, title: `Counted ${adds}-${index}` } },
          })),
        });
        expect(response.status).toBe(200);
        expect(response.body['atomic:results']).toHaveLength(adds);
        expect(response.body['atomic:results'][adds - 1].data.attributes.title).toBe(`Counted ${adds}-${adds - 1}`);
      } finally {
        knex().off('query', listener);
      }
      return {
        journal: sql.filter((text) => new RegExp(`insert into ${TABLE}`, 'i').test(text)).length,
        // The read-back's row query: the record's columns under the read path's aliases.
        readBack: sql.filter((text) => text.includes('__row_id')).length,
      };
    };
    const one = await statements(1);
    const twenty = await statements(20);
    expect(one.journal).toBeGreaterThan(0);
    expect(one.readBack).toBeGreaterThan(0);
    expect(twenty).toEqual(one);
  });
});

describe('reading the journal', () => {
  test('entries and latest walk [from, horizon) in bounded batches; latest names each document once, at its last entry', async () => {
    const from = await journal.horizon();
    const events = s.documents(EVENT as never);
    const a = ((await events.create({ data: { ...EVENT_DATA, title: 'A' } as never, status: 'published' })) as { documentId: string })
      .documentId;
    const b = ((await events.create({ data: { ...EVENT_DATA, title: 'B' } as never, status: 'published' })) as { documentId: string })
      .documentId;
    for (const title of ['A2', 'A3', 'A4']) await events.update({ documentId: a, data: { title }, status: 'published' } as never);
    const to = await journal.horizon();

    const all = [];
    let position = from;
    for (;;) {
      const batch = await journal.entries(position, to, 2);
      expect(batch.entries.length).toBeLessThanOrEqual(2);
      all.push(...batch.entries);
      if (!batch.next) break;
      position = batch.next;
    }
    expect(all.map((entry) => [entry.documentId, entry.kind])).toEqual([
      [a, 'published'],
      [b, 'published'],
      [a, 'updated'],
      [a, 'updated'],
      [a, 'updated'],
    ]);

    const latest = [];
    position = from;
    for (;;) {
      const batch = await journal.latest(position, to, 1, [{ uid: EVENT, via: [] }]);
      latest.push(...batch.entries);
      if (!batch.next) break;
      position = batch.next;
    }
    expect(latest.map((entry) => [entry.documentId, entry.kind])).toEqual([
      [b, 'published'],
      [a, 'updated'],
    ]);
    expect((await journal.latest(from, to, 10, [{ uid: BUILDING, via: [] }])).entries).toEqual([]);
    expect((await journal.entries(to, await journal.horizon(), 10)).entries).toEqual([]);
    expect((await journal.entries(JOURNAL_START, to, 5000)).entries.length).toBeLessThanOrEqual(1000);
  });

  test('prune deletes entries past the retention and its grace, and no other', async () => {
    const now = Date.now();
    const old = now - JOURNAL_RETENTION_MS - PRUNE_GRACE_MS - 1000;
    const kept = now - JOURNAL_RETENTION_MS + 60_000;
    await knex()(TABLE).insert([
      { txid: 0, content_type: EVENT, document_id: 'pruned-one', locale: 'en', kind: 'updated', occurred_at: old },
      { txid: 0, content_type: EVENT, document_id: 'kept-one', locale: 'en', kind: 'updated', occurred_at: kept },
    ]);
    expect(await journal.prune(now)).toBeGreaterThanOrEqual(1);
    expect(await knex()(TABLE).where('document_id', 'pruned-one')).toEqual([]);
    expect(await knex()(TABLE).where('document_id', 'kept-one')).toHaveLength(1);
  });
});

const onPostgres = usingPostgres() ? test : test.skip;

onPostgres('PostgreSQL: an entry of a transaction that commits after a later one is not skipped by readers', async () => {
  const events = s.documents(EVENT as never);
  const start = await journal.horizon();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const started = new Promise<void>((resolve) => (entered = resolve));
  // The slow writer takes its seq first, then waits before committing.
  const slow = s.db.transaction(async () => {
    await events.create({ data: { ...EVENT_DATA, title: 'Slow writer' } as never, status: 'published' });
    entered();
    await held;
  });
  await started;
  const fast = (
    (await events.create({ data: { ...EVENT_DATA, title: 'Fast writer' } as never, status: 'published' })) as { documentId: string }
  ).documentId;
  const rows = (await knex()(TABLE).whereIn('document_id', [fast]).select('seq')) as { seq: string }[];
  expect(rows).toHaveLength(1);

  // The fast writer's entry is committed, yet beyond the horizon while the slow one is running.
  const during = await journal.horizon();
  expect((await journal.entries(start, during, 100)).entries.map((entry) => entry.documentId)).not.toContain(fast);

  release();
  await slow;
  const after = await journal.horizon();
  const seen = (await journal.entries(start, after, 100)).entries;
  const titles = await knex()('events')
    .whereIn(
      'document_id',
      seen.map((entry) => entry.documentId),
    )
    .whereNotNull('published_at')
    .pluck('title');
  expect(titles).toEqual(expect.arrayContaining(['Slow writer', 'Fast writer']));
  // The slow writer's seq is the lower one: a reader that stopped at the highest seq seen would have lost it.
  const slowEntry = seen.find((entry) => entry.seq < Number(rows[0]!.seq));
  expect(slowEntry).toBeDefined();
});
