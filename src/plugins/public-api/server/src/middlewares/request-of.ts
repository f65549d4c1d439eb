/**
 * The request as handlers see it (http/request.ts), made from Koa's context once the route is known.
 */
import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { API_BASE_PATH, pluginConfig } from '../config';
import type { RequestTarget } from '../http/base-url';
import { createBodyReader, type BodyTimeouts } from '../http/body';
import { createBodyStream } from '../http/body-stream';
import { canonicalUrl } from '../http/canonical-url';
import { clientAddressKey } from '../http/client-address';
import type { PublicRequest } from '../http/request';

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

export const bodyTimeouts = (strapi: Core.Strapi): BodyTimeouts => {
  const config = pluginConfig(strapi);
  return { jsonMs: config.jsonBodyTimeoutMs, multipartMs: config.multipartBodyTimeoutMs, gapMs: config.bodyGapTimeoutMs };
};

export const requestOf = (
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
  streamBody: createBodyStream(ctx.req, ctx.headers, bodyTimeouts(strapi)),
});
