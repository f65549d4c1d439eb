/**
 * Serves everything under /api/v2 and answers it completely; other paths pass through.
 *
 * One request runs the steps of `PIPELINE` in order, each one concern, until one answers (or throws):
 * host (400, http/base-url.ts) -> route -> public route (assets: no key) -> preflight -> Accept (406) ->
 * key (401; a failure gets 429 once its client address's failed authentications have spent their quota)
 * -> the key's rate limit (429) -> origin (403) -> path and query text (400, http/storable-request.ts) -> method
 * (404, and 405 where a path's methods do not depend on a resource) -> revalidation memo (304) -> a turn
 * of the load gate (503 when shed, http/load-gate.ts; held until the response has been sent) -> handler,
 * which finds the resource (404) and asks `request.supports` (405 by the resource's mode) before the
 * key's grants (403). Handlers read the body themselves (`request.readBody`, see http/body.ts): Strapi's
 * body parser comes after this middleware and never sees /api/v2. Public routes (assets: the URL is the
 * capability) go from the route straight to their handler: no key, no JSON:API negotiation, no origin
 * rules, and they answer any origin without credentials. Every failure on the way, and anything a
 * handler throws, leaves as one JSON:API error document; internals are logged, never sent.
 */
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { API_BASE_PATH, pluginConfig } from '../config';
import { requestLinks, type RequestTarget } from '../http/base-url';
import { PUBLIC_CORS_HEADERS, publicPreflightHeaders } from '../http/cors';
import { apiError } from '../http/errors';
import { assertAcceptable, assertAcceptsOpenApi } from '../http/media-types';
import type { ApiRequest, Handler } from '../http/request';
import { createRouter, methodNotAllowed, type RouteMatch } from '../http/router';
import { assertStorableRequest } from '../http/storable-request';
import type { ApiKey } from '../keys/types';
import type { Resource } from '../registry/types';
import type { JournalPosition } from '../services/journal';
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
import { authenticate } from './authenticate';
import { createCharge, type KeyCount } from './charge';
import { createLimits, overloaded, shedDelay, type Limits } from './limits';
import { applyOriginRules, preflight } from './origin-rules';
import { applyRateLimit } from './rate-limit';
import { requestOf } from './request-of';
import { answerFailure } from './failures';
import { labelRequestKey, labelRequestRoute, v2RouteLabel } from './request-labels';
import { revalidationOf, sendMemoAnswer, type Revalidation } from './revalidation';
import { captureSecurityHeaders } from './security-headers';
import { holdUntilSent, send } from './send';
import { observeUsage } from './usage';

const router = createRouter(contentApiRoutes);

/**
 * What the steps learn of one request, in order: a field is set by the step that learns it and read by
 * the steps after it (the `!` of each says so).
 */
class Flow {
  links!: { origin: string; target: RequestTarget };
  match!: RouteMatch<RouteName>;
  key!: ApiKey;
  counted!: KeyCount | null;
  /** The query, parsed once the path and query text are known to be storable. */
  query!: URLSearchParams;
  handler!: Handler;
  revalidation!: Revalidation | null;
  mark!: JournalPosition | null;
  /** Gives back the turn and any room in the record budget the request took. */
  release!: () => void;
  /** Gives back the room in the record budget the request reserved, once it has (`reserveExpansion`). */
  expansion: (() => void) | null = null;

  constructor(
    readonly ctx: Context,
    readonly strapi: Core.Strapi,
    readonly limits: Limits,
  ) {}
}

/** A step either lets the request go on, or has answered it (`ANSWERED`); refusals are thrown. */
const ANSWERED = Symbol('answered');
type Step = { name: string; run: (flow: Flow) => void | typeof ANSWERED | Promise<void | typeof ANSWERED> };

// ---------------------------------------------------------------------------------------------------------
// The steps, in the order they run
// ---------------------------------------------------------------------------------------------------------

/** A malformed Host is malformed syntax (RFC 9112 3.2): refused before anything else is looked at. */
const readHost = (flow: Flow) => {
  flow.ctx.set('X-Content-Type-Options', 'nosniff');
  flow.links = requestLinks(flow.strapi.config.get('server.url'), flow.ctx);
};

const route = (flow: Flow) => {
  const { ctx } = flow;
  flow.match = router.match(ctx.method, ctx.path.slice(API_BASE_PATH.length) || '/');
  labelRequestRoute(ctx, v2RouteLabel(ctx.method, flow.match));
};

/** Assets: the URL is the capability. The router answered every method the path lacks, OPTIONS aside. */
const servePublicRoute = async ({ ctx, strapi, links, match }: Flow) => {
  if (!match.names.every(isPublicRoute)) return;
  ctx.set(PUBLIC_CORS_HEADERS);
  const allow = match.allow(null);
  const publicHandler = match.route ? publicHandlerOf(match.route.name) : null;
  if (publicHandler) await send(ctx, await publicHandler(requestOf(ctx, strapi, links, match.params)));
  else await send(ctx, { kind: 'empty', status: 204, headers: { Allow: allow.join(', '), ...publicPreflightHeaders(allow) } });
  return ANSWERED;
};

/** A preflight looks the resource up: text no database stores never reaches that lookup. */
const answerPreflight = async ({ ctx, match }: Flow) => {
  if (ctx.method !== 'OPTIONS') return;
  assertStorableRequest(match.params, new URLSearchParams(ctx.querystring));
  await preflight(ctx, match);
  return ANSWERED;
};

const negotiate = ({ ctx, match }: Flow) => {
  if (match.route?.media === 'openapi') assertAcceptsOpenApi(ctx.get('Accept') || undefined);
  else assertAcceptable(ctx.get('Accept') || undefined, match.route?.extensions ?? []);
};

const identifyKey = async (flow: Flow) => {
  const { ctx, strapi, limits, match } = flow;
  flow.key = await authenticate(ctx, strapi, limits.addresses);
  observeUsage(ctx, flow.key, match);
  labelRequestKey(ctx, flow.key.keyId);
};

const countRequest = async (flow: Flow) => {
  flow.counted = await applyRateLimit(flow.ctx, flow.strapi, flow.key, flow.limits.keys);
};

const checkOrigin = ({ ctx, key }: Flow) => applyOriginRules(ctx, key);

/** Text no database stores never reaches a lookup of a resource, record or filter (issue 13); assets judge their own names. */
const checkText = (flow: Flow) => {
  flow.query = new URLSearchParams(flow.ctx.querystring);
  assertStorableRequest(flow.match.params, flow.query);
};

/** No route of the path has this method for any mode: 404 or 405 once the resource is known. */
const findHandler = async (flow: Flow) => {
  const { ctx, match } = flow;
  if (!match.route) {
    const resource = await locateResource(match.params);
    if (!resource) throw apiError(404, 'No resource exists at this path.', { reason: 'resource_not_found' });
    assertMethodOf(match, ctx.method, resource);
    throw methodNotAllowed(ctx.method, match.allow(resource.mode));
  }
  const handler = handlerOf(match.route.name);
  if (!handler) throw new Error(`${match.route.name}: a public route among keyed ones.`);
  flow.handler = handler;
};

/** A revalidation the memo can answer costs no turn: no record is read (services/revalidation.ts). */
const answerFromMemo = async (flow: Flow) => {
  const { ctx, links, match, key, query } = flow;
  flow.revalidation = await revalidationOf(ctx, match.route!.name, key, {
    origin: links.origin,
    pathAndQuery: links.target.pathAndQuery,
    query,
  });
  if (flow.revalidation?.answer) {
    sendMemoAnswer(ctx, flow.revalidation.answer);
    return ANSWERED;
  }
  // Taken before the read: a change committed while it runs spends the memo made of it.
  flow.mark = flow.revalidation ? await getService('revalidation').mark() : null;
};

/** Only work a key may do takes a turn: refused requests (401, 403, 406, 400) and preflights never wait. */
const takeTurn = async (flow: Flow) => {
  const { strapi, limits, key } = flow;
  const turn = await limits.gate.enter(key.keyId);
  if (!turn) {
    if (limits.gate.overShare(key.keyId)) await shedDelay(strapi);
    throw overloaded();
  }
  flow.release = () => {
    flow.expansion?.();
    turn();
  };
};

/**
 * The handler's answer, built, serialized, compressed and sent within the turn: what it holds in memory is
 * bounded too. A revalidation (If-None-Match) builds its document like any read to learn its tag, so it
 * takes a turn as well; its 304 costs no compression and no bytes on the wire. The handler's response
 * goes straight to `send`, in no variable of this function: one would keep its objects alive until
 * this function resumed, after the bytes had been compressed (issue 34).
 */
const answer = async (flow: Flow) => {
  const { ctx, strapi, links, match, key, query, handler, revalidation, mark } = flow;
  const request: ApiRequest = {
    ...requestOf(ctx, strapi, links, match.params, query),
    key,
    extensions: match.route!.extensions,
    supports: (resource: Resource) => assertMethodOf(match, ctx.method, resource),
    reserveExpansion: (records) => reserveExpansion(flow, records),
    assertExpansionRoom: () => assertExpansionRoom(flow),
    // Each unit paid weighs in the key's turns (http/load-gate.ts): its next waiting requests go behind
    // keys whose requests cost less.
    charge: createCharge(ctx, flow.counted, (units) => flow.limits.gate.charged(key.keyId, units)),
  };
  try {
    const outgoing = await send(ctx, await handler(request), { cachePolicy: key.cache });
    if (revalidation && mark && outgoing.memo)
      getService('revalidation').remember(revalidation.id, revalidation.state, mark, outgoing.memo);
  } catch (error) {
    flow.release();
    throw error;
  }
  holdUntilSent(ctx, flow.release, pluginConfig(strapi).responseSendTimeoutMs);
  return ANSWERED;
};

/** `request.reserveExpansion`: room in the record budget, held with the turn (http/record-budget.ts). */
const reserveExpansion = async (flow: Flow, records: number) => {
  if (flow.expansion) return;
  flow.expansion = await flow.limits.records.reserve(records, flow.key.keyId);
  if (!flow.expansion) throw overloaded();
};

/** `request.assertExpansionRoom`: a key crowding the record budget is shed before it counts its records. */
const assertExpansionRoom = async (flow: Flow) => {
  if (!flow.limits.records.crowded(flow.key.keyId)) return;
  // Only the refusal is held back, not the turn: a flood's refusals sleeping on their turns kept every
  // turn taken, and another key's request waited up to the whole delay for one (bench:abuse (a)).
  flow.release();
  await shedDelay(flow.strapi);
  throw overloaded();
};

/** The steps of a request, in order; the first that answers ends it. */
export const PIPELINE: readonly Step[] = [
  { name: 'host', run: readHost },
  { name: 'route', run: route },
  { name: 'public route', run: servePublicRoute },
  { name: 'preflight', run: answerPreflight },
  { name: 'accept', run: negotiate },
  { name: 'key', run: identifyKey },
  { name: 'rate limit', run: countRequest },
  { name: 'origin', run: checkOrigin },
  { name: 'storable text', run: checkText },
  { name: 'method', run: findHandler },
  { name: 'revalidation memo', run: answerFromMemo },
  { name: 'turn', run: takeTurn },
  { name: 'handler', run: answer },
];

const handle = async (flow: Flow): Promise<void> => {
  for (const step of PIPELINE) if ((await step.run(flow)) === ANSWERED) return;
};

// ---------------------------------------------------------------------------------------------------------
// The middleware
// ---------------------------------------------------------------------------------------------------------

const isUnderBase = (path: string) => path === API_BASE_PATH || path.startsWith(`${API_BASE_PATH}/`);

export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) => {
  // The process's bounds on keyed work and what it learned of addresses and keys (middlewares/limits.ts).
  let limits: Limits | null = null;
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
      await handle(new Flow(ctx, strapi, (limits ??= createLimits(strapi))));
    } catch (caught) {
      await answerFailure(ctx, strapi, caught);
    }
  };
};
