/**
 * The first middleware of every request (config/middlewares.ts), for running many instances behind a
 * proxy (docs/deployment.md):
 *
 * - a request id (http/request-id.ts) in the `X-Request-Id` response header, and in every log line written
 *   while the request runs (http/request-context.ts);
 * - one log line per request when its response has been sent: request id, method, path, route template,
 *   status, duration and API key id (structured fields; one JSON object per line with LOG_FORMAT=json);
 * - its metrics (services/metrics.ts) and its place among the requests in flight, which a graceful drain
 *   waits for (services/graceful-shutdown.ts); once the listener is closing, responses close their
 *   connection;
 * - the operators' endpoints, answered here before any other middleware: `/health/live` (the process
 *   answers), `/health/ready` (services/readiness.ts: 200 ready or degraded, 503 not ready or draining) and
 *   `/metrics` (Prometheus; `Authorization: Bearer <METRICS_TOKEN>`, 401 without it, 404 when no token is
 *   configured).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { API_BASE_PATH, pluginConfig } from '../config';
import { errorDocument, errorObject, isApiError } from '../http/errors';
import { runInRequest } from '../http/request-context';
import { REQUEST_ID_HEADER, requestIdOf } from '../http/request-id';
import { createRouter } from '../http/router';
import { contentApiRoutes } from '../routes/content-api';
import { getService } from '../utils/get-service';
import { requestKeyOf, requestRouteOf, v2RouteLabel } from './request-labels';

export const LIVENESS_PATH = '/health/live';
export const READINESS_PATH = '/health/ready';
export const METRICS_PATH = '/metrics';

const router = createRouter(contentApiRoutes);

/**
 * The route of a request as a bounded label: an /api/v2 route's name (`v2:native-collection`, as the
 * api-v2 middleware matched it), Strapi's matched route template for its own routes (admin, content
 * manager), else `other` (static files, 404s). An /api/v2 path the api-v2 middleware did not label (the
 * router refused it: 404 or 405) is matched here again to tell which.
 */
const routeLabel = (ctx: Context): string => {
  const { path } = ctx;
  if (path === API_BASE_PATH || path.startsWith(`${API_BASE_PATH}/`)) {
    const labelled = requestRouteOf(ctx);
    if (labelled !== null) return labelled;
    try {
      return v2RouteLabel(ctx.method, router.match(ctx.method === 'HEAD' ? 'GET' : ctx.method, path.slice(API_BASE_PATH.length) || '/'));
    } catch (error) {
      // The router throws the 404 or 405 of a path or method no route has (http/router.ts).
      if (isApiError(error) && error.status === 405) return 'v2:method-not-allowed';
      return 'v2:unmatched';
    }
  }
  const template = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return typeof template === 'string' && template.length <= 200 ? template : 'other';
};

/** The scope of a 429 from its RateLimit-Policy header (`"key";q=…`): `key` or `address`. */
const rateLimitScope = (ctx: Context): string | null => {
  const policy = ctx.response.get('RateLimit-Policy');
  const name = /^"(key|address)"/.exec(policy)?.[1];
  return name ?? null;
};

const json = (ctx: Context, status: number, body: unknown) => {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
};

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Whether the request bears the metrics token (compared in constant time, whatever its length). */
const bearsToken = (ctx: Context, token: string): boolean => {
  const match = /^Bearer (\S+)$/.exec(ctx.get('Authorization'));
  return match !== null && timingSafeEqual(sha256(match[1]!), sha256(token));
};

/** `/health/*` and `/metrics`, or false when the path is none of them. */
const operatorEndpoint = async (ctx: Context, strapi: Core.Strapi): Promise<boolean> => {
  const { path } = ctx;
  if (path !== LIVENESS_PATH && path !== READINESS_PATH && path !== METRICS_PATH) return false;
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    ctx.set('Allow', 'GET, HEAD');
    json(ctx, 405, errorDocument([errorObject(405, 'Only GET and HEAD are allowed here.')]));
    return true;
  }
  if (path === LIVENESS_PATH) {
    json(ctx, 200, { status: 'live' });
    return true;
  }
  if (path === READINESS_PATH) {
    const readiness = await getService('readiness').state();
    json(ctx, readiness.status === 'ready' || readiness.status === 'degraded' ? 200 : 503, readiness);
    return true;
  }
  const token = pluginConfig(strapi).metricsToken;
  if (!token) {
    json(ctx, 404, errorDocument([errorObject(404, 'Nothing is here.')]));
    return true;
  }
  if (!bearsToken(ctx, token)) {
    ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
    json(ctx, 401, errorDocument([errorObject(401, 'The metrics token is required: send it as `Authorization: Bearer <token>`.')]));
    return true;
  }
  const metrics = getService('metrics');
  ctx.status = 200;
  ctx.set('Cache-Control', 'no-store');
  ctx.type = metrics.contentType;
  ctx.body = await metrics.render();
  return true;
};

/** Counts the request and, once its response has left (or its connection closed), logs and measures it. */
const observe = (ctx: Context, strapi: Core.Strapi, requestId: string, operator: boolean) => {
  const started = process.hrtime.bigint();
  const metrics = getService('metrics');
  const leave = operator ? () => undefined : getService('graceful-shutdown').enter();
  if (!operator) metrics.requestStarted();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    leave();
    try {
      record();
    } catch (error) {
      // Runs in a response's event: whatever fails here must not become an uncaught exception.
      strapi.log.error(`[public-api] could not log or measure ${ctx.method} ${ctx.path}: ${(error as Error)?.message ?? String(error)}`);
    }
  };
  const record = () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = operator ? `operator:${ctx.path}` : routeLabel(ctx);
    const keyId = requestKeyOf(ctx);
    const status = ctx.status;
    const aborted = !ctx.res.writableFinished;
    if (!operator)
      metrics.requestEnded({
        route,
        method: ctx.method,
        status,
        keyId,
        seconds,
        // Only a 429 has a scope (koa copies every header to read one: not for every request).
        rateLimitScope: status === 429 ? rateLimitScope(ctx) : null,
      });
    // Health checks come every second or so from every proxy: below the default level, like scrapes.
    const level = operator ? 'verbose' : 'http';
    // winston builds and streams an entry before its transports drop it for its level: asked first, a
    // request below the level costs nothing here.
    if (!strapi.log.isLevelEnabled(level)) return;
    const durationMs = Math.round(seconds * 1e5) / 100;
    strapi.log.log(level, `${ctx.method} ${ctx.path} ${status} ${durationMs} ms${aborted ? ' (aborted)' : ''}`, {
      requestId,
      method: ctx.method,
      path: ctx.path,
      route,
      status,
      durationMs,
      keyId,
      ...(aborted ? { aborted: true } : {}),
    });
  };
  ctx.res.once('finish', end);
  ctx.res.once('close', end);
};

export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) =>
  async (ctx: Context, next: Next) => {
    // Koa's own trust in the proxy (server.proxy.koa, IS_PROXIED) decides whether an incoming id is kept.
    const requestId = requestIdOf(ctx.get(REQUEST_ID_HEADER) || undefined, ctx.app.proxy);
    ctx.set(REQUEST_ID_HEADER, requestId);
    const operator = ctx.path === LIVENESS_PATH || ctx.path === READINESS_PATH || ctx.path === METRICS_PATH;
    // Found now: a request may end after the application was destroyed (a client that never finished its body).
    const shutdown = getService('graceful-shutdown');
    observe(ctx, strapi, requestId, operator);
    await runInRequest({ requestId }, async () => {
      if (!(await operatorEndpoint(ctx, strapi))) await next();
    });
    // Koa sends the headers after the last middleware returned: a request that was in flight when the
    // listener began closing also closes its connection.
    if (shutdown.isClosing() && !ctx.headerSent) ctx.set('Connection', 'close');
  };
