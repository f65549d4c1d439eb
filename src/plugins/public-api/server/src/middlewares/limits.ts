/**
 * The process's bounds on keyed work (turns, per key too, and records expanded at once), what it last
 * learned of client addresses' failed authentications and of keys past their rate limit, and how a
 * request refused for them is answered. Made once per middleware (that is, per application), with it.
 */
import type { Core } from '@strapi/strapi';
import { OVERLOADED_RETRY_AFTER_SECONDS, defaultRequestsPerKey, pluginConfig } from '../config';
import type { RateLimit } from '../config/rate-limits';
import { createAddressStanding, type AddressStanding, type SpentStanding } from '../http/address-standing';
import { apiError } from '../http/errors';
import { createKeyStanding, type KeyStanding } from '../http/key-standing';
import { createLoadGate, type LoadGate } from '../http/load-gate';
import { tooManyRequests, type RateLimitPolicy } from '../http/rate-limit';
import { createRecordBudget, type RecordBudget } from '../http/record-budget';
import { getService } from '../utils/get-service';

export type Limits = { gate: LoadGate; records: RecordBudget; addresses: AddressStanding; keys: KeyStanding };

export const createLimits = (strapi: Core.Strapi): Limits => {
  const config = pluginConfig(strapi);
  const gate = createLoadGate({
    maxInFlight: config.requestsInFlight,
    maxWaiting: config.requestsWaiting,
    maxWaitMs: config.requestWaitMs,
    maxPerHolder: config.requestsPerKey ?? defaultRequestsPerKey(config.requestsInFlight),
  });
  getService('metrics').observeRequestTurns(gate.load);
  return {
    gate,
    records: createRecordBudget({ capacity: config.expandedRecordsInFlight, maxWaitMs: config.requestWaitMs }),
    addresses: createAddressStanding(),
    keys: createKeyStanding(),
  };
};

export const overloaded = () =>
  apiError(503, `The server is busy with other requests; retry in ${OVERLOADED_RETRY_AFTER_SECONDS} seconds.`, {
    reason: 'overloaded',
    headers: { 'Retry-After': String(OVERLOADED_RETRY_AFTER_SECONDS) },
  });

/**
 * The pause before a key refused for taking more than its share hears so (`keyShedDelayMs`), and a client
 * refused again past its rate limit: its flood's refusals then cost the process a timer each, at most one
 * per connection per pause, instead of as many as it can send (bench:abuse (a): 1,261 refusals a second
 * of one key took the CPU other keys needed; --attack cheap: 1,767 429s a second). Nothing is held
 * meanwhile: no turn, no room in the budget, no body.
 */
export const shedDelay = (strapi: Core.Strapi, atMostMs = Infinity) => {
  const ms = Math.min(pluginConfig(strapi).keyShedDelayMs, atMostMs);
  return ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
};

/**
 * The 429 of a counter known spent from memory, after the shed delay (never past the window's end), with
 * the time left once it has passed.
 */
export const refuseSpent = async (strapi: Core.Strapi, limit: RateLimit, spent: SpentStanding, policy: RateLimitPolicy): Promise<never> => {
  const started = Date.now();
  await shedDelay(strapi, spent.resetMs);
  throw tooManyRequests(limit, { remaining: 0, resetMs: Math.max(0, spent.resetMs - (Date.now() - started)) }, policy);
};
