/**
 * Serves everything under /api/v2 and answers it completely; other paths pass through.
 *
 * One request, in order: host (400, http/base-url.ts) -> route (404, and 405 where a path's methods do
 * not depend on a resource) -> preflight -> Accept (406) -> key (401; a failure gets 429 once its client
 * address's failed authentications have spent their quota) -> the key's rate limit (429) -> origin (403) -> path and query
 * text (400, http/storable-request.ts) -> a turn of the load gate (503 when shed, http/load-gate.ts; held until the
 * response has been sent) -> handler,
 * which finds the resource (404) and asks `request.supports`
 * (405 by the resource's mode) before the key's grants (403). Handlers read the body themselves
 * (`request.readBody`, see http/body.ts): Strapi's body parser comes after this middleware and never sees
 * /api/v2. Public routes (assets: the URL is the capability) go from the route straight to their handler:
 * no key, no JSON:API negotiation, no origin rules, and they answer any origin without credentials. Every
 * failure on the way, and anything a handler throws, leaves as one JSON:API error document; internals are
 * logged, never sent.
 */
import type { Core } from '@strapi/strapi';
import { Readable } from 'node:stream';
import type { Context, Next } from 'koa';
import { API_BASE_PATH, OVERLOADED_RETRY_AFTER_SECONDS, defaultRequestsPerKey, pluginConfig } from '../config';
import type { CachePolicy } from '../config/cache-policy';
import { requestLinks, type RequestTarget } from '../http/base-url';
import { createBodyReader, discardUnreadBody, type BodyTimeouts } from '../http/body';
import { canonicalUrl } from '../http/canonical-url';
import { cutOnFailure } from '../http/stream-body';
import { PUBLIC_CORS_HEADERS, corsHeaders, preflightHeaders, publicPreflightHeaders, refusalHeaders } from '../http/cors';
import { apiError, errorDocument, errorObject, isApiError, type ApiError } from '../http/errors';
import { isWriteConflict, writeConflict } from '../http/write-conflict';
import { createAddressStanding, type AddressStanding, type SpentStanding } from '../http/address-standing';
import { clientAddressKey } from '../http/client-address';
import { createKeyStanding, type KeyStanding } from '../http/key-standing';
import { createLoadGate, type LoadGate } from '../http/load-gate';
import { assertAcceptable, assertAcceptsOpenApi } from '../http/media-types';
import { createRecordBudget, type RecordBudget } from '../http/record-budget';
import { normalizeRequestOrigin, originAllowed } from '../http/origins';
import { labelRequestKey, labelRequestRoute, v2RouteLabel } from './request-labels';
import { captureSecurityHeaders } from './security-headers';
import { createCharge, type KeyCount } from './charge';
import { observeUsage } from './usage';
import { revalidationOf, sendMemoAnswer } from './revalidation';
import { rateLimitHeaders, tooManyRequests, type RateLimitPolicy } from '../http/rate-limit';
import type { RateLimit } from '../config/rate-limits';
import type { ApiRequest, ApiResponse, PublicRequest } from '../http/request';
import { prepareResponse, type OutgoingResponse } from '../http/respond';
import { createRouter, methodNotAllowed, type Method, type RouteMatch } from '../http/router';
import { assertStorableRequest } from '../http/storable-request';
import { bearerToken, parseKey } from '../keys/token';
import type { ApiKey } from '../keys/types';
import type { Resource } from '../registry/types';
import {
  assertMethodOf,
  contentApiRoutes,
  handlerOf,
  isPublicRoute,
  locateResource,
  publicHandlerOf,
  type RouteName,
} from '../routes/content-api';
import { getService } from '../utils/get-service';

const router = createRouter(contentApiRoutes);

const UNAUTHORIZED_DETAIL = 'A valid API key is required: send it as `Authorization: Bearer <key>`.';
const WWW_AUTHENTICATE = 'Bearer realm="public-data-api"';

const overloaded = () =>
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
const shedDelay = (strapi: Core.Strapi, atMostMs = Infinity) => {
  const ms = Math.min(pluginConfig(strapi).keyShedDelayMs, atMostMs);
  return ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
};

/**
 * The 429 of a counter known spent from memory, after the shed delay (never past the window's end), with
 * the time left once it has passed.
 */
const refuseSpent = async (strapi: Core.Strapi, limit: RateLimit, spent: SpentStanding, policy: RateLimitPolicy): Promise<never> => {
  const started = Date.now();
  await shedDelay(strapi, spent.resetMs);
  throw tooManyRequests(limit, { remaining: 0, resetMs: Math.max(0, spent.resetMs - (Date.now() - started)) }, policy);
};

const isUnderBase = (path: string) => path === API_BASE_PATH || path.startsWith(`${API_BASE_PATH}/`);

/** What the edge knows when it sends: the key's cache policy once the key is known (undefined before). */
type Sending = { cachePolicy: CachePolicy | null | undefined };

/**
 * Not async: an async function would hold `response` (a large include's objects) until the bytes were
 * sent; only the serializer holds it, until the bytes exist (http/respond.ts, issue 34).
 */
const send = (ctx: Context, response: ApiResponse, sending: Sending = { cachePolicy: undefined }) =>
  prepareResponse(response, {
    method: ctx.method,
    acceptEncoding: ctx.get('Accept-Encoding') || undefined,
    ifNoneMatch: ctx.get('If-None-Match') || undefined,
    cachePolicy: sending.cachePolicy,
  }).then((outgoing) => deliver(ctx, outgoing));

const deliver = (ctx: Context, outgoing: OutgoingResponse) => {
  ctx.status = outgoing.status;
  ctx.set(outgoing.headers);
  // Vary adds to what the CORS layer set (Origin) instead of replacing it.
  for (const field of outgoing.vary) ctx.vary(field);
  if (outgoing.type !== undefined) ctx.type = outgoing.type;
  // Koa sends the bytes under these headers (Content-Length from the Buffer), sends none for HEAD, and
  // closes a stream either way. A document sent as a stream of its chunks carries its length (koa drops a
  // Content-Length set before a stream body replaces another).
  ctx.body = outgoing.body instanceof Readable ? cutOnFailure(outgoing.body, () => ctx.res.destroy()) : outgoing.body;
  const length = outgoing.headers['Content-Length'];
  if (length !== undefined) ctx.length = Number(length);
  return outgoing;
};

const sendError = (ctx: Context, error: ApiError) =>
  send(ctx, { status: error.status, headers: error.headers, body: errorDocument(error.errors) });

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
const authenticate = async (ctx: Context, strapi: Core.Strapi, standing: AddressStanding): Promise<ApiKey> => {
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
const applyRateLimit = async (ctx: Context, strapi: Core.Strapi, key: ApiKey, standing: KeyStanding): Promise<KeyCount | null> => {
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

/**
 * A browser origin is either allowed by the key (echoed) or refused with 403 (contract section 4). A
 * refused serialized origin is echoed on the refusal alone, so that the page can read it (http/cors.ts);
 * a header that is no origin is refused without any CORS header.
 */
const applyOriginRules = (ctx: Context, key: ApiKey) => {
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
const preflight = async (ctx: Context, match: RouteMatch<RouteName>) => {
  const header = ctx.get('Origin');
  if (!header) {
    await send(ctx, { status: 204, headers: { Allow: (await allowedAt(match)).join(', ') } });
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
  await send(ctx, { status: 204, headers: { Allow: allow.join(', '), ...preflightHeaders(origin, allow) } });
};

/** Whether a name occurs twice in Node's raw header list (name, value, name, value, ...). */
const repeatsAHeader = (raw: readonly string[]): boolean => {
  const seen = new Set<string>();
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    if (seen.has(name)) return true;
    seen.add(name);
  }
  return false;
};

/**
 * The request headers, a header sent more than once as the list of its values: Node joins most repeated
 * headers with ", ", which would turn two Idempotency-Keys into one key that was never sent.
 */
const headersAsSent = (ctx: Context): PublicRequest['headers'] => {
  // Node builds `headersDistinct` (every header again, as lists) when it is first read: 1.4% of a
  // single-record read's CPU. Most requests repeat no header, which the raw list shows for less.
  if (!repeatsAHeader(ctx.req.rawHeaders)) return ctx.headers;
  const repeated = Object.entries(ctx.req.headersDistinct).filter(([, values]) => (values?.length ?? 0) > 1);
  return repeated.length ? { ...ctx.headers, ...Object.fromEntries(repeated) } : ctx.headers;
};

const bodyTimeouts = (strapi: Core.Strapi): BodyTimeouts => {
  const config = pluginConfig(strapi);
  return { jsonMs: config.jsonBodyTimeoutMs, multipartMs: config.multipartBodyTimeoutMs, gapMs: config.bodyGapTimeoutMs };
};

const requestOf = (
  ctx: Context,
  strapi: Core.Strapi,
  links: { origin: string; target: RequestTarget },
  params: Record<string, string>,
  query = new URLSearchParams(ctx.querystring),
): PublicRequest => ({
  method: ctx.method,
  path: ctx.path.slice(API_BASE_PATH.length) || '/',
  params,
  query,
  headers: headersAsSent(ctx),
  baseUrl: `${links.origin}${API_BASE_PATH}`,
  selfUrl: canonicalUrl(links.origin, links.target.pathAndQuery),
  client: clientAddressKey(ctx.ip),
  readBody: createBodyReader(ctx.req, ctx.headers, bodyTimeouts(strapi)),
});

const handle = async (ctx: Context, strapi: Core.Strapi, limits: Limits) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  // A malformed Host is malformed syntax (RFC 9112 3.2): refused before anything else is looked at.
  const links = requestLinks(strapi.config.get('server.url'), ctx);
  const relativePath = ctx.path.slice(API_BASE_PATH.length) || '/';
  const match = router.match(ctx.method, relativePath);
  labelRequestRoute(ctx, v2RouteLabel(ctx.method, match));
  if (match.names.every(isPublicRoute)) {
    ctx.set(PUBLIC_CORS_HEADERS);
    const allow = match.allow(null);
    // The router answered every method the path lacks, OPTIONS aside.
    const publicHandler = match.route ? publicHandlerOf(match.route.name) : null;
    if (publicHandler) await send(ctx, await publicHandler(requestOf(ctx, strapi, links, match.params)));
    else await send(ctx, { status: 204, headers: { Allow: allow.join(', '), ...publicPreflightHeaders(allow) } });
    return;
  }
  if (ctx.method === 'OPTIONS') {
    // A preflight looks the resource up: text no database stores never reaches that lookup.
    assertStorableRequest(match.params, new URLSearchParams(ctx.querystring));
    await preflight(ctx, match);
    return;
  }
  if (match.route?.media === 'openapi') assertAcceptsOpenApi(ctx.get('Accept') || undefined);
  else assertAcceptable(ctx.get('Accept') || undefined, match.route?.extensions ?? []);
  const key = await authenticate(ctx, strapi, limits.addresses);
  observeUsage(ctx, key, match);
  labelRequestKey(ctx, key.keyId);
  const counted = await applyRateLimit(ctx, strapi, key, limits.keys);
  applyOriginRules(ctx, key);
  // Text no database stores never reaches a lookup of a resource, record or filter (issue 13); assets
  // judge their own names.
  const query = new URLSearchParams(ctx.querystring);
  assertStorableRequest(match.params, query);
  const supports = (resource: Resource) => assertMethodOf(match, ctx.method, resource);
  if (!match.route) {
    // No route of the path has this method for any mode: 404 or 405 once the resource is known.
    const resource = await locateResource(match.params);
    if (!resource) throw apiError(404, 'No resource exists at this path.', { reason: 'resource_not_found' });
    supports(resource);
    throw methodNotAllowed(ctx.method, match.allow(resource.mode));
  }
  const handler = handlerOf(match.route.name);
  if (!handler) throw new Error(`${match.route.name}: a public route among keyed ones.`);
  // A revalidation the memo can answer costs no turn: no record is read (services/revalidation.ts).
  const revalidation = await revalidationOf(ctx, match.route.name, key, {
    origin: links.origin,
    pathAndQuery: links.target.pathAndQuery,
    query,
  });
  if (revalidation?.answer) {
    sendMemoAnswer(ctx, revalidation.answer);
    return;
  }
  // Taken before the read: a change committed while it runs spends the memo made of it.
  const mark = revalidation ? await getService('revalidation').mark() : null;
  // Only work a key may do takes a turn: refused requests (401, 403, 406, 400) and preflights never wait.
  const turn = await limits.gate.enter(key.keyId);
  if (!turn) {
    if (limits.gate.overShare(key.keyId)) await shedDelay(strapi);
    throw overloaded();
  }
  let expansion: (() => void) | null = null;
  const release = () => {
    expansion?.();
    turn();
  };
  const reserveExpansion = async (records: number) => {
    if (expansion) return;
    expansion = await limits.records.reserve(records, key.keyId);
    if (!expansion) throw overloaded();
  };
  const assertExpansionRoom = async () => {
    if (!limits.records.crowded(key.keyId)) return;
    // Only the refusal is held back, not the turn: a flood's refusals sleeping on their turns kept every
    // turn taken, and another key's request waited up to the whole delay for one (bench:abuse (a)).
    release();
    await shedDelay(strapi);
    throw overloaded();
  };
  const request: ApiRequest = {
    ...requestOf(ctx, strapi, links, match.params, query),
    key,
    extensions: match.route.extensions,
    supports,
    reserveExpansion,
    assertExpansionRoom,
    charge: createCharge(ctx, counted),
  };
  // The response is built, serialized, compressed and sent within the turn: what it holds in memory is
  // bounded too. A revalidation (If-None-Match) builds its document like any read to learn its tag, so it
  // takes a turn as well; its 304 costs no compression and no bytes on the wire. The handler's response
  // goes straight to `send`, in no variable of this function: one would keep its objects alive until
  // this function resumed, after the bytes had been compressed (issue 34).
  try {
    const outgoing = await send(ctx, await handler(request), { cachePolicy: key.cache });
    if (revalidation && mark && outgoing.memo)
      getService('revalidation').remember(revalidation.id, revalidation.state, mark, outgoing.memo);
  } catch (error) {
    release();
    throw error;
  }
  holdUntilSent(ctx, release, pluginConfig(strapi).responseSendTimeoutMs);
};

/**
 * Keeps a turn until the response has left (or the connection closed): a serialized document stays in
 * memory until the client has read it, so a turn given back earlier would let clients that read slowly,
 * or many at once, pile up documents beyond the bound (issue 15: 100 connections of 42 MB documents
 * took the process past 6 GB with one turn). A client that takes longer than `sendTimeoutMs` to read
 * its response loses the connection, so slow readers cannot hold every turn.
 */
const holdUntilSent = (ctx: Context, release: () => void, sendTimeoutMs: number) => {
  const done = () => {
    clearTimeout(timer);
    release();
  };
  const timer = setTimeout(() => {
    ctx.req.socket?.destroy();
    done();
  }, sendTimeoutMs);
  timer.unref();
  // A client gone while its request was at work: 'close' has been emitted already and will not be again.
  if (ctx.res.destroyed || ctx.res.writableFinished || !ctx.req.socket || ctx.req.socket.destroyed) {
    done();
    return;
  }
  ctx.res.once('finish', done);
  ctx.res.once('close', done);
};

/**
 * The process's bounds on keyed work (turns, per key too, and records expanded at once), and what it last
 * learned of client addresses' failed authentications and of keys past their rate limit.
 */
type Limits = { gate: LoadGate; records: RecordBudget; addresses: AddressStanding; keys: KeyStanding };

export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) => {
  let made: Limits | null = null;
  const limits = (): Limits => {
    if (made) return made;
    const config = pluginConfig(strapi);
    made = {
      gate: createLoadGate({
        maxInFlight: config.requestsInFlight,
        maxWaiting: config.requestsWaiting,
        maxWaitMs: config.requestWaitMs,
        maxPerHolder: config.requestsPerKey ?? defaultRequestsPerKey(config.requestsInFlight),
      }),
      records: createRecordBudget({ capacity: config.expandedRecordsInFlight, maxWaitMs: config.requestWaitMs }),
      addresses: createAddressStanding(),
      keys: createKeyStanding(),
    };
    return made;
  };
  // Strapi's security headers, taken once from its own middleware (middlewares/security-headers.ts).
  let security: Promise<Record<string, string>> | null = null;
  const securityHeaders = () =>
    (security ??= captureSecurityHeaders(strapi, API_BASE_PATH).catch((error: Error) => {
      // Never a reason to refuse every request: logged once, and /api/v2 answers without them.
      strapi.log.error(`[public-api] could not take the security headers from strapi::security: ${error.message}`);
      return {};
    }));
  return async (ctx: Context, next: Next) => {
    if (!isUnderBase(ctx.path)) return next();
    try {
      ctx.set(await securityHeaders());
      await handle(ctx, strapi, limits());
    } catch (caught) {
      // A write the database rolled back for meeting another (a deadlock): nothing was kept, a retry succeeds.
      const error = isWriteConflict(caught) ? writeConflict() : caught;
      if (isApiError(error)) {
        // A browser may read a 401 or 429 only from an origin some key allows; it learns nothing else.
        const origin = normalizeRequestOrigin(ctx.get('Origin'));
        if (
          (error.status === 401 || error.status === 429) &&
          origin &&
          (await getService('keys').anyKeyAllowsOrigin(origin, originAllowed))
        ) {
          ctx.set(corsHeaders(origin));
        }
        // A refusal is sent once the body nobody read has arrived, within an accepted body's limits; else
        // it closes the connection (http/body.ts).
        if (!(await discardUnreadBody(ctx.req, ctx.headers, bodyTimeouts(strapi)))) ctx.set('Connection', 'close');
        await sendError(ctx, error);
        return;
      }
      strapi.log.error(`[public-api] ${ctx.method} ${ctx.path} failed: ${(error as Error)?.stack ?? String(error)}`);
      await send(ctx, {
        status: 500,
        body: errorDocument([errorObject(500, 'The server could not complete the request. It has been logged.')]),
      });
    }
  };
};
