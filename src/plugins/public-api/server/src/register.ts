import type { Core } from '@strapi/strapi';
import { readDatetimesExactly } from './database/exact-datetimes';
import { sendPostgresQueriesOneAtATime } from './database/serial-queries';
import { createJournalMiddleware } from './services/journal/middleware';
import { createWebhookWakeMiddleware } from './services/webhooks/wake';
import { addRequestIdsTo } from './http/request-context';
import { createSlugMiddleware } from './slugs/middleware';
import { getService } from './utils/get-service';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // MySQL and MariaDB: dates of the years 0001 to 0099 read back exactly (database/exact-datetimes.ts).
  readDatetimesExactly(strapi);
  // PostgreSQL: a connection is sent one query at a time, also when Strapi sends several at once in a
  // transaction (database/serial-queries.ts).
  sendPostgresQueriesOneAtATime(strapi);
  // Tags are a JSON array of strings, edited in the content manager as a list (admin/src/components).
  strapi.customFields.register({
    name: 'tags',
    plugin: 'public-api',
    type: 'json',
  });
  // Slugs unique per website, kept on every write through the document service (the admin's too).
  strapi.documents.use(createSlugMiddleware(strapi));
  // The change journal (webhooks' outbox, the sync feed), written in each write's own transaction.
  strapi.documents.use(createJournalMiddleware(strapi, (connection, changes) => getService('journal').append(connection, changes)));
  // Webhooks: a write wakes this instance's dispatcher (services/webhooks/wake.ts).
  strapi.documents.use(createWebhookWakeMiddleware(() => getService('webhook-dispatcher').wake()));
  // Every log entry written while a request runs names its request id (docs/deployment.md, Logs).
  addRequestIdsTo(strapi.log as unknown as Parameters<typeof addRequestIdsTo>[0]);
};
