/**
 * Removals on a grant change (issue 18, contract section 16): when a key's grants change so that it can no
 * longer read a resource (webhooks/lost-resources.ts), each of its webhook endpoints that subscribes to
 * removals and to that resource is sent `record.unpublished` with a removal for every record of it.
 *
 *   plan  in the grant change's own transaction (services/keys.ts), one row per endpoint and lost resource
 *         in `public_api_webhook_removals` (removals-table.ts): a grant change that rolls back plans
 *         nothing, a committed one always has its rows, and they survive a restart. Nothing is read of the
 *         records then: however many there are, the change costs a few inserts.
 *   run   each dispatcher turn (services/webhooks/dispatcher.ts), for a bounded number of rows: the next page
 *         of the resource's published documents after the row's keyset position (by document id, on
 *         Strapi's document_id index; no OFFSET, no count), at most the room left in the endpoint's queue
 *         and `fanOutBatch`; then, in one transaction, the removals are queued like any other event
 *         (services/webhooks/deliveries.ts) and the row's position moves on, on the condition that it is still
 *         the one read (compare and set: of two instances working one row, one commits, the other rolls
 *         back, so each removal is queued once); the last page deletes the row.
 *
 * A row is dropped without sending when its endpoint was deleted, its key was revoked or deleted (with the
 * key, `forgetKey`) or has expired (a key that reads nothing is sent nothing; its endpoints are turned off),
 * its content type no longer exists, or the key reads the resource again (a grant given back before the
 * removals went out). While its endpoint is turned off the row waits, as the journal's events do.
 *
 * The records named are those published when the row's page is read: a record unpublished or deleted
 * between the grant change and that page was in the key's view but gets no removal of its own from here
 * (docs/api.md, "Webhooks", says so).
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { webhookSettings } from '../../config/webhooks';
import { connectionOf, databaseClient, inTransaction } from '../../database/connection';
import { allows } from '../../grants/projection';
import type { KeyGrants } from '../../grants/types';
import { readModelOf } from '../../read/model';
import { CMS_PREFIX, type Resource } from '../../registry/types';
import { keyUnusable } from '../../webhooks/key-state';
import { endpointWants, lostResources, REMOVAL_EVENT, type LostResource } from '../../webhooks/lost-resources';
import { eventBody, removalOf } from '../../webhooks/message';
import { getService } from '../../utils/get-service';
import type { NewDelivery } from './deliveries';
import { toEndpoint, WEBHOOK_ENDPOINT_UID, type EndpointRow } from './endpoints';
import { REMOVALS_TABLE, removalsTableStatements } from './removals-table';

/** How many rows one turn works on. */
export const REMOVAL_JOBS_PER_TURN = 16;

type JobRow = {
  id: number | string;
  endpoint_id: number | string;
  resource_id: string;
  record_type: string;
  content_type: string;
  website_id: number | string | null;
  scope_attribute: string | null;
  after_document_id: string | null;
  occurred_at: number | string;
};

type Schema = { options?: { draftAndPublish?: boolean } };

/** The event id of one removal: one per row and document, never one of the journal's (`msg_<endpoint>_<seq>`). */
export const removalEventId = (endpointId: number, jobId: number, documentId: string): string =>
  `msg_${endpointId}_g${jobId}_${documentId}`;

/** Another instance moved the row first: this page's deliveries are rolled back. */
class RowMoved extends Error {}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = () => strapi.db.connection as unknown as Knex;

  /** The row, where it still is at `after`: `after_document_id` compared null-safe. */
  const atPosition = (builder: Knex.QueryBuilder, id: number, after: string | null) => {
    builder.where('id', id);
    if (after === null) builder.whereNull('after_document_id');
    else builder.where('after_document_id', after);
    return builder;
  };

  /** The next page of published documents of the row's resource after its position (keyset by document id). */
  const documentsPage = async (job: JobRow, limit: number): Promise<string[] | null> => {
    const schema = strapi.contentTypes[job.content_type as keyof typeof strapi.contentTypes] as unknown as Schema | undefined;
    if (!schema) return null;
    const model = readModelOf(strapi, job.content_type);
    const query = knex()(model.table).distinct('document_id').whereNotNull('document_id').orderBy('document_id').limit(limit);
    if (schema.options?.draftAndPublish === true) query.whereNotNull('published_at');
    if (job.after_document_id !== null) query.where('document_id', '>', job.after_document_id);
    if (job.scope_attribute !== null && job.website_id !== null) {
      const join = model.relations[job.scope_attribute];
      if (!join) return null;
      query.whereIn('id', knex()(join.table).select(join.ownerColumn).where(join.targetColumn, Number(job.website_id)));
    }
    const rows = (await query) as { document_id: string }[];
    return rows.map((row) => String(row.document_id));
  };

  const drop = (id: number) => knex()(REMOVALS_TABLE).where('id', id).delete();

  /** Queues the next page of one row; the number of deliveries queued. */
  const runOne = async (job: JobRow): Promise<number> => {
    const id = Number(job.id);
    const endpointRow = (await strapi.db
      .query(WEBHOOK_ENDPOINT_UID)
      .findOne({ where: { id: Number(job.endpoint_id) } })) as EndpointRow | null;
    if (!endpointRow) {
      await drop(id);
      return 0;
    }
    if (!endpointRow.enabled) return 0;
    const endpoint = toEndpoint(endpointRow);
    const key = await getService('keys').findOne(endpoint.apiKey);
    if (keyUnusable(key, Date.now()) || !key || allows(key.grants, job.resource_id, 'read')) {
      await drop(id);
      return 0;
    }
    const settings = webhookSettings(strapi);
    const queued = await getService('webhook-deliveries').pendingUpTo(endpoint.id, settings.queuePerEndpoint);
    const room = Math.min(settings.fanOutBatch, settings.queuePerEndpoint - queued);
    if (room <= 0) return 0;
    const documents = await documentsPage(job, room);
    if (documents === null) {
      await drop(id);
      return 0;
    }
    const occurredAt = Number(job.occurred_at);
    const deliveries: NewDelivery[] = documents.map((documentId) => {
      const gone = removalOf(job.record_type, documentId, new Date(occurredAt));
      return {
        endpoint: endpoint.id,
        eventId: removalEventId(endpoint.id, id, documentId),
        event: REMOVAL_EVENT,
        resource: job.resource_id,
        recordId: documentId,
        seq: null,
        occurredAt,
        payload: eventBody(REMOVAL_EVENT, new Date(occurredAt), { ...gone, meta: { ...gone.meta, resource: job.resource_id } }),
      };
    });
    const last = documents.length === room ? documents.at(-1)! : null;
    try {
      await inTransaction(strapi, async () => {
        const connection = connectionOf(strapi);
        await getService('webhook-deliveries').enqueue(connection, deliveries);
        const moved =
          last === null
            ? await atPosition(connection(REMOVALS_TABLE), id, job.after_document_id).delete()
            : await atPosition(connection(REMOVALS_TABLE), id, job.after_document_id).update({ after_document_id: last });
        if (Number(moved) !== 1) throw new RowMoved();
      });
    } catch (error) {
      if (error instanceof RowMoved) return 0;
      throw error;
    }
    return deliveries.length;
  };

  return {
    /** Creates the table and its index when missing (every start; idempotent). */
    async ensure(): Promise<void> {
      for (const statement of removalsTableStatements(databaseClient(strapi))) await knex().raw(statement);
    },

    /**
     * What a grant change from `before` to `after` takes out of the key's view (webhooks/lost-resources.ts),
     * read before the change's transaction opens (the registry reads on the pool). `former` are resources
     * the caller knew before the change that may be gone from the registry now (a website's publications
     * before it changed).
     */
    async lost(before: KeyGrants, after: KeyGrants, former: readonly Resource[] = []): Promise<LostResource[]> {
      const registry = getService('resources');
      const ids = [...Object.keys(before.resources), ...Object.keys(after.resources)];
      const current = ids.some((resourceId) => resourceId.startsWith(CMS_PREFIX)) ? await registry.all() : registry.native();
      const byId = new Map<string, Resource>(current.map((resource) => [resource.id, resource]));
      for (const resource of former) if (!byId.has(resource.id)) byId.set(resource.id, resource);
      return lostResources(before, after, (resourceId) => byId.get(resourceId));
    },

    /**
     * Plans the removals of `lost` on `connection` (the grant change's transaction): one row per endpoint of
     * the key (on or off) that subscribes to removals and to the resource. Answers how many rows were written.
     */
    async plan(connection: Knex, keyRowId: number, lost: readonly LostResource[], now = Date.now()): Promise<number> {
      if (lost.length === 0) return 0;
      const endpoints = ((await strapi.db.query(WEBHOOK_ENDPOINT_UID).findMany({ where: { apiKey: keyRowId } })) as EndpointRow[]).map(
        toEndpoint,
      );
      const rows = endpoints.flatMap((endpoint) =>
        lost
          .filter((resource) => endpointWants(endpoint, resource))
          .map((resource) => ({
            endpoint_id: endpoint.id,
            resource_id: resource.resourceId,
            record_type: resource.recordType,
            content_type: resource.uid,
            website_id: resource.websiteId,
            scope_attribute: resource.scopeAttribute,
            after_document_id: null,
            occurred_at: now,
          })),
      );
      if (rows.length) await connection(REMOVALS_TABLE).insert(rows);
      return rows.length;
    },

    /** One turn: the next page of up to REMOVAL_JOBS_PER_TURN rows, oldest first; the deliveries queued. */
    async run(): Promise<number> {
      // Rows of endpoints turned off wait without taking a turn's places; those of deleted endpoints are dropped.
      const endpoints = readModelOf(strapi, WEBHOOK_ENDPOINT_UID);
      const jobs = (await knex()(`${REMOVALS_TABLE} as j`)
        .select('j.*')
        .whereNotExists(
          knex()(endpoints.table)
            .select(knex().raw('1'))
            .where(endpoints.columns.id ?? 'id', knex().ref('j.endpoint_id'))
            .andWhere(endpoints.columns.enabled ?? 'enabled', false),
        )
        .orderBy('j.id')
        .limit(REMOVAL_JOBS_PER_TURN)) as JobRow[];
      let queued = 0;
      for (const job of jobs) queued += await runOne(job);
      return queued;
    },

    /**
     * Drops the rows of a key's endpoints, on `connection` (the revocation's or deletion's transaction): a
     * key that reads nothing is sent nothing, and its endpoints are turned off, so the rows would only wait.
     */
    async forgetKey(connection: Knex, keyRowId: number): Promise<void> {
      const endpoints = readModelOf(strapi, WEBHOOK_ENDPOINT_UID);
      await connection(REMOVALS_TABLE)
        .whereIn(
          'endpoint_id',
          connection(endpoints.table)
            .select(endpoints.columns.id ?? 'id')
            .where(endpoints.columns.apiKey ?? 'api_key', keyRowId),
        )
        .delete();
    },

    /** How many rows wait (bounded; the admin and tests). */
    async pending(bound = 1000): Promise<number> {
      const rows = (await knex()(REMOVALS_TABLE).select('id').limit(bound)) as unknown[];
      return rows.length;
    },
  };
};
