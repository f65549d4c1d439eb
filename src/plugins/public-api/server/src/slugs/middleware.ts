/**
 * The document service middleware that keeps plugin slugs (unique per website) on every write, whoever
 * makes it: the content manager, the Public Data API, scripts, the seed. Strapi's own uniqueness check
 * applies only to `uid` attributes, per content type; these slugs are strings it does not check.
 *
 * It works on what the write stored rather than on what it was sent (relation input comes in many
 * shapes): the write runs, then, in the same transaction and under the content type's slug lock, the
 * document's versions get a slug where they have none and are refused when a published one clashes
 * within its website, each slug value checked under its own lock (issue 34: not the content type's, so
 * writes of other slugs of the type go on). Refusing throws, so the whole write rolls back. Locks taken
 * after rows were written can meet another writer's in a deadlock, which PostgreSQL breaks by failing one
 * transaction; the API retries that write (handlers/shared/write-handler.ts).
 */
import type { Core, Modules } from '@strapi/strapi';
import type { Knex } from 'knex';
import { getService } from '../utils/get-service';

/** The actions that store values: a new or changed version, or a version copied to the other status. */
const WRITES = new Set(['create', 'update', 'clone', 'publish', 'discardDraft']);

type Entry = { id?: unknown; documentId?: unknown; [attribute: string]: unknown };

const isEntry = (value: unknown): value is Entry => typeof value === 'object' && value !== null;

/** The document a call wrote: named by the call, or (create, clone) a new one the result names. */
const documentIdOf = (action: string, params: unknown, result: unknown): string | null => {
  const named = isEntry(params) && typeof params.documentId === 'string' ? params.documentId : null;
  const made = isEntry(result) && typeof result.documentId === 'string' ? result.documentId : null;
  return action === 'create' || action === 'clone' ? made : (named ?? made);
};

/** The caller gets the versions as stored: a generated slug replaces the empty one in what is returned. */
const withGenerated = (result: unknown, attribute: string, generated: Map<number, string>): void => {
  if (generated.size === 0 || !isEntry(result)) return;
  const entries = Array.isArray(result.entries) ? result.entries.filter(isEntry) : [result];
  for (const entry of entries) {
    const slug = generated.get(Number(entry.id));
    if (slug !== undefined && attribute in entry) entry[attribute] = slug;
  }
};

export const createSlugMiddleware =
  (strapi: Core.Strapi): Modules.Documents.Middleware.Middleware =>
  async (context, next) => {
    if (!WRITES.has(context.action)) return next();
    const slugs = getService('slugs');
    const definition = slugs.definitionOf(context.uid);
    if (!definition) return next();
    // Joins the caller's transaction when there is one (the API's write), else opens the write's own.
    return strapi.db.transaction(async ({ trx }) => {
      await slugs.lockTypeOnSnapshotDatabases(context.uid, trx as unknown as Knex);
      const result = await next();
      const documentId = documentIdOf(context.action, context.params, result);
      // The locks of the slug values it generates or publishes, taken as it checks them (services/slugs.ts).
      if (documentId) withGenerated(result, definition.attribute, await slugs.settle(definition, documentId, trx as unknown as Knex));
      return result;
    });
  };
