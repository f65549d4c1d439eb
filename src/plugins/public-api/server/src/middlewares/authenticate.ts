/**
 * The key of a /api/v2 request, or 401 (and 429 for a client address past its failed authentications).
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { pluginConfig } from '../config';
import type { AddressStanding } from '../http/address-standing';
import { clientAddressKey } from '../http/client-address';
import { apiError } from '../http/errors';
import { tooManyRequests } from '../http/rate-limit';
import { bearerToken, parseKey } from '../keys/token';
import type { ApiKey } from '../keys/types';
import { getService } from '../utils/get-service';
import { refuseSpent } from './limits';

const UNAUTHORIZED_DETAIL = 'A valid API key is required: send it as `Authorization: Bearer <key>`.';
const WWW_AUTHENTICATE = 'Bearer realm="public-data-api"';

/**
 * The key of the request, or 401. Failed authentications are counted per client address (Koa's ctx.ip:
 * the socket's address, or X-Forwarded-For when Strapi's `server.proxy` trusts the proxy in front; IPv6
 * by /64, http/client-address.ts). Once an address has spent its quota, its failures get 429 until the
 * window ends; a valid key is served from it all the same (issue 33: one guesser behind a shared NAT, or
 * behind a proxy whose forwarded address is not trusted, locked out every key behind it).
 *
 * Why a guesser gains nothing from that: a key is `pdk_<12 base62>_<40 base62>`, 309 random bits of
 * which 238 are the secret. A million guesses a second at one known key id for a century are 2^52
 * guesses: the chance of a right one stays below 2^-186, in penalty or not. What the
 * quota still does: a spent address's failures are refused from this process's memory (no write to the
 * shared store), a token that cannot be a key (none, or not of the key format) without even a key lookup,
 * and the 429 tells a misconfigured client to stop. That refusal is held back `keyShedDelayMs`, like a
 * key's past its limit: a flood of failures costs at most one refusal per connection per pause.
 */
export const authenticate = async (ctx: Context, strapi: Core.Strapi, standing: AddressStanding): Promise<ApiKey> => {
  const token = bearerToken(ctx.get('Authorization') || undefined);
  const address = { kind: 'address', id: clientAddressKey(ctx.ip) } as const;
  const limit = pluginConfig(strapi).unauthenticatedRateLimit;
  const spent = standing.spent(address.id);
  if (spent && !(token && parseKey(token))) return refuseSpent(strapi, limit, spent, 'address');
  const key = token ? await getService('keys').authenticate(token) : null;
  if (key) return key;
  if (spent) return refuseSpent(strapi, limit, spent, 'address');
  const count = await getService('rate-limits').count(address, limit);
  standing.learned(address.id, count);
  if (count?.exceeded) throw tooManyRequests(limit, count, 'address');
  throw apiError(401, UNAUTHORIZED_DETAIL, { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } });
};
