/**
 * The admin's one loading hook: a route of the client, loaded on mount and again when its input changes
 * (or `reload`), answers that arrive after unmounting or after a newer request ignored. `select` picks what
 * the page keeps of the response; `input` null loads nothing (a page with nothing to load yet).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminRouteName } from '../../../shared/contracts/admin-routes';
import { useAdminApi, type AdminApi } from './client';
import type { AdminInput, AdminResponse } from './request';

export type Loaded<T> = {
  data: T | undefined;
  error: unknown;
  isLoading: boolean;
  reload: () => Promise<void>;
  /** Replaces the loaded value after a change the server confirmed. */
  set: (data: T) => void;
};

type QueryOptions<R extends AdminRouteName, T> = {
  select?: (response: AdminResponse<R>) => T;
  /** Values besides the input that call for a new load when they change (e.g. a record's updatedAt). */
  deps?: readonly unknown[];
};

export const useAdminQuery = <R extends AdminRouteName, T = AdminResponse<R>>(
  route: R,
  input: AdminInput<R> | null,
  { select, deps = [] }: QueryOptions<R, T> = {},
): Loaded<T> => {
  const api = useAdminApi();
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [isLoading, setLoading] = useState(input !== null);
  const latest = useRef({ input, select, api });
  latest.current = { input, select, api };
  const mounted = useRef(true);
  const generation = useRef(0);
  const key = JSON.stringify([route, input, deps]);

  const reload = useCallback(async () => {
    const { input: current, select: pick, api: client } = latest.current;
    const mine = ++generation.current;
    if (current === null) {
      setData(undefined);
      setLoading(false);
      return;
    }
    setLoading(true);
    try {
      const response = await (client[route] as (input: AdminInput<R>) => Promise<AdminResponse<R>>)(current);
      if (mounted.current && mine === generation.current) {
        setData(pick ? pick(response) : (response as unknown as T));
        setError(undefined);
      }
    } catch (caught) {
      if (mounted.current && mine === generation.current) setError(caught);
    } finally {
      if (mounted.current && mine === generation.current) setLoading(false);
    }
    // The key stands for the route, the input and the extra deps.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, api]);

  useEffect(() => {
    mounted.current = true;
    void reload();
    return () => {
      mounted.current = false;
    };
  }, [reload]);

  return { data, error, isLoading, reload, set: setData };
};

export type { AdminApi };
