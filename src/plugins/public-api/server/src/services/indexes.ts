/**
 * Indexes that serve the read path's queries, created at every start (Strapi's schema sync drops
 * indexes it did not declare itself, so they are ensured rather than migrated once):
 *
 * - `<table>_pda_order`: `(locale, (sort IS NULL), sort, document_id) WHERE published_at IS NOT NULL`,
 *   exactly the default ORDER BY of a page (nulls last, id as tiebreaker) over published rows, so the
 *   first page and a keyset page deep in the collection are both an index range scan, not a sort.
 * - `<table>_pda_slug`: the slug column, for single-record reads by slug.
 *
 * - `<keys table>_pda_key_id`: unique, the key id of API keys, which every request looks its key up by.
 *
 * All are plain SQL that SQLite and PostgreSQL accept alike (expression and partial indexes).
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import type { Resource } from '../registry/types';
import { createReadModels } from '../read/model';
import { API_KEY_UID } from '../keys/types';

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** The unique index the key lookup of every request uses (key ids are unique by construction). */
export const keyIdIndexStatement = (table: string, column: string): string =>
  `CREATE UNIQUE INDEX IF NOT EXISTS ${quote(`${table}_pda_key_id`)} ON ${quote(table)} (${quote(column)})`;

export const indexStatements = (
  table: string,
  columns: { locale?: string; sort?: string; slug?: string },
  quote: (identifier: string) => string,
): string[] => {
  const statements: string[] = [];
  if (columns.sort) {
    const leading = columns.locale ? `${quote(columns.locale)}, ` : '';
    statements.push(
      `CREATE INDEX IF NOT EXISTS ${quote(`${table}_pda_order`)} ON ${quote(table)} (${leading}(${quote(columns.sort)} IS NULL), ${quote(columns.sort)}, ${quote('document_id')}) WHERE ${quote('published_at')} IS NOT NULL`,
    );
  }
  if (columns.slug) {
    statements.push(`CREATE INDEX IF NOT EXISTS ${quote(`${table}_pda_slug`)} ON ${quote(table)} (${quote(columns.slug)})`);
  }
  return statements;
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const models = createReadModels(strapi);
  return {
    /** Ensures the indexes of every content type a resource reads from; idempotent. */
    async ensure(resources: readonly Resource[]): Promise<void> {
      const knex = strapi.db.connection as unknown as Knex;
      const seen = new Set<string>();
      for (const resource of resources) {
        if (seen.has(resource.uid)) continue;
        seen.add(resource.uid);
        const model = models(resource.uid);
        const statements = indexStatements(
          model.table,
          {
            locale: resource.localized ? model.columns.locale : undefined,
            sort: resource.sortAttribute ? model.columns[resource.sortAttribute] : undefined,
            slug: resource.slugAttribute ? model.columns[resource.slugAttribute] : undefined,
          },
          quote,
        );
        for (const statement of statements) await knex.raw(statement);
      }
    },

    /** Ensures the unique index on API keys' key id. Duplicates (never made by this plugin) are logged, not fatal. */
    async ensureKeyIndex(): Promise<void> {
      const model = models(API_KEY_UID);
      try {
        await (strapi.db.connection as unknown as Knex).raw(keyIdIndexStatement(model.table, model.columns.keyId!));
      } catch (error) {
        strapi.log.warn(`[public-api] The unique index on API key ids could not be created: ${(error as Error).message}`);
      }
    },
  };
};
