/**
 * The table of pending grant removals, `public_api_webhook_removals` (services/webhooks/grant-removals.ts):
 * a plain table of the plugin's own, like the change journal's (services/journal/table.ts), created at
 * start when missing. One row per endpoint and lost resource, written in the grant change's transaction,
 * deleted when every removal it stands for is queued.
 *
 * - `id`: increasing (the order jobs are worked through; MySQL and MariaDB: AUTO_INCREMENT, and the index
 *   is part of the CREATE TABLE, as MySQL has no CREATE INDEX IF NOT EXISTS); `endpoint_id`: the webhook
 *   endpoint told;
 * - `resource_id`, `record_type`: the resource the key no longer reads and its record type (the removal's `type`);
 * - `content_type`, `website_id`, `scope_attribute`: where its records are (website_id and scope_attribute
 *   null for a resource that is not scoped to a website);
 * - `after_document_id`: the keyset position, the last document whose removal is queued (null: none yet);
 * - `occurred_at`: the grant change (Unix milliseconds), each removal's `deletedAt`.
 */
import type { DatabaseClient } from '../../database/connection';

export const REMOVALS_TABLE = 'public_api_webhook_removals';

export const removalsTableStatements = (client: DatabaseClient): string[] => {
  const id =
    client === 'postgres'
      ? 'id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY'
      : client === 'mysql'
        ? 'id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY'
        : 'id INTEGER PRIMARY KEY AUTOINCREMENT';
  return [
    `CREATE TABLE IF NOT EXISTS ${REMOVALS_TABLE} (
       ${id},
       endpoint_id bigint NOT NULL,
       resource_id varchar(255) NOT NULL,
       record_type varchar(255) NOT NULL,
       content_type varchar(255) NOT NULL,
       website_id bigint,
       scope_attribute varchar(255),
       after_document_id varchar(255),
       occurred_at bigint NOT NULL${client === 'mysql' ? `,\n       INDEX ${REMOVALS_TABLE}_endpoint (endpoint_id)` : ''}
     )`,
    ...(client === 'mysql' ? [] : [`CREATE INDEX IF NOT EXISTS ${REMOVALS_TABLE}_endpoint ON ${REMOVALS_TABLE} (endpoint_id)`]),
  ];
};
