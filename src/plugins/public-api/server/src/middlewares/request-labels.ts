/**
 * What the api-v2 middleware tells the operations middleware about a request once it knows it: the API
 * key's id, for the request's log line and the `key` label of its metrics, and the route it matched, so
 * that the operations middleware does not match the path a second time (middlewares/operator.ts).
 */
import type { Context } from 'koa';

const KEY_ID = Symbol('public-api.key-id');
const ROUTE = Symbol('public-api.route');

type Labelled = { [KEY_ID]?: string; [ROUTE]?: string };

export const labelRequestKey = (ctx: Context, keyId: string): void => {
  (ctx.state as Labelled)[KEY_ID] = keyId;
};

export const requestKeyOf = (ctx: Context): string | null => (ctx.state as Labelled)[KEY_ID] ?? null;

/** The metrics label of an /api/v2 route match: its route's name, `preflight`, or `unmatched`. */
export const v2RouteLabel = (method: string, match: { route: { name: string } | null; names: readonly string[] }): string =>
  `v2:${match.route?.name ?? (method === 'OPTIONS' && match.names.length ? 'preflight' : 'unmatched')}`;

/** Records the /api/v2 route a request matched, as its metrics label (`v2:native-collection`). */
export const labelRequestRoute = (ctx: Context, route: string): void => {
  (ctx.state as Labelled)[ROUTE] = route;
};

export const requestRouteOf = (ctx: Context): string | null => (ctx.state as Labelled)[ROUTE] ?? null;
