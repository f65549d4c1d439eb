import { useCallback, useEffect, useRef, useState } from 'react';

export type Loaded<T> = {
  data: T | undefined;
  error: unknown;
  isLoading: boolean;
  reload: () => Promise<void>;
  /** Replaces the loaded value after a change the server confirmed. */
  set: (data: T) => void;
};

/** Loads once on mount (and again on `reload`); ignores answers that arrive after unmounting. */
export const useLoad = <T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> => {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [isLoading, setLoading] = useState(true);
  const mounted = useRef(true);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, deps);

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const value = await run();
      if (mounted.current) {
        setData(value);
        setError(undefined);
      }
    } catch (caught) {
      if (mounted.current) setError(caught);
    } finally {
      if (mounted.current) setLoading(false);
    }
  }, [run]);

  useEffect(() => {
    mounted.current = true;
    void reload();
    return () => {
      mounted.current = false;
    };
  }, [reload]);

  return { data, error, isLoading, reload, set: setData };
};
