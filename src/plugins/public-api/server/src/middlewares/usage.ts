/**
 * Counts a keyed /api/v2 request for its key's usage once its response has gone (services/usage.ts):
 * status, time from the key being known to the last byte handed to the socket, the resource, and whether
 * the key's rate limit refused it. Nothing is written on the request's path; a response the client
 * abandoned before it was sent counts as 499 (4xx, the client closed the request).
 */
import type { Context } from 'koa';
import type { ApiKey } from '../keys/types';
import type { RouteMatch } from '../http/router';
import { locateResource, type RouteName } from '../routes/content-api';
import { getService } from '../utils/get-service';

const CLIENT_CLOSED_REQUEST = 499;

/** The endpoints that name no resource, by route: a fixed set, so what a client sends cannot add names. */
const ENDPOINT_LABELS: Partial<Record<RouteName, string>> = {
  'resource-index': '(index)',
  openapi: '(openapi)',
  'command-schema': '(commands)',
  'command-run': '(commands)',
  operations: '(operations)',
};

/** A resource id of the registry, an endpoint's label, or `(unknown)`: never text of the request. */
const resourceLabel = async (match: RouteMatch<RouteName>): Promise<string> => {
  const endpoint = match.route ? ENDPOINT_LABELS[match.route.name] : undefined;
  if (endpoint) return endpoint;
  const resource = await locateResource(match.params).catch(() => null);
  return resource?.id ?? '(unknown)';
};

export const observeUsage = (ctx: Context, key: ApiKey, match: RouteMatch<RouteName>): void => {
  const started = performance.now();
  let counted = false;
  const count = () => {
    if (counted) return;
    counted = true;
    const durationMs = performance.now() - started;
    const status = ctx.res.writableFinished ? ctx.res.statusCode : CLIENT_CLOSED_REQUEST;
    void resourceLabel(match)
      .then((resource) =>
        getService('usage').record({ apiKey: key.id, resource, status, durationMs, rateLimited: status === 429, at: Date.now() }),
      )
      // A response that ends while the application shuts down has no service left to count it: never a crash.
      .catch(() => undefined);
  };
  ctx.res.once('finish', count);
  ctx.res.once('close', count);
};
