/**
 * The webhook dispatcher: runs in the background of every instance (started in bootstrap, stopped in
 * destroy; woken after local writes, services/webhooks/wake.ts). Each turn it
 *
 *   1. fans the change journal out into each enabled endpoint's queue (webhook-fan-out), and queues the
 *      next page of the removals grant changes planned (webhook-removals), and
 *   2. sends due deliveries: it asks for endpoints with due work (soonest first), claims a few rows of each
 *      (services/webhooks/deliveries.ts: one instance per row), signs and sends them, and settles each.
 *
 * Bounds: at most `sendsInFlight` sends per instance and `sendsPerEndpoint` per endpoint (a slow receiver
 * holds only its own turns), one send lasts at most `timeoutMs`, at most `responseBytes` of an answer are
 * read. Turns come every `pollIntervalMs`, sooner when woken (a local commit, a finished send). Finished
 * log rows older than the retention are pruned a bounded number at a time.
 *
 * An endpoint that has failed for the retry window (about 24 h) without a success is disabled with the
 * reason; so is one whose key was revoked, has expired or was deleted (a key that reads nothing is sent
 * nothing).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Core } from '@strapi/strapi';
import { webhookSettings, type WebhookSettings } from '../../config/webhooks';
import { keyUnusable } from '../../webhooks/key-state';
import { signedHeaders } from '../../webhooks/message';
import { failedTooLong, nextAttemptAt } from '../../webhooks/retry';
import { databaseClient, inTransaction } from '../../database/connection';
import { getService } from '../../utils/get-service';
import { sendWebhook } from './client';
import type { AttemptOutcome, ClaimedDelivery } from './deliveries';
import { createSettleBatcher } from './settle-batcher';
import type { EventRenderer } from './fan-out';
import { WEBHOOK_ENDPOINT_UID, type EndpointRow } from './endpoints';

/** How many endpoints with due work one turn looks at. */
const ENDPOINTS_PER_TURN = 64;
/** On SQLite, how many rounds of an endpoint's sends one claim takes (see `claimDue`). */
export const CLAIM_ROUNDS = 8;

type Claimed = { row: EndpointRow; delivery: ClaimedDelivery };
/** How often the log is pruned (sooner while a prune finds a full batch). */
const PRUNE_EVERY_MS = 60_000;
/** Endpoints whose log one prune trims at most; the others wait for the next. */
const TRIMS_PER_PRUNE = 100;

const iso = (time: number) => new Date(time).toISOString();

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let settings: WebhookSettings | null = null;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let started = false;
  let lastPrune = 0;
  let inFlight = 0;
  const perEndpoint = new Map<number, number>();
  const sends = new Set<Promise<void>>();

  const config = () => (settings ??= webhookSettings(strapi));
  const endpoints = () => strapi.db.query(WEBHOOK_ENDPOINT_UID);

  /**
   * SQLite has one connection, and writers queue for it: each statement of the dispatcher on its own would
   * wait behind every write queued before it, a dozen times per turn (docs/benchmarks.md, Webhooks). There
   * a turn's database work (the fan-out and the claims) is one transaction, the connection taken once, and
   * the outcomes of sends that end together are recorded in one transaction too (`settling`). SQLite runs
   * one process per database file, so no other instance competes for the rows. On PostgreSQL each
   * statement runs on the pool as it comes (connections of its own; claims `FOR UPDATE SKIP LOCKED` and
   * compare-and-set positions between instances, unchanged).
   */
  const sqlite = databaseClient(strapi) === 'sqlite';
  const batched = <T>(work: () => Promise<T>): Promise<T> => (sqlite ? inTransaction(strapi, work) : work());
  const settling = sqlite
    ? createSettleBatcher(batched, (error) => strapi.log.warn(`[public-api] webhook settle failed: ${error.message}`))
    : (work: () => Promise<void>) => work();

  /**
   * Runs a callback in the context `start` was called in (bootstrap's). A wake comes from inside a write,
   * whose transaction the async context carries (Strapi's and the plugin's): a turn must never run in it,
   * since that transaction has ended (or is about to) by the time the turn reads and writes.
   */
  let inStartContext: <R>(callback: () => R) => R = (callback) => callback();

  const schedule = (delayMs: number) => {
    if (!started) return;
    if (timer) clearTimeout(timer);
    timer = inStartContext(() => setTimeout(() => void turn(), delayMs));
    timer.unref();
  };

  /** Sends one claimed delivery and settles it; the endpoint's failure streak follows the outcome. */
  const deliver = async (row: EndpointRow, delivery: ClaimedDelivery) => {
    const { timeoutMs, responseBytes, allowHttpLoopback } = config();
    const secrets = getService('webhook-endpoints').signingSecrets(row);
    const headers = signedHeaders(delivery.eventId, delivery.payload, secrets, new Date());
    const outcome = await sendWebhook(row.url, { ...headers }, delivery.payload, { timeoutMs, responseBytes, allowHttpLoopback });
    await settling(() => settle(row, delivery, outcome));
  };

  /** Records an attempt's outcome; the endpoint's failure streak follows it. */
  const settle = async (row: EndpointRow, delivery: ClaimedDelivery, outcome: AttemptOutcome) => {
    const { retry } = config();
    const now = Date.now();
    const next = outcome.ok ? null : nextAttemptAt(retry, delivery.firstAttemptAt, delivery.attempts, now);
    if (outcome.ok) {
      // The row read before the send says whether a streak is to be ended (no read after a success). Ended
      // before the delivery is marked delivered: whoever reads a delivered delivery (the admin's log) never
      // sees its endpoint still failing since before it.
      if (row.failingSince !== null && row.failingSince !== undefined)
        await endpoints().update({ where: { id: row.id }, data: { failingSince: null } });
      await getService('webhook-deliveries').settle(delivery, outcome, next, now);
      return;
    }
    await getService('webhook-deliveries').settle(delivery, outcome, next, now);
    const fresh = (await endpoints().findOne({ where: { id: row.id }, select: ['id', 'failingSince', 'enabled'] })) as Pick<
      EndpointRow,
      'id' | 'failingSince' | 'enabled'
    > | null;
    if (!fresh) return;
    const failingSince = fresh.failingSince === null || fresh.failingSince === undefined ? null : Number(fresh.failingSince);
    // The streak starts with the first attempt of the first delivery that failed since the last success.
    const since = failingSince === null ? delivery.firstAttemptAt : Math.min(failingSince, delivery.firstAttemptAt);
    if (since !== failingSince) await endpoints().update({ where: { id: row.id }, data: { failingSince: since } });
    // A delivery given up after the retry window, or a streak that long: the endpoint is turned off, with why.
    if (fresh.enabled && (next === null || failedTooLong(retry, since, now))) {
      const last = outcome.error ?? 'failed';
      const reason =
        next === null
          ? `Event ${delivery.eventId} was given up after ${delivery.attempts} attempts from ${iso(delivery.firstAttemptAt)} to ${iso(now)}; the last: ${last}.`
          : `Every delivery failed from ${iso(since)} to ${iso(now)}; the last: ${last}.`;
      await getService('webhook-endpoints').disable(row.id, reason, now);
    }
  };

  /**
   * Claims due deliveries: asks for endpoints with due work (soonest first) and claims rows of each, within
   * the bounds left by the sends in flight and those claimed and waiting (`held`). Only the database work:
   * the sends start once it has committed (`launch`).
   *
   * On PostgreSQL an endpoint's claim is at most the sends it may still start (`sendsPerEndpoint`). On
   * SQLite it is up to CLAIM_ROUNDS times that: the claim waits for the one connection behind every queued
   * write, and a claim of four per wait delivers fewer events than eight writers make (the lag measured in
   * docs/benchmarks.md). The rows wait here and are sent `sendsPerEndpoint` at a time; their lease covers
   * every round (each at most the time limit, twice over, with room to record the outcome).
   */
  const claimDue = async (): Promise<Claimed[]> => {
    const { sendsInFlight, sendsPerEndpoint, timeoutMs } = config();
    const rounds = sqlite ? CLAIM_ROUNDS : 1;
    const work: Claimed[] = [];
    if (inFlight + heldCount() >= sendsInFlight * rounds) return work;
    const now = Date.now();
    const due = await getService('webhook-deliveries').dueEndpoints(now, ENDPOINTS_PER_TURN);
    for (const endpointId of due) {
      // An endpoint with claimed rows still waiting is claimed for again once they are sent.
      if (held.has(endpointId)) continue;
      const taken = inFlight + heldCount() + work.length;
      const free = Math.min(sendsInFlight * rounds - taken, (sendsPerEndpoint - (perEndpoint.get(endpointId) ?? 0)) * rounds);
      if (taken >= sendsInFlight * rounds) break;
      if (free <= 0) continue;
      const row = (await endpoints().findOne({ where: { id: endpointId } })) as EndpointRow | null;
      if (!row || !row.enabled) continue;
      const unusable = keyUnusable(await getService('keys').findOne(row.apiKey), now);
      if (unusable) {
        await getService('webhook-endpoints').disable(row.id, unusable, now);
        continue;
      }
      const leaseRounds = Math.ceil(free / sendsPerEndpoint);
      const claimed = await getService('webhook-deliveries').claim(endpointId, free, leaseRounds * 2 * timeoutMs + 5_000, now);
      for (const delivery of claimed) work.push({ row, delivery });
    }
    return work;
  };

  /** Claimed rows waiting for a send slot, per endpoint (SQLite's larger claims; see `claimDue`). */
  const held = new Map<number, Claimed[]>();
  const heldCount = () => {
    let n = 0;
    for (const waiting of held.values()) n += waiting.length;
    return n;
  };

  /** Takes committed claims: each is sent when its endpoint and the instance have a send slot free. */
  const launch = (work: readonly Claimed[]) => {
    for (const claimed of work) held.set(claimed.row.id, [...(held.get(claimed.row.id) ?? []), claimed]);
    pump();
  };

  /** Starts the sends of held claims that fit the bounds, each counted against them until it has settled. */
  const pump = () => {
    const { sendsInFlight, sendsPerEndpoint } = config();
    for (const [endpointId, waiting] of held) {
      while (waiting.length > 0 && inFlight < sendsInFlight && (perEndpoint.get(endpointId) ?? 0) < sendsPerEndpoint) {
        const { row, delivery } = waiting.shift()!;
        inFlight += 1;
        perEndpoint.set(endpointId, (perEndpoint.get(endpointId) ?? 0) + 1);
        const send = deliver(row, delivery)
          .catch((error: unknown) => {
            strapi.log.warn(`[public-api] webhook delivery ${delivery.id} failed: ${(error as Error).message}`);
          })
          .finally(() => {
            inFlight -= 1;
            const left = (perEndpoint.get(endpointId) ?? 1) - 1;
            if (left > 0) perEndpoint.set(endpointId, left);
            else perEndpoint.delete(endpointId);
            sends.delete(send);
            if (started) pump();
            sendSoon();
          });
        sends.add(send);
      }
      if (waiting.length === 0) held.delete(endpointId);
    }
  };

  const sendDue = async () => launch(await batched(claimDue));

  /**
   * After a send ends, its turn is given to the next due delivery at once: only the sending half runs
   * (the fan-out runs on writes and polls), one such run at a time.
   */
  let sendingAgain: Promise<void> | null = null;
  let sendAfter = false;
  const sendSoon = (): void => {
    if (!started) return;
    if (sendingAgain) {
      sendAfter = true;
      return;
    }
    sendingAgain = inStartContext(() =>
      sendDue()
        .catch((error: unknown) => {
          strapi.log.error(`[public-api] webhook sending failed: ${(error as Error).message}`);
        })
        .finally(() => {
          sendingAgain = null;
          if (sendAfter) {
            sendAfter = false;
            sendSoon();
          }
        }),
    );
  };

  /** Endpoints given deliveries since the last prune: their logs are trimmed to `logPerEndpoint`. */
  const filled = new Set<number>();

  /**
   * Deletes log rows past the retention, and each filled endpoint's finished rows past its newest
   * `logPerEndpoint`: at most `pruneBatch` of each per statement. When a statement deleted a full batch
   * (or endpoints were left for later), the next turn prunes again instead of waiting a minute.
   */
  const prune = async () => {
    const now = Date.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    const { logRetentionMs, pruneBatch, logPerEndpoint } = config();
    const deliveries = getService('webhook-deliveries');
    let behind = (await deliveries.prune(logRetentionMs, pruneBatch, now)) >= pruneBatch;
    for (const endpointId of [...filled].slice(0, TRIMS_PER_PRUNE)) {
      filled.delete(endpointId);
      if ((await deliveries.trimLog(endpointId, logPerEndpoint, pruneBatch)) >= pruneBatch) {
        filled.add(endpointId);
        behind = true;
      }
    }
    if (behind || filled.size > 0) lastPrune = 0;
  };

  const turn = async (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          // Removals read and write on the pool (their own transaction): outside the SQLite turn's transaction,
          // which holds the one connection.
          await getService('webhook-removals').run();
          const { fanOut, claims } = await batched(async () => ({
            fanOut: await getService('webhook-fan-out').run(),
            claims: await claimDue(),
          }));
          const { more } = fanOut;
          for (const endpointId of fanOut.filled) filled.add(endpointId);
          // A fan-out with work left (a long batch, more endpoints than one turn takes) asks for a turn at once.
          if (more) again = true;
          launch(claims);
          await prune();
        } while (again && started);
      } catch (error) {
        if (started) strapi.log.error(`[public-api] webhook dispatcher turn failed: ${(error as Error).message}`);
      } finally {
        running = null;
        schedule(config().pollIntervalMs);
      }
    })();
    return running;
  };

  /** A turn soon (a local commit journalled a change, or a send finished and freed a turn). */
  const wake = () => {
    if (!started) return;
    if (running) again = true;
    else schedule(0);
  };

  return {
    /** Starts the turns; `renderer` says what journal entries mean to a key (serialize/webhook-events.ts). */
    start(renderer?: EventRenderer) {
      if (renderer) getService('webhook-fan-out').useRenderer(renderer);
      if (started) return;
      started = true;
      inStartContext = AsyncLocalStorage.snapshot();
      settings = webhookSettings(strapi);
      schedule(0);
    },
    wake,
    /** One turn now, awaited (tests, the bench). */
    turn,
    /** Prunes the log at the next turn (tests). */
    pruneSoon() {
      lastPrune = 0;
    },
    /** Marks an endpoint's log to be trimmed at the next prune (a redelivery added to it). */
    trimLater(endpointId: number) {
      filled.add(endpointId);
    },
    /** Stops turns, then waits for the sends in flight (each ends within its time limit). */
    async stop() {
      started = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
      // Claimed rows not sent yet are sent after their lease, by this instance or another (at least once).
      held.clear();
      await Promise.allSettled([...sends]);
    },
  };
};
