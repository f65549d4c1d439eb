/**
 * Indexes that serve the read path's queries, created at every start (Strapi's schema sync drops
 * indexes it did not declare itself, so they are ensured rather than migrated once):
 *
 * - `<table>_pda_order`: `(locale, (sort IS NULL), sort, document_id) WHERE published_at IS NOT NULL`,
 *   exactly the default ORDER BY of a page (nulls last, id as tiebreaker) over published rows, so the
 *   first page and a keyset page deep in the collection are both an index range scan, not a sort.
 * - `<table>_pda_draft_order`: the same over draft rows (`published_at IS NULL`), for a preview key's draft
 *   reads (contract section 15), on types with draft & publish only (the others have no draft rows).
 * - `<table>_pda_slug`: the slug column, for single-record reads by slug.
 * - `<join table>_pda_<owner column>`: `(owner, order, id)` on the join table of every relation field, the
 *   relation's order per owner, so that a reference list is read from its first link to its 101st and no
 *   further, however many links the owner has (read/first-links.ts). Strapi's own indexes hold the owner
 *   and the order column apart, which makes the database read and sort every link of the owner.
 *
 * - `<_cmps table>_pda_owner`: `(owner, field, order, id)` on the component join table of every owner of
 *   component fields (records and components holding components), so that the components of a page's
 *   records are looked up per owner, in order. Strapi's own indexes lead with the field alone or hold
 *   order apart, and SQLite, knowing no better, chose to read every owner's links of the field (each
 *   record's `seo`, say) and sort them for each page.
 *
 * - `<keys table>_pda_key_id`: unique, the key id of API keys, which every request looks its key up by.
 *
 * All are plain SQL that SQLite and PostgreSQL accept alike (expression and partial indexes). MariaDB has
 * neither (and MySQL no partial index): there `<table>_pda_order` is `(published_at, locale, sort,
 * document_id)`, one index for published and draft rows, led by what tells them apart; a page sorted by
 * a column that may be null is then ordered by `(sort IS NULL)` after the index range, a sort of the range
 * (read/sql.ts). MySQL 8 has no CREATE INDEX IF NOT EXISTS: there an index is looked up before it is
 * made (database/ensure-index.ts); names are quoted per database (database/identifiers.ts). An index is
 * an aid to speed: one InnoDB cannot make (a TEXT column, which it indexes only by a prefix; a key over
 * 3,072 bytes) is logged and left out.
 */
import { createHash } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import type { Field, Resource } from '../registry/types';
import { COMPONENT_FIELD_TYPES, RELATION_FIELD_TYPES } from '../fields/table';
import { createReadModels, type JoinModel } from '../read/model';
import { API_KEY_UID } from '../keys/types';
import { databaseClient, type DatabaseClient } from '../database/connection';
import { createIndexStatement, ensureIndex, type IndexDefinition } from '../database/ensure-index';
import { identifierQuoter } from '../database/identifiers';

/** An index InnoDB cannot make: a TEXT column without a prefix; a key too long. */
const MYSQL_INDEX_IMPOSSIBLE = new Set(['ER_BLOB_KEY_WITHOUT_LENGTH', 'ER_TOO_LONG_KEY']);

/** Ensures an index; on MySQL and MariaDB one that cannot be made is logged and left out. */
const createIndex = async (strapi: Core.Strapi, knex: Knex, index: IndexDefinition): Promise<void> => {
  const client = databaseClient(strapi);
  try {
    await ensureIndex(knex, client, index);
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (client !== 'mysql' || !MYSQL_INDEX_IMPOSSIBLE.has(code)) throw error;
    strapi.log.warn(
      `[public-api] An index of the read path could not be made on this database (${code}): ${createIndexStatement(client, index)}`,
    );
  }
};

type Quote = (identifier: string) => string;

/** The unique index the key lookup of every request uses (key ids are unique by construction). */
export const keyIdIndex = (table: string, column: string, quote: Quote): IndexDefinition => ({
  name: `${table}_pda_key_id`,
  table,
  columns: [quote(column)],
  unique: true,
});

export const orderIndexes = (
  table: string,
  columns: { locale?: string; sort?: string; slug?: string; drafts?: boolean },
  quote: Quote,
  client: DatabaseClient = 'sqlite',
): IndexDefinition[] => {
  const indexes: IndexDefinition[] = [];
  if (client === 'mysql') {
    if (columns.sort) {
      const leading = [quote('published_at'), ...(columns.locale ? [quote(columns.locale)] : [])];
      indexes.push({ name: `${table}_pda_order`, table, columns: [...leading, quote(columns.sort), quote('document_id')] });
    }
    if (columns.slug) indexes.push({ name: `${table}_pda_slug`, table, columns: [quote(columns.slug)] });
    return indexes;
  }
  if (columns.sort) {
    const order = [
      ...(columns.locale ? [quote(columns.locale)] : []),
      `(${quote(columns.sort)} IS NULL)`,
      quote(columns.sort),
      quote('document_id'),
    ];
    indexes.push({ name: `${table}_pda_order`, table, columns: order, where: `${quote('published_at')} IS NOT NULL` });
    if (columns.drafts) {
      indexes.push({ name: `${table}_pda_draft_order`, table, columns: order, where: `${quote('published_at')} IS NULL` });
    }
  }
  if (columns.slug) indexes.push({ name: `${table}_pda_slug`, table, columns: [quote(columns.slug)] });
  return indexes;
};

/**
 * PostgreSQL cuts longer identifiers to 63 bytes (MySQL and MariaDB refuse names over 64 characters); a
 * longer name is shortened with a hash kept unique.
 */
const MAX_IDENTIFIER = 63;

/** The name of the index of a relation's links per owner: one per owner column (a join table serves both sides). */
export const linkListIndexName = (join: JoinModel): string => {
  const name = `${join.table}_pda_${join.ownerColumn}`;
  if (Buffer.byteLength(name) <= MAX_IDENTIFIER) return name;
  const hash = createHash('sha256').update(`${join.table}\u0000${join.ownerColumn}`).digest('hex').slice(0, 12);
  return `${join.table.slice(0, 40)}_pda_${hash}`;
};

/** The index of a relation's links in their order per owner (read/first-links.ts). */
export const linkListIndex = (join: JoinModel, quote: Quote): IndexDefinition => ({
  name: linkListIndexName(join),
  table: join.table,
  columns: [join.ownerColumn, ...(join.orderColumn ? [join.orderColumn] : []), 'id'].map(quote),
});

/** A `_cmps` table: the owner column and Strapi's field and order columns (`identifiers.FIELD_COLUMN`, `ORDER_COLUMN`). */
export type ComponentJoinTable = { table: string; owner: string };

/** The index of component links per owner, field and order (services/components.ts `links`). */
export const componentLinkIndex = (join: ComponentJoinTable, quote: Quote): IndexDefinition => {
  let name = `${join.table}_pda_owner`;
  if (Buffer.byteLength(name) > MAX_IDENTIFIER) {
    name = `${join.table.slice(0, 40)}_pda_${createHash('sha256').update(`${join.table}\u0000owner`).digest('hex').slice(0, 12)}`;
  }
  return { name, table: join.table, columns: [join.owner, 'field', 'order', 'id'].map(quote) };
};

type JoinMeta = { attributes: Record<string, { joinTable?: { name: string; joinColumn: { name: string } } }> };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const models = createReadModels(strapi);
  const quote = (name: string) => identifierQuoter(databaseClient(strapi))(name);

  /** The `_cmps` table of an owner's component fields, from Strapi's metadata (one table for all of them). */
  const componentJoinOf = (uid: string, fields: readonly Field[]): ComponentJoinTable | null => {
    const meta = strapi.db.metadata.get(uid) as unknown as JoinMeta;
    for (const field of fields) {
      if (!COMPONENT_FIELD_TYPES.has(field.type)) continue;
      const joinTable = meta.attributes[field.key]?.joinTable;
      if (joinTable) return { table: joinTable.name, owner: joinTable.joinColumn.name };
    }
    return null;
  };
  const componentLinkIndexes = (uid: string, fields: readonly Field[]): IndexDefinition[] => {
    const join = componentJoinOf(uid, fields);
    return join ? [componentLinkIndex(join, quote)] : [];
  };

  /**
   * The link list indexes of relations inside the components `fields` hold, nested ones too (and the
   * component link index of those holding components): a list inside
   * a component is cut to the cap per component row as a record's is (read/first-links.ts). Each component
   * once (`seen`).
   */
  const componentLinkIndexesIn = (fields: readonly Field[], seen: Set<string>): IndexDefinition[] =>
    fields.flatMap((field) =>
      (field.components ?? []).flatMap((component) => {
        if (seen.has(component.uid)) return [];
        seen.add(component.uid);
        const model = models(component.uid);
        const own = component.fields.flatMap((inner) => {
          const join = model.relations[inner.key];
          return join && RELATION_FIELD_TYPES.has(inner.type) ? [linkListIndex(join, quote)] : [];
        });
        return [...own, ...componentLinkIndexes(component.uid, component.fields), ...componentLinkIndexesIn(component.fields, seen)];
      }),
    );

  return {
    /** Ensures the indexes of every content type a resource reads from; idempotent. */
    async ensure(resources: readonly Resource[]): Promise<void> {
      const knex = strapi.db.connection as unknown as Knex;
      const seen = new Set<string>();
      for (const resource of resources) {
        if (seen.has(resource.uid)) continue;
        seen.add(resource.uid);
        const model = models(resource.uid);
        const indexes = orderIndexes(
          model.table,
          {
            locale: resource.localized ? model.columns.locale : undefined,
            sort: resource.sortAttribute ? model.columns[resource.sortAttribute] : undefined,
            slug: resource.slugAttribute ? model.columns[resource.slugAttribute] : undefined,
            drafts: resource.draftAndPublish,
          },
          quote,
          databaseClient(strapi),
        );
        for (const field of resource.fields) {
          const join = model.relations[field.key];
          if (join && RELATION_FIELD_TYPES.has(field.type)) indexes.push(linkListIndex(join, quote));
        }
        indexes.push(...componentLinkIndexes(resource.uid, resource.fields));
        indexes.push(...componentLinkIndexesIn(resource.fields, seen));
        for (const index of indexes) await createIndex(strapi, knex, index);
      }
    },

    /** Ensures the unique index on API keys' key id. Duplicates (never made by this plugin) are logged, not fatal. */
    async ensureKeyIndex(): Promise<void> {
      const model = models(API_KEY_UID);
      try {
        await createIndex(strapi, strapi.db.connection as unknown as Knex, keyIdIndex(model.table, model.columns.keyId!, quote));
      } catch (error) {
        strapi.log.warn(`[public-api] The unique index on API key ids could not be created: ${(error as Error).message}`);
      }
    },
  };
};
