/**
 * The fan-out: turns the change journal (the transactional outbox, services/journal) into the deliveries
 * of the endpoints that subscribe to the changes, with work proportional to those changes, never to the
 * number of endpoints.
 *
 * Each instance keeps a **frontier** (where its look at the journal has got to) and a list of endpoints
 * **to look at**. Per turn:
 *
 *   1. The subscription index (services/webhooks/subscriptions.ts: one small read when no endpoint
 *      changed anywhere); endpoints new or changed since the last reading are to be looked at (on the first
 *      turn after a start: every enabled endpoint, once).
 *   2. The content types of the next entries after the frontier, up to the safe horizon, at most
 *      `scanBatch` of them (one read of three columns); the endpoints that subscribe to any of those types
 *      (and those that subscribe to everything) are to be looked at; the frontier moves past the batch.
 *   3. At most `endpointsPerTurn` endpoints to look at, each: its row read again (an endpoint turned off or
 *      deleted since is dropped), then, as before, the journal read after the endpoint's own position,
 *      only the content types of the resources it lists that its key may read, up to the horizon, at most
 *      `fanOutBatch` entries and no more than the room in its queue (`queuePerEndpoint`); the changed records
 *      rendered as its key reads them now; its position moved and the deliveries inserted in one
 *      transaction, on the condition that the position is still the one read (compare and set: of two
 *      instances working on one endpoint, one commits and the other rolls back; a crash before the commit
 *      leaves the position, and the entries are read again: at least once, never lost). An endpoint with
 *      more to read stays on the list for the next turn (which comes at once); one whose queue is full
 *      waits `pollIntervalMs` before it is looked at again.
 *
 * An endpoint's position is moved only when it is looked at: entries of other types pile up behind it,
 * and its next read skips them on the index of its own types. A new endpoint starts at the horizon when
 * it is made: it is sent the changes from then on.
 */
import type { Core } from '@strapi/strapi';
import { webhookSettings } from '../../config/webhooks';
import { keyUnusable } from '../../webhooks/key-state';
import { eventBody, eventIdOf } from '../../webhooks/message';
import { connectionOf, inTransaction } from '../../database/connection';
import { getService } from '../../utils/get-service';
import type { NewDelivery } from './deliveries';
import { WEBHOOK_ENDPOINT_UID, toEndpoint, type Endpoint, type EndpointRow } from './endpoints';
import { endpointsFor } from '../../webhooks/subscriptions';
import type { ApiKey } from '../../keys/types';
import type { WebhookEvent } from '../../webhooks/events';
import type { JournalEntry, JournalPosition } from '../journal';

type Position = JournalPosition;

/** One event for one endpoint: the entry it comes from, and the record or removal it carries. */
export type KeyEvent = { seq: number; event: WebhookEvent; resource: string; recordId: string; occurredAt: number; data: unknown };

/**
 * What entries mean to an endpoint's key (serialize/webhook-events.ts, in the access layer: how records
 * are shown to a key is not the data layer's to know, so the edge hands it in at start), and which content
 * types can mean anything to it at all (those of the resources it lists that its key may read).
 */
export type EventRenderer = ((key: ApiKey, endpoint: Endpoint, entries: readonly JournalEntry[]) => Promise<KeyEvent[]>) & {
  contentTypes: (key: ApiKey, endpoint: Endpoint) => Promise<string[]>;
};

/** Journal entries whose content types one turn looks at (three columns each). */
export const SCAN_BATCH = 1000;
/** Endpoints one turn works on at most; the rest are worked on at the next turn, which comes at once. */
export const ENDPOINTS_PER_TURN = 100;

/** How looking at one endpoint ended. */
type Outcome = 'done' | 'more' | 'full' | 'raced' | 'gone';

/**
 * What one turn did: deliveries queued, the endpoints worked on and those given deliveries (whose log the
 * dispatcher trims), and whether work is left for a turn at once.
 */
export type FanOutTurn = { queued: number; endpoints: number[]; filled: number[]; more: boolean };

const samePosition = (a: Position | null, b: Position | null) => a !== null && b !== null && a.txid === b.txid && a.seq === b.seq;
const before = (a: Position, b: Position) => a.txid < b.txid || (a.txid === b.txid && a.seq < b.seq);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const endpoints = () => strapi.db.query(WEBHOOK_ENDPOINT_UID);
  let render: EventRenderer | null = null;
  /** Where this instance's look at the journal has got to; null until the first turn (then: the horizon). */
  let frontier: Position | null = null;
  /** Endpoints to look at, in the order they came, with the time before which they wait (a full queue). */
  const toLook = new Map<number, number>();

  const look = (ids: Iterable<number>) => {
    for (const id of ids) if (!toLook.has(id)) toLook.set(id, 0);
  };

  /** Moves the position from `from` to `to` on `connection`; false when another instance moved it first. */
  const movePosition = async (id: number, from: Position | null, to: Position): Promise<boolean> => {
    const where: Record<string, unknown> = { id };
    if (from === null) Object.assign(where, { positionTxid: null, positionSeq: null });
    else Object.assign(where, { positionTxid: from.txid, positionSeq: from.seq });
    const updated = await endpoints().updateMany({ where, data: { positionTxid: to.txid, positionSeq: to.seq } });
    return Number((updated as { count?: number }).count ?? 0) === 1;
  };

  const fanOutOne = async (id: number, horizon: Position): Promise<{ outcome: Outcome; queued: number }> => {
    const row = (await endpoints().findOne({ where: { id } })) as EndpointRow | null;
    if (!row || !row.enabled) return { outcome: 'gone', queued: 0 };
    const endpoint = toEndpoint(row);
    const settings = webhookSettings(strapi);
    if (endpoint.position === null) {
      await movePosition(endpoint.id, null, horizon);
      return { outcome: 'done', queued: 0 };
    }
    if (samePosition(endpoint.position, horizon) || !before(endpoint.position, horizon)) return { outcome: 'done', queued: 0 };
    const key = await getService('keys').findOne(endpoint.apiKey);
    const unusable = keyUnusable(key, Date.now());
    if (unusable || !key) {
      // Nothing is queued for a key that reads nothing; the admin shows why the endpoint stopped.
      await getService('webhook-endpoints').disable(endpoint.id, unusable ?? 'The key was deleted.');
      return { outcome: 'gone', queued: 0 };
    }
    const queued = await getService('webhook-deliveries').pendingUpTo(endpoint.id, settings.queuePerEndpoint);
    const room = Math.min(settings.fanOutBatch, settings.queuePerEndpoint - queued);
    if (room <= 0) return { outcome: 'full', queued: 0 };
    const read = await getService('journal').entries(endpoint.position, horizon, room, await render!.contentTypes(key, endpoint));
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
        // The position first: when another instance moved it, nothing is written (also when this runs
        // inside a larger transaction, the dispatcher's turn on SQLite). Strapi's query engine joins this
        // transaction by itself; the inserts are raw SQL on it.
        if (!(await movePosition(endpoint.id, from, next))) throw new PositionMoved();
        await getService('webhook-deliveries').enqueue(connectionOf(strapi), deliveries);
      });
    } catch (error) {
      if (error instanceof PositionMoved) return { outcome: 'raced', queued: 0 };
      throw error;
    }
    return { outcome: read.next === null ? 'done' : 'more', queued: deliveries.length };
  };

  return {
    /** Sets how entries become events (bootstrap hands in serialize/webhook-events.ts). */
    useRenderer(renderer: EventRenderer) {
      render = renderer;
    },

    /** One fan-out turn (see the header). */
    async run(now = Date.now()): Promise<FanOutTurn> {
      const turn: FanOutTurn = { queued: 0, endpoints: [], filled: [], more: false };
      if (!render) return turn;
      const { index, changed } = await getService('webhook-subscriptions').current();
      look(changed);
      const horizon = await getService('journal').horizon();
      if (frontier === null) frontier = horizon;
      if (before(frontier, horizon)) {
        const batch = await getService('journal').contentTypes(frontier, horizon, SCAN_BATCH);
        look(endpointsFor(index, batch.uids));
        frontier = batch.next ?? horizon;
        if (batch.next) turn.more = true;
      }
      const { pollIntervalMs } = webhookSettings(strapi);
      for (const [id, notBefore] of [...toLook]) {
        if (turn.endpoints.length >= ENDPOINTS_PER_TURN) {
          turn.more = true;
          break;
        }
        if (notBefore > now) continue;
        toLook.delete(id);
        turn.endpoints.push(id);
        const { outcome, queued } = await fanOutOne(id, horizon);
        turn.queued += queued;
        if (queued > 0) turn.filled.push(id);
        if (outcome === 'more' || outcome === 'raced') {
          // Back of the line: the others get their turn first.
          toLook.set(id, 0);
          turn.more = true;
        } else if (outcome === 'full') toLook.set(id, now + pollIntervalMs);
      }
      return turn;
    },

    /** Endpoints this instance has yet to look at (tests, metrics). */
    waiting(): number {
      return toLook.size;
    },

    /** The journal's horizon now: where a new endpoint starts. */
    async horizon(): Promise<Position> {
      return getService('journal').horizon();
    },
  };
};

/** Another instance moved the position first: this turn's deliveries are rolled back. */
class PositionMoved extends Error {}
