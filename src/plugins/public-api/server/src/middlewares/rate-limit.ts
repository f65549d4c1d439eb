/**
 * A keyed request's unit, counted against its key's rate limit (contract section 13).
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { pluginConfig } from '../config';
import type { KeyStanding } from '../http/key-standing';
import { rateLimitHeaders, tooManyRequests } from '../http/rate-limit';
import type { ApiKey } from '../keys/types';
import { getService } from '../utils/get-service';
import type { KeyCount } from './charge';
import { refuseSpent } from './limits';

/**
 * Counts the request against the key's limit (its own, else the config's default; read with the key at
 * every request, so a change applies on the next one). The RateLimit fields go on every answer that
 * follows, errors included; past the limit, 429 with Retry-After. A key that sends again once refused is
 * refused from memory until its window ends (http/key-standing.ts), and that refusal is held back like a
 * shed one (`keyShedDelayMs`): a flood past the limit then costs no count in the store, and at most one
 * refusal per connection per pause, instead of taking the CPU other keys need (bench:abuse, row cheap).
 * What the request's work costs beyond its unit is charged by the handler before the work
 * (middlewares/charge.ts).
 */
export const applyRateLimit = async (ctx: Context, strapi: Core.Strapi, key: ApiKey, standing: KeyStanding): Promise<KeyCount | null> => {
  const limit = key.limits ?? pluginConfig(strapi).rateLimit;
  const spent = standing.spent(key.keyId, limit);
  if (spent) return refuseSpent(strapi, limit, spent, 'key');
  const count = await getService('rate-limits').count({ kind: 'key', id: key.keyId }, limit);
  standing.learned(key.keyId, limit, count);
  if (!count) return null;
  if (count.exceeded) throw tooManyRequests(limit, count, 'key');
  ctx.set(rateLimitHeaders(limit, count));
  return { keyId: key.keyId, limit, count };
};
