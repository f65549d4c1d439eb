/**
 * The webhook queue and delivery log (contract section 16): one row per event for one endpoint, written
 * by the fan-out in the same transaction that moves the endpoint's journal position past it, so an event
 * is queued exactly once per endpoint (webhooks/dispatcher).
 *
 *   claim    an instance takes due rows of one endpoint in one statement: on PostgreSQL the rows are picked
 *            `FOR UPDATE SKIP LOCKED` (instances claiming at once get different rows, nobody waits); on
 *            SQLite there is one writer; on MySQL and MariaDB (no UPDATE ... RETURNING) the rows are picked
 *            `FOR UPDATE SKIP LOCKED` in a transaction, then updated and read by id. Claiming counts the attempt and moves `next_attempt_at` to the end
 *            of a lease: if the instance dies while sending (kill -9), the row is due again when the lease
 *            runs out and another instance sends it (at least once; receivers deduplicate by webhook-id).
 *   settle   the attempt's outcome, under the claim's token: delivered, or the next attempt (backoff with
 *            full jitter), or failed after about 24 hours.
 *   list     the log of one endpoint, newest first, keyset-paged by id.
 *   redeliver  a new row with the same event id and body, due now.
 *   prune    finished rows older than the retention, a bounded number per turn.
 *
 * Times are epoch milliseconds in integer columns, the same on SQLite, PostgreSQL and MariaDB. A row's
 * columns and what it becomes are delivery-rows.ts.
 */
import { randomUUID } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Knex } from 'knex';
import type { AdminWebhookDelivery, WebhookEventName } from '../../../../shared/contracts/webhooks';
import { connectionOf, databaseClient } from '../../database/connection';
import { inSubquery } from '../../database/derived';
import { quoteIdentifier } from '../../database/identifiers';
import { readModelOf } from '../../read/model';
import { ATTRIBUTES, deliveryRows, type AttemptOutcome, type ClaimedDelivery, type Row } from './delivery-rows';
import { WEBHOOK_ENDPOINT_UID } from './endpoints';

export { WEBHOOK_DELIVERY_UID, type AttemptOutcome, type ClaimedDelivery } from './delivery-rows';

/** Deliveries per page of the admin's log. */
export const LOG_PAGE = 50;

/** An event to queue for an endpoint. */
export type NewDelivery = {
  endpoint: number;
  eventId: string;
  event: WebhookEventName;
  resource: string | null;
  recordId: string | null;
  seq: number | null;
  occurredAt: number;
  payload: string;
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const { model, toAdmin, returned, toClaimed } = deliveryRows(strapi);
  /** The plugin's transaction when one is running (the dispatcher's batches on SQLite), else the pool. */
  const knex = (): Knex => connectionOf(strapi);

  /**
   * The claim on MySQL and MariaDB, which update without RETURNING (MariaDB returns rows from INSERT and
   * DELETE only) and refuse a subquery of the table they update: the due rows are picked and locked
   * (`FOR UPDATE SKIP LOCKED`: instances claiming at once get different rows, nobody waits), then taken
   * under the token and read back by id, in one transaction. The locks keep the rows as picked until it
   * commits.
   */
  const claimWithoutReturning = async (endpoint: number, limit: number, leaseMs: number, now: number, token: string) => {
    const { table, c } = model();
    const rows = await knex().transaction(async (trx) => {
      const picked = (await trx(table)
        .select(c.id)
        .where(c.endpoint, endpoint)
        .andWhere(c.status, 'pending')
        .andWhere(c.nextAttemptAt, '<=', now)
        .orderBy([c.nextAttemptAt, c.id])
        .limit(limit)
        .forUpdate()
        .skipLocked()) as Row[];
      if (picked.length === 0) return [];
      const ids = picked.map((row) => Number(row[c.id]));
      await trx(table)
        .whereIn(c.id, ids)
        .update({
          [c.leaseToken]: token,
          [c.nextAttemptAt]: now + leaseMs,
          [c.attempts]: trx.raw('?? + 1', [c.attempts]),
          [c.firstAttemptAt]: trx.raw('COALESCE(??, ?)', [c.firstAttemptAt, now]),
        });
      return (await trx(table)
        .select(c.id, c.endpoint, c.eventId, c.payload, c.attempts, c.firstAttemptAt)
        .whereIn(c.id, ids)
        .orderBy([c.nextAttemptAt, c.id])) as Row[];
    });
    return rows.map((row) => toClaimed(row, token));
  };

  return {
    /** Queues events, on `trx` (the fan-out's transaction, which also moves the endpoint's position). */
    async enqueue(trx: Knex, deliveries: readonly NewDelivery[], now = Date.now()): Promise<void> {
      if (deliveries.length === 0) return;
      const { table, c } = model();
      const at = new Date(now);
      const rows = deliveries.map((delivery) => ({
        [c.endpoint]: delivery.endpoint,
        [c.eventId]: delivery.eventId,
        [c.event]: delivery.event,
        [c.resource]: delivery.resource,
        [c.recordId]: delivery.recordId,
        [c.seq]: delivery.seq,
        [c.occurredAt]: delivery.occurredAt,
        [c.payload]: delivery.payload,
        [c.status]: 'pending',
        [c.attempts]: 0,
        [c.nextAttemptAt]: now,
        [c.createdAt]: at,
        [c.updatedAt]: at,
      }));
      // A few hundred rows per statement keeps under SQLite's bound-parameter limit.
      for (let at0 = 0; at0 < rows.length; at0 += 200) await trx(table).insert(rows.slice(at0, at0 + 200));
    },

    /** Pending deliveries of an endpoint, counted up to `bound` (the queue's bound: never a full count). */
    /**
     * Seconds since the oldest delivery still waiting was queued (0 when none waits): the outbox's lag, read
     * by the metrics at each scrape (services/metrics.ts). One MIN over the pending rows, which the queue bounds.
     */
    async oldestPendingAgeSeconds(now = Date.now()): Promise<number> {
      const { table, c } = model();
      const row = (await knex()(table).min({ oldest: c.createdAt }).where(c.status, 'pending').first()) as Row | undefined;
      const oldest = row?.oldest;
      if (oldest === null || oldest === undefined) return 0;
      const at = new Date(typeof oldest === 'string' && /^\d+$/.test(oldest) ? Number(oldest) : (oldest as string | number)).getTime();
      return Number.isFinite(at) ? Math.max(0, (now - at) / 1000) : 0;
    },

    async pendingUpTo(endpoint: number, bound: number, connection: Knex = knex()): Promise<number> {
      const { table, c } = model();
      const inner = connection(table).select(c.id).where(c.endpoint, endpoint).andWhere(c.status, 'pending').limit(bound);
      const [row] = (await connection.count({ n: '*' }).from(inner.as('queued'))) as { n: number | string }[];
      return Number(row?.n ?? 0);
    },

    /**
     * Endpoints with deliveries due at `now`, soonest first, at most `limit`: the sender claims per endpoint
     * so that one endpoint's backlog never takes every turn.
     */
    async dueEndpoints(now: number, limit: number): Promise<number[]> {
      const { table, c } = model();
      const endpoints = readModelOf(strapi, WEBHOOK_ENDPOINT_UID);
      const rows = (await knex()(table)
        .select(c.endpoint)
        .min({ due: c.nextAttemptAt })
        // A disabled endpoint's deliveries wait, without taking turns from others.
        .whereIn(c.endpoint, knex()(endpoints.table).select(endpoints.columns.id!).where(endpoints.columns.enabled!, true))
        .andWhere(c.status, 'pending')
        .andWhere(c.nextAttemptAt, '<=', now)
        .groupBy(c.endpoint)
        .orderBy('due', 'asc')
        .limit(limit)) as Row[];
      return rows.map((row) => Number(row[c.endpoint]));
    },

    /** Claims up to `limit` due deliveries of one endpoint for `leaseMs` (see the header). */
    async claim(endpoint: number, limit: number, leaseMs: number, now = Date.now()): Promise<ClaimedDelivery[]> {
      const { table, c } = model();
      const token = randomUUID();
      if (databaseClient(strapi) === 'mysql') return claimWithoutReturning(endpoint, limit, leaseMs, now, token);
      const postgres = databaseClient(strapi) === 'postgres';
      const q = (name: string) => quoteIdentifier(databaseClient(strapi), name);
      const picked =
        `SELECT ${q(c.id)} FROM ${q(table)} WHERE ${q(c.endpoint)} = ? AND ${q(c.status)} = 'pending' AND ${q(c.nextAttemptAt)} <= ? ` +
        `ORDER BY ${q(c.nextAttemptAt)}, ${q(c.id)} LIMIT ?` +
        (postgres ? ' FOR UPDATE SKIP LOCKED' : '');
      const result = await knex().raw(
        `UPDATE ${q(table)} SET ${q(c.leaseToken)} = ?, ${q(c.nextAttemptAt)} = ?, ${q(c.attempts)} = ${q(c.attempts)} + 1, ` +
          `${q(c.firstAttemptAt)} = COALESCE(${q(c.firstAttemptAt)}, ?) ` +
          `WHERE ${q(c.id)} IN (${picked}) AND ${q(c.status)} = 'pending' AND ${q(c.nextAttemptAt)} <= ? ` +
          `RETURNING ${q(c.id)}, ${q(c.endpoint)}, ${q(c.eventId)}, ${q(c.payload)}, ${q(c.attempts)}, ${q(c.firstAttemptAt)}`,
        [token, now + leaseMs, now, endpoint, now, limit, now],
      );
      return returned(result).map((row) => toClaimed(row, token));
    },

    /**
     * Records an attempt's outcome under its claim: delivered, due again at `next`, or failed (`next`
     * null). False when the claim was lost (its lease ran out and another instance took the row).
     */
    async settle(delivery: ClaimedDelivery, outcome: AttemptOutcome, next: number | null, now = Date.now()): Promise<boolean> {
      const { table, c } = model();
      const finished = outcome.ok || next === null;
      const updated = await knex()(table)
        .where(c.id, delivery.id)
        .andWhere(c.leaseToken, delivery.token)
        .andWhere(c.status, 'pending')
        .update({
          [c.status]: outcome.ok ? 'delivered' : next === null ? 'failed' : 'pending',
          [c.responseStatus]: outcome.status,
          [c.durationMs]: outcome.durationMs,
          [c.lastError]: outcome.error,
          [c.nextAttemptAt]: finished ? now : next,
          [c.finishedAt]: finished ? now : null,
          [c.leaseToken]: null,
          [c.updatedAt]: new Date(now),
        });
      return Number(updated) === 1;
    },

    /** One endpoint's log, newest first; `before`: the `meta.next` of the previous page. */
    async list(endpoint: number, before: number | null, limit = LOG_PAGE): Promise<{ data: AdminWebhookDelivery[]; next: number | null }> {
      const { table, c } = model();
      const builder = knex()(table)
        .select(ATTRIBUTES.filter((name) => name !== 'payload' && name !== 'leaseToken').map((name) => c[name]))
        .where(c.endpoint, endpoint)
        .orderBy(c.id, 'desc')
        .limit(limit + 1);
      if (before !== null) builder.andWhere(c.id, '<', before);
      const rows = (await builder) as Row[];
      const page = rows.slice(0, limit).map(toAdmin);
      return { data: page, next: rows.length > limit ? page[page.length - 1]!.id : null };
    },

    /**
     * Sends a delivery again: a new row, same event id and body, due now. Refused while the endpoint's queue
     * holds `queueBound` deliveries (the bound the fan-out keeps to): redelivering cannot grow it past that.
     */
    async redeliver(endpoint: number, id: number, queueBound: number, now = Date.now()): Promise<AdminWebhookDelivery> {
      const { table, c } = model();
      const original = (await knex()(table).where(c.id, id).andWhere(c.endpoint, endpoint).first()) as Row | undefined;
      if (!original) throw new errors.NotFoundError(`No delivery '${id}' of this endpoint.`);
      if ((await this.pendingUpTo(endpoint, queueBound)) >= queueBound)
        throw new errors.ApplicationError(
          `This endpoint already has ${queueBound} deliveries waiting, the most it may have; redeliver once they have been sent.`,
          { reason: 'webhook_queue_full', queued: queueBound },
        );
      const at = new Date(now);
      const data = {
        [c.endpoint]: endpoint,
        [c.eventId]: original[c.eventId],
        [c.event]: original[c.event],
        [c.resource]: original[c.resource],
        [c.recordId]: original[c.recordId],
        [c.seq]: original[c.seq],
        [c.occurredAt]: original[c.occurredAt],
        [c.payload]: original[c.payload],
        [c.status]: 'pending',
        [c.attempts]: 0,
        [c.nextAttemptAt]: now,
        [c.redeliveryOf]: id,
        [c.createdAt]: at,
        [c.updatedAt]: at,
      };
      const [inserted] = returned(await knex()(table).insert(data).returning(c.id));
      const newId = typeof inserted === 'object' && inserted !== null ? Number(inserted[c.id]) : Number(inserted);
      const row = (await knex()(table).where(c.id, newId).first()) as Row;
      return toAdmin(row);
    },

    /** Deletes finished deliveries that finished before `now - retentionMs`, at most `batch`. How many. */
    async prune(retentionMs: number, batch: number, now = Date.now()): Promise<number> {
      const { table, c } = model();
      const old = knex()(table)
        .select(c.id)
        .whereIn(c.status, ['delivered', 'failed'])
        .andWhere(c.finishedAt, '<', now - retentionMs)
        .limit(batch);
      return Number(
        await knex()(table)
          .whereIn(c.id, inSubquery(knex(), databaseClient(strapi), old, c.id))
          .delete(),
      );
    },

    /**
     * Keeps an endpoint's log to its newest `keep` rows: deletes finished deliveries older than those, at
     * most `batch`. Two walks of the `(endpoint, id)` index, at most `keep` and `batch` long. How many were deleted.
     */
    async trimLog(endpoint: number, keep: number, batch: number): Promise<number> {
      const { table, c } = model();
      const newest = knex()(table).select(c.id).where(c.endpoint, endpoint).orderBy(c.id, 'desc').limit(keep);
      const [row] = (await knex().min({ oldest: c.id }).from(newest.as('newest'))) as { oldest: number | string | null }[];
      // Fewer than `keep` rows: the oldest kept is the oldest there is, and nothing is older.
      if (row?.oldest === null || row?.oldest === undefined) return 0;
      const old = knex()(table)
        .select(c.id)
        .where(c.endpoint, endpoint)
        .andWhere(c.id, '<', Number(row.oldest))
        .whereIn(c.status, ['delivered', 'failed'])
        .orderBy(c.id, 'asc')
        .limit(batch);
      return Number(
        await knex()(table)
          .whereIn(c.id, inSubquery(knex(), databaseClient(strapi), old, c.id))
          .delete(),
      );
    },

    /** Deletes an endpoint's deliveries (the endpoint is being deleted). */
    async forgetEndpoint(endpoint: number): Promise<void> {
      const { table, c } = model();
      await knex()(table).where(c.endpoint, endpoint).delete();
    },
  };
};
