/**
 * The fan-out: turns the change journal (the transactional outbox, services/journal) into each enabled
 * endpoint's deliveries. Per endpoint and turn:
 *
 *   1. read the journal after the endpoint's position, up to the safe horizon (entries committed and none
 *      ever to come before it), at most `fanOutBatch` entries and no more than the room left in the
 *      endpoint's queue (`queuePerEndpoint`: a receiver that is down lets the journal hold the rest);
 *   2. render the changed records as the endpoint's key reads them now (one read per resource and batch,
 *      never per record): readable -> the record, else a removal; keep the events and resources the
 *      endpoint asked for;
 *   3. in one transaction, insert the deliveries and move the position, on the condition that the position
 *      is still the one read in 1. (compare and set): of two instances fanning out the same endpoint, one
 *      commits and the other rolls back, so each entry is queued once per endpoint; a crash before the
 *      commit leaves the position, and the entries are read again (at least once, never lost).
 *
 * A new endpoint starts at the horizon when it is made: it is sent the changes from then on.
 */
import type { Core } from '@strapi/strapi';
import { webhookSettings } from '../../config/webhooks';
import { keyUnusable } from '../../webhooks/key-state';
import { eventBody, eventIdOf } from '../../webhooks/message';
import { connectionOf, inTransaction } from '../../database/connection';
import { getService } from '../../utils/get-service';
import type { NewDelivery } from './deliveries';
import { WEBHOOK_ENDPOINT_UID, type Endpoint } from './endpoints';
import type { ApiKey } from '../../keys/types';
import type { WebhookEvent } from '../../webhooks/events';
import type { JournalEntry, JournalPosition } from '../journal';

type Position = JournalPosition;

/** One event for one endpoint: the entry it comes from, and the record or removal it carries. */
export type KeyEvent = { seq: number; event: WebhookEvent; resource: string; recordId: string; occurredAt: number; data: unknown };

/**
 * What entries mean to an endpoint's key (serialize/webhook-events.ts, in the access layer: how records
 * are shown to a key is not the data layer's to know, so the edge hands it in at start).
 */
export type EventRenderer = (key: ApiKey, endpoint: Endpoint, entries: readonly JournalEntry[]) => Promise<KeyEvent[]>;

const samePosition = (a: Position | null, b: Position | null) => a !== null && b !== null && a.txid === b.txid && a.seq === b.seq;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const endpoints = () => strapi.db.query(WEBHOOK_ENDPOINT_UID);
  let render: EventRenderer | null = null;

  /** Moves the position from `from` to `to` on `connection`; false when another instance moved it first. */
  const movePosition = async (id: number, from: Position | null, to: Position): Promise<boolean> => {
    const where: Record<string, unknown> = { id };
    if (from === null) Object.assign(where, { positionTxid: null, positionSeq: null });
    else Object.assign(where, { positionTxid: from.txid, positionSeq: from.seq });
    const updated = await endpoints().updateMany({ where, data: { positionTxid: to.txid, positionSeq: to.seq } });
    return Number((updated as { count?: number }).count ?? 0) === 1;
  };

  const fanOutOne = async (endpoint: Endpoint, horizon: Position): Promise<number> => {
    const settings = webhookSettings(strapi);
    if (endpoint.position === null) {
      await movePosition(endpoint.id, null, horizon);
      return 0;
    }
    if (samePosition(endpoint.position, horizon)) return 0;
    const key = await getService('keys').findOne(endpoint.apiKey);
    const unusable = keyUnusable(key, Date.now());
    if (unusable || !key) {
      // Nothing is queued for a key that reads nothing; the admin shows why the endpoint stopped.
      await getService('webhook-endpoints').disable(endpoint.id, unusable ?? 'The key was deleted.');
      return 0;
    }
    const queued = await getService('webhook-deliveries').pendingUpTo(endpoint.id, settings.queuePerEndpoint);
    const room = Math.min(settings.fanOutBatch, settings.queuePerEndpoint - queued);
    if (room <= 0) return 0;
    const read = await getService('journal').entries(endpoint.position, horizon, room);
    const next: Position = read.next ?? horizon;
    const events = read.entries.length ? await render!(key, endpoint, read.entries) : [];
    const deliveries: NewDelivery[] = events.map((event) => ({
      endpoint: endpoint.id,
      eventId: eventIdOf(endpoint.id, event.seq),
      event: event.event,
      resource: event.resource,
      recordId: event.recordId,
      seq: event.seq,
      occurredAt: event.occurredAt,
      payload: eventBody(event.event, new Date(event.occurredAt), event.data),
    }));
    const from = endpoint.position;
    try {
      await inTransaction(strapi, async () => {
        // Strapi's query engine joins this transaction by itself; the inserts are raw SQL on it.
        await getService('webhook-deliveries').enqueue(connectionOf(strapi), deliveries);
        if (!(await movePosition(endpoint.id, from, next))) throw new PositionMoved();
      });
    } catch (error) {
      if (error instanceof PositionMoved) return 0;
      throw error;
    }
    return deliveries.length;
  };

  return {
    /** Sets how entries become events (bootstrap hands in serialize/webhook-events.ts). */
    useRenderer(renderer: EventRenderer) {
      render = renderer;
    },

    /** One fan-out turn over every enabled endpoint; the number of deliveries queued. */
    async run(): Promise<number> {
      if (!render) return 0;
      const list = await getService('webhook-endpoints').enabled();
      if (list.length === 0) return 0;
      const horizon = await getService('journal').horizon();
      let queued = 0;
      for (const endpoint of list) queued += await fanOutOne(endpoint, horizon);
      return queued;
    },

    /** The journal's horizon now: where a new endpoint starts. */
    async horizon(): Promise<Position> {
      return getService('journal').horizon();
    },
  };
};

/** Another instance moved the position first: this turn's deliveries are rolled back. */
class PositionMoved extends Error {}
