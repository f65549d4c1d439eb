/**
 * The admin's one client of the plugin's admin routes: a method per route of the shared contracts' table
 * (shared/contracts/admin-routes.ts), typed by its contract, sent through Strapi's own fetch client (the
 * session, its token refresh, its error envelope). A refusal rejects with the fetch client's error, which
 * utils/errors.ts reads: the one place that turns refusals into messages.
 */
import { useMemo } from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import { ADMIN_ROUTES, type AdminRouteName } from '../../../shared/contracts/admin-routes';
import { adminRequest, type AdminInput, type AdminResponse } from './request';

export type CallOptions = { signal?: AbortSignal };

/** A route's method: its input is optional where the route takes none. */
type Call<R extends AdminRouteName> =
  unknown extends AdminInput<R>
    ? (input?: AdminInput<R>, options?: CallOptions) => Promise<AdminResponse<R>>
    : (input: AdminInput<R>, options?: CallOptions) => Promise<AdminResponse<R>>;

export type AdminApi = { [R in AdminRouteName]: Call<R> };

export const useAdminApi = (): AdminApi => {
  const { get, post, put, del } = useFetchClient();
  return useMemo(() => {
    const send = async <R extends AdminRouteName>(route: R, input?: AdminInput<R>, options: CallOptions = {}) => {
      const { method, url, params, body } = adminRequest(route, input);
      const config = { params, signal: options.signal };
      const response =
        method === 'GET'
          ? await get<AdminResponse<R>>(url, config)
          : method === 'POST'
            ? await post<AdminResponse<R>>(url, body, config)
            : method === 'PUT'
              ? await put<AdminResponse<R>>(url, body, config)
              : await del<AdminResponse<R>>(url, config);
      return response.data;
    };
    return Object.fromEntries(
      (Object.keys(ADMIN_ROUTES) as AdminRouteName[]).map((route) => [
        route,
        (input?: AdminInput<typeof route>, options?: CallOptions) => send(route, input, options),
      ]),
    ) as AdminApi;
  }, [get, post, put, del]);
};
