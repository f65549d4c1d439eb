/**
 * Identifiers (table, column and index names) in the plugin's raw SQL, quoted the way each database reads
 * them without any session setting: double quotes on SQLite and PostgreSQL (the SQL standard), backticks
 * on MySQL and MariaDB, whose default sql_mode reads a double-quoted word as a string literal. The plugin
 * never relies on the application setting ANSI_QUOTES, nor sets it on connections Strapi's own queries
 * share. Every raw statement the plugin writes names its tables and columns through `quoteIdentifier`
 * (or knex's `??` bindings, which quote per dialect too).
 *
 * The quote character inside a name is doubled, as all three read it, so any name (Strapi's, an
 * application's, generated) stays one identifier.
 */
import type { DatabaseClient } from './connection';

export const quoteIdentifier = (client: DatabaseClient, name: string): string =>
  client === 'mysql' ? `\`${name.replace(/`/g, '``')}\`` : `"${name.replace(/"/g, '""')}"`;

/** `quoteIdentifier` bound to one database, for statement builders that take a `quote` function. */
export const identifierQuoter =
  (client: DatabaseClient) =>
  (name: string): string =>
    quoteIdentifier(client, name);
