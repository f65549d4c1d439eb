/**
 * What a call of an admin route sends, from the route table of the shared contracts: the path with its
 * parameters filled in, and the query without its absent values. Pure.
 */
import { ADMIN_ROUTES, type AdminRouteName, type AdminRouteTypes } from '../../../shared/contracts/admin-routes';
import { PLUGIN_ID } from '../pluginId';

type Contract<R extends AdminRouteName> = AdminRouteTypes[R];

/** The response body of a route. */
export type AdminResponse<R extends AdminRouteName> = Contract<R>['response'];

/** What a route takes: `params`, `query` and `body` as its contract has them, none where it has none. */
export type AdminInput<R extends AdminRouteName> = (Contract<R> extends { params: infer P } ? { params: P } : unknown) &
  (Contract<R> extends { query: infer Q } ? { query: Q } : unknown) &
  (Contract<R> extends { body: infer B } ? { body: B } : unknown);

type AnyInput = { params?: Record<string, number | string>; query?: object; body?: unknown };

export type AdminRequest = {
  method: (typeof ADMIN_ROUTES)[AdminRouteName]['method'];
  /** The path as the admin's fetch client takes it: `/public-api/...`. */
  url: string;
  /** Absent where the route takes no query, or none of its values is set. */
  params?: Record<string, unknown>;
  body?: unknown;
};

/** `/keys/:id/access` with `{ id: 7 }` -> `/keys/7/access`; each value encoded, a missing one refused. */
export const fillPath = (path: string, params: Record<string, number | string> = {}): string =>
  path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new TypeError(`The path ${path} needs its parameter ${name}.`);
    return encodeURIComponent(String(value));
  });

export const adminRequest = <R extends AdminRouteName>(route: R, input?: AdminInput<R>): AdminRequest => {
  const { params, query, body } = (input ?? {}) as AnyInput;
  const { method, path } = ADMIN_ROUTES[route];
  const set = Object.entries(query ?? {}).filter(([, value]) => value !== undefined);
  return {
    method,
    url: `/${PLUGIN_ID}${fillPath(path, params)}`,
    ...(set.length > 0 ? { params: Object.fromEntries(set) } : {}),
    ...(body !== undefined ? { body } : {}),
  };
};
