import type { Server } from 'node:http';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { databaseClient, ensureLocksTable } from './database/connection';
import { keepPreparedStatements } from './database/sqlite-statement-cache';
import { useWriteAheadLog } from './database/journal';
import { answerClientError } from './http/client-errors';
import { registerRbacActions } from './rbac';
import { renderWebhookEvents } from './serialize/webhook-events';
import { watchFileChanges } from './services/journal/files';
import { uidSlugsAcrossWebsites, type SlugSchema } from './slugs/definition';
import { getService } from './utils/get-service';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  // The commands the application registered are final now (grants, listings and OpenAPI are built from them);
  // one whose input cannot serve stops the start.
  getService('commands').close();
  // SQLite: every request commits its rate counter; in WAL mode a commit is one append (database/journal.ts).
  await useWriteAheadLog(strapi);
  // SQLite: knex's statements prepared once per connection, not on every run (database/sqlite-statement-cache.ts).
  if (databaseClient(strapi) === 'sqlite') keepPreparedStatements(strapi.db.connection as unknown as Knex);
  // MySQL and MariaDB: the rows that stand for locks held until commit (database/connection.ts).
  await ensureLocksTable(strapi);
  // Refuse to start when a configured native resource names no content type, or one that cannot be exposed
  // (e.g. an attribute named `id`).
  const resources = getService('resources');
  resources.init();
  // The read path's indexes for native resources and for what websites publish now.
  await getService('indexes').ensure(await resources.all());
  // Every request looks its key up by key id.
  await getService('indexes').ensureKeyIndex();
  // The change journal's table, and the pruning of entries past the sync retention (services/journal).
  await getService('journal').ensure();
  getService('journal').startPruning();
  // Removals planned by grant changes, queued page by page by the webhook dispatcher (services/webhooks/grant-removals.ts).
  await getService('webhook-removals').ensure();
  // Answers kept for Idempotency-Key expire after 24 hours; every instance sweeps them now and then.
  getService('idempotency').startCleanup();
  // Command uploads that a crash interrupted: their received parts, and bytes whose file row never committed.
  await getService('uploads').start();
  // Upload files' exact sizes; a replaced file gets a new content version, hence new asset URLs.
  getService('file-versions').watch();
  // A replaced or edited file changes the records that show it: journal entries for them (services/journal/files.ts).
  watchFileChanges(strapi, () => getService('webhook-dispatcher').wake());
  // What an asset URL names is kept briefly; content writes forget it.
  getService('assets').watchContent();
  // A bad transform preset stops the start, not a request.
  getService('assets').presets();
  // A uid is unique across websites (Strapi's rule): a write through one website would learn of another's.
  for (const attribute of uidSlugsAcrossWebsites(Object.values(strapi.contentTypes as unknown as Record<string, SlugSchema>))) {
    strapi.log.warn(
      `[public-api] ${attribute} is a uid on a website-scoped content type: Strapi keeps it unique across websites. ` +
        "Declare it as a string with pluginOptions['public-api'].slug to keep it unique per website (docs/api.md, Slugs).",
    );
  }
  await registerRbacActions(strapi);
  // Per-key usage counters and the audit log of admin changes: their tables, the counters' flush and rollup.
  await getService('usage').start();
  await getService('audit-log').start();
  // Webhooks: fans the change journal out to endpoints and sends due deliveries, in the background (services/webhooks).
  await getService('webhook-subscriptions').ensure();
  getService('webhook-dispatcher').start(renderWebhookEvents);
  getService('metrics').observeWebhookOutboxLag(() => getService('webhook-deliveries').oldestPendingAgeSeconds());
  // SIGTERM drains: out of the proxy's rotation first, then in-flight requests finish (docs/deployment.md).
  getService('graceful-shutdown').installSignalHandler();
  // What Node's HTTP parser refuses (an over-long URL, a request that is not HTTP) answers in JSON:API too.
  (strapi.server as unknown as { httpServer?: Server } | undefined)?.httpServer?.on('clientError', answerClientError);
};
