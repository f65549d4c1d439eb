/**
 * Browser origins (contract section 4): a keyed request's origin against its key's list, and what a
 * preflight, which carries no key, allows.
 */
import type { Context } from 'koa';
import { corsHeaders, preflightHeaders, refusalHeaders } from '../http/cors';
import { apiError } from '../http/errors';
import { normalizeRequestOrigin, originAllowed } from '../http/origins';
import type { Method, RouteMatch } from '../http/router';
import type { ApiKey } from '../keys/types';
import { assertMethodOf, locateResource, type RouteName } from '../routes/content-api';
import { send } from './send';

/**
 * A browser origin is either allowed by the key (echoed) or refused with 403 (contract section 4). A
 * refused serialized origin is echoed on the refusal alone, so that the page can read it (http/cors.ts);
 * a header that is no origin is refused without any CORS header.
 */
export const applyOriginRules = (ctx: Context, key: ApiKey) => {
  const header = ctx.get('Origin');
  if (!header) return;
  const origin = normalizeRequestOrigin(header);
  if (!origin || !originAllowed(key.grants.origins, origin)) {
    throw apiError(403, 'This key does not allow requests from this browser origin.', {
      source: { header: 'Origin' },
      reason: 'origin_not_allowed',
      headers: origin ? refusalHeaders(origin) : undefined,
    });
  }
  ctx.set(corsHeaders(origin));
};

/**
 * The methods a path has, for OPTIONS: a path that names a resource has those of its mode, so the
 * resource is looked up (404 when it does not exist, or when nothing lies at the path for its mode).
 */
const allowedAt = async (match: RouteMatch<RouteName>): Promise<Method[]> => {
  if (!match.dependsOnMode) return match.allow(null);
  const resource = await locateResource(match.params);
  if (!resource) throw apiError(404, 'No resource exists at this path.', { reason: 'resource_not_found' });
  assertMethodOf(match, 'OPTIONS', resource);
  return match.allow(resource.mode);
};

/**
 * A preflight carries no key, so it cannot know whether the request's key allows the origin: it allows
 * every serialized origin to send, and the request itself is refused with a readable 403 when its key
 * does not list the origin (http/cors.ts). Refusing the preflight instead left the page with "Failed to
 * fetch" (a browser reads nothing of a preflight that is not 2xx) and protected nothing: a cross-origin
 * request here carries only a key the page itself holds (no cookie is read), and it is refused before any
 * record is read or written. A header that is no origin (`null`, a path) is refused.
 */
export const preflight = async (ctx: Context, match: RouteMatch<RouteName>) => {
  const header = ctx.get('Origin');
  if (!header) {
    await send(ctx, { kind: 'empty', status: 204, headers: { Allow: (await allowedAt(match)).join(', ') } });
    return;
  }
  const origin = normalizeRequestOrigin(header);
  if (!origin) {
    throw apiError(403, 'The Origin header is not a browser origin (scheme://host[:port]).', {
      source: { header: 'Origin' },
      reason: 'origin_not_allowed',
    });
  }
  const allow = await allowedAt(match);
  await send(ctx, { kind: 'empty', status: 204, headers: { Allow: allow.join(', '), ...preflightHeaders(origin, allow) } });
};
