/**
 * A row of the webhook queue and delivery log (services/webhooks/deliveries.ts): its columns, read once
 * from Strapi's metadata, and what a row becomes: a claimed delivery for the sender, a delivery of the
 * admin's log.
 */
import type { Core } from '@strapi/strapi';
import type { AdminWebhookDelivery, WebhookDeliveryStatus, WebhookEventName } from '../../../../shared/contracts/webhooks';
import { readModelOf } from '../../read/model';

export const WEBHOOK_DELIVERY_UID = 'plugin::public-api.webhook-delivery';

/** The columns of a row, by attribute: the admin's log reads all but the payload and lease token. */
export const ATTRIBUTES = [
  'id',
  'endpoint',
  'eventId',
  'event',
  'resource',
  'recordId',
  'seq',
  'occurredAt',
  'payload',
  'status',
  'attempts',
  'firstAttemptAt',
  'nextAttemptAt',
  'leaseToken',
  'responseStatus',
  'durationMs',
  'lastError',
  'finishedAt',
  'redeliveryOf',
  'createdAt',
  'updatedAt',
] as const;
type Attribute = (typeof ATTRIBUTES)[number];
export type Row = Record<string, unknown>;

/** A claimed delivery: what the sender needs. */
export type ClaimedDelivery = {
  id: number;
  endpoint: number;
  eventId: string;
  payload: string;
  attempts: number;
  firstAttemptAt: number;
  token: string;
};

export type AttemptOutcome = { ok: boolean; status: number | null; durationMs: number; error: string | null };

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** The queue's table and columns, and its rows as the service's callers take them. */
export const deliveryRows = (strapi: Core.Strapi) => {
  let columns: Record<Attribute, string> | null = null;
  let table = '';
  const model = () => {
    if (!columns) {
      const read = readModelOf(strapi, WEBHOOK_DELIVERY_UID);
      table = read.table;
      columns = Object.fromEntries(ATTRIBUTES.map((name) => [name, read.columns[name] ?? name])) as Record<Attribute, string>;
    }
    return { table, c: columns };
  };

  const toAdmin = (row: Row): AdminWebhookDelivery => {
    const { c } = model();
    const status = String(row[c.status]) as WebhookDeliveryStatus;
    return {
      id: Number(row[c.id]),
      eventId: String(row[c.eventId]),
      event: String(row[c.event]) as WebhookEventName,
      resource: (row[c.resource] as string | null) ?? null,
      recordId: (row[c.recordId] as string | null) ?? null,
      status,
      attempts: Number(row[c.attempts]),
      responseStatus: num(row[c.responseStatus]),
      durationMs: num(row[c.durationMs]),
      lastError: (row[c.lastError] as string | null) ?? null,
      occurredAt: Number(row[c.occurredAt]),
      firstAttemptAt: num(row[c.firstAttemptAt]),
      nextAttemptAt: status === 'pending' ? num(row[c.nextAttemptAt]) : null,
      finishedAt: num(row[c.finishedAt]),
      redeliveryOf: num(row[c.redeliveryOf]),
      createdAt: new Date(row[c.createdAt] as string).toISOString(),
    };
  };

  /** Rows returned by an UPDATE ... RETURNING through knex.raw on either database. */
  const returned = (result: unknown): Row[] => (Array.isArray(result) ? (result as Row[]) : ((result as { rows?: Row[] }).rows ?? []));

  const toClaimed = (row: Row, token: string): ClaimedDelivery => {
    const { c } = model();
    return {
      id: Number(row[c.id]),
      endpoint: Number(row[c.endpoint]),
      eventId: String(row[c.eventId]),
      payload: String(row[c.payload]),
      attempts: Number(row[c.attempts]),
      firstAttemptAt: Number(row[c.firstAttemptAt]),
      token,
    };
  };

  return { model, toAdmin, returned, toClaimed };
};
