/**
 * Benchmark volume: events inserted with knex in batches, each batch in one transaction, instead of
 * one document service call per event (which would take hours for 100 000).
 *
 * The rows are what Strapi 5 itself stores for a published document: a draft row (published_at
 * null) and a published row sharing one document_id, locale 'en', each linked to the matching
 * version of its venue (draft to draft building row, published to published) in the venue join
 * table, with the inverse order column continued per building. Table and column names come from
 * Strapi's own metadata.
 *
 * Idempotency: events are numbered, `bench-000001` ...; a run inserts only the numbers whose slug is
 * missing, so rerunning with the same count adds nothing and a larger count adds the difference.
 * Event n is generated from n alone, so which ones are missing does not change their content.
 */
import type { Core } from '@strapi/strapi';
import { BENCH_SLUG_PREFIX, benchEvent, benchSlug } from '../bench/events';
import { SEED_EPOCH } from '../epoch';
import { UID } from '../plan/types';
import type { SeedLog } from './demo';

/** Documents per transaction. */
export const BULK_BATCH_SIZE = 1000;

/**
 * Rows per INSERT statement. knex writes a multi-row insert for SQLite as a compound SELECT, which
 * SQLite caps at 500 terms; 250 rows of 17 columns also stay far below both databases' limits on
 * bound parameters.
 */
const ROWS_PER_STATEMENT = 250;

export type BulkSeedResult = { requested: number; inserted: number; alreadyPresent: number; durationMs: number };

type JoinTableMeta = {
  name: string;
  joinColumn: { name: string };
  inverseJoinColumn: { name: string };
  orderColumnName?: string;
  inverseOrderColumnName?: string;
};

type EventStorage = { table: string; column: (attribute: string) => string; venue: JoinTableMeta; buildingTable: string };

/** Reads only what this module needs from Strapi's metadata, and says clearly if its shape changed. */
const eventStorage = (strapi: Core.Strapi): EventStorage => {
  const event = strapi.db.metadata.get(UID.event) as unknown as {
    tableName: string;
    attributes: Record<string, { columnName?: string; joinTable?: JoinTableMeta }>;
  };
  const building = strapi.db.metadata.get(UID.building) as unknown as { tableName: string };
  const venue = event.attributes.venue?.joinTable;
  if (!venue?.name || !venue.joinColumn?.name || !venue.inverseJoinColumn?.name) {
    throw new Error(`${UID.event}.venue is not stored in a join table; the bulk seed needs updating.`);
  }
  return {
    table: event.tableName,
    column: (attribute) => {
      const columnName = event.attributes[attribute]?.columnName;
      if (!columnName) throw new Error(`${UID.event} has no column for '${attribute}'.`);
      return columnName;
    },
    venue,
    buildingTable: building.tableName,
  };
};

type Connection = Core.Strapi['db']['connection'];

type Venue = { draftId: number; publishedId: number };

/** Buildings with both a draft and a published row, in slug order so every database picks alike. */
const loadVenues = async (knex: Connection, buildingTable: string): Promise<Venue[]> => {
  const rows = (await knex(buildingTable)
    .select('id', 'document_id', 'slug', 'published_at')
    .orderBy([{ column: 'slug' }, { column: 'id' }])) as Array<{
    id: number;
    document_id: string;
    slug: string | null;
    published_at: unknown;
  }>;
  const byDocument = new Map<string, Partial<Venue> & { slug: string }>();
  for (const row of rows) {
    const entry = byDocument.get(row.document_id) ?? { slug: row.slug ?? '' };
    if (row.published_at === null) entry.draftId = row.id;
    else entry.publishedId = row.id;
    byDocument.set(row.document_id, entry);
  }
  return [...byDocument.values()]
    .filter((entry): entry is Venue & { slug: string } => entry.draftId !== undefined && entry.publishedId !== undefined)
    .sort((a, b) => a.slug.localeCompare(b.slug))
    .map(({ draftId, publishedId }) => ({ draftId, publishedId }));
};

export const seedBulkEvents = async (strapi: Core.Strapi, count: number, { log }: { log: SeedLog }): Promise<BulkSeedResult> => {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`The number of benchmark events must be a whole number, not ${count}.`);
  const started = Date.now();
  const knex = strapi.db.connection;
  const storage = eventStorage(strapi);
  const { table, column, venue } = storage;

  const venues = await loadVenues(knex, storage.buildingTable);
  if (count > 0 && venues.length === 0) throw new Error('Benchmark events need published buildings as venues: run the demo seed first.');

  const present = new Set(
    (
      (await knex(table)
        .select(column('slug'))
        .where(column('slug'), 'like', `${BENCH_SLUG_PREFIX}%`)
        .whereNull(column('publishedAt'))
        .where(column('locale'), 'en')) as Array<Record<string, string>>
    ).map((row) => row[column('slug')]),
  );
  const missing: number[] = [];
  for (let n = 1; n <= count; n += 1) if (!present.has(benchSlug(n))) missing.push(n);

  // The position of each new event in its building's `events` list continues after the existing ones.
  const nextOrder = new Map<number, number>();
  if (venue.inverseOrderColumnName) {
    const orders = (await knex(venue.name)
      .select(venue.inverseJoinColumn.name)
      .max({ last: venue.inverseOrderColumnName })
      .groupBy(venue.inverseJoinColumn.name)) as Array<Record<string, unknown>>;
    for (const row of orders) nextOrder.set(Number(row[venue.inverseJoinColumn.name]), Number(row.last ?? 0) + 1);
  }
  const orderIn = (buildingId: number): number => {
    const order = nextOrder.get(buildingId) ?? 1;
    nextOrder.set(buildingId, order + 1);
    return order;
  };

  // Fixed timestamps keep the rows identical between databases.
  const stamp = new Date(SEED_EPOCH);
  for (let offset = 0; offset < missing.length; offset += BULK_BATCH_SIZE) {
    const batch = missing.slice(offset, offset + BULK_BATCH_SIZE).map(benchEvent);
    await knex.transaction(async (trx) => {
      const rows = batch.flatMap((event) => {
        const row = {
          [column('documentId')]: event.documentId,
          [column('title')]: event.title,
          [column('slug')]: event.slug,
          [column('sort')]: event.sort,
          [column('summary')]: event.summary,
          [column('startsAt')]: event.startsAt,
          [column('endsAt')]: event.endsAt,
          [column('category')]: event.category,
          [column('tags')]: JSON.stringify(event.tags),
          [column('price')]: event.price,
          [column('soldOut')]: event.soldOut,
          [column('capacity')]: event.capacity,
          [column('body')]: JSON.stringify(event.body),
          [column('createdAt')]: stamp,
          [column('updatedAt')]: stamp,
          [column('locale')]: 'en',
        };
        return [
          { ...row, [column('publishedAt')]: null },
          { ...row, [column('publishedAt')]: stamp },
        ];
      });
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        await trx(table).insert(rows.slice(start, start + ROWS_PER_STATEMENT));
      }

      const inserted = (await trx(table)
        .select('id', column('documentId'), column('publishedAt'))
        .whereIn(
          column('documentId'),
          batch.map((event) => event.documentId),
        )) as Array<Record<string, unknown>>;
      const venueOf = new Map(batch.map((event) => [event.documentId, venues[event.venueSeed % venues.length]]));
      const links = inserted
        .sort((a, b) => Number(a.id) - Number(b.id))
        .map((row) => {
          const chosen = venueOf.get(String(row[column('documentId')]));
          if (!chosen) throw new Error('A benchmark row was inserted without its event.');
          const buildingId = row[column('publishedAt')] === null ? chosen.draftId : chosen.publishedId;
          return {
            [venue.joinColumn.name]: Number(row.id),
            [venue.inverseJoinColumn.name]: buildingId,
            ...(venue.orderColumnName ? { [venue.orderColumnName]: 1 } : {}),
            ...(venue.inverseOrderColumnName ? { [venue.inverseOrderColumnName]: orderIn(buildingId) } : {}),
          };
        });
      for (let start = 0; start < links.length; start += ROWS_PER_STATEMENT) {
        await trx(venue.name).insert(links.slice(start, start + ROWS_PER_STATEMENT));
      }
    });
    const done = Math.min(offset + BULK_BATCH_SIZE, missing.length);
    if (done % 20_000 < BULK_BATCH_SIZE || done === missing.length) log(`Benchmark events: ${done} of ${missing.length} inserted`);
  }

  return { requested: count, inserted: missing.length, alreadyPresent: count - missing.length, durationMs: Date.now() - started };
};
