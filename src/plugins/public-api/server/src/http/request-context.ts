/**
 * What the code running for a request knows of it without being handed it: its id, so that a log line
 * written anywhere while the request runs (an error caught deep in a handler, a warning of a service)
 * carries the request id (docs/deployment.md, Logs).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type RequestContext = { requestId: string };

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` (and everything it starts) as part of the request. */
export const runInRequest = <T>(context: RequestContext, fn: () => T): T => storage.run(context, fn);

/** The id of the request the caller runs for, or undefined outside any request. */
export const currentRequestId = (): string | undefined => storage.getStore()?.requestId;

/** What a winston logger (Strapi's `strapi.log`) has: the format every entry goes through first. */
type LogFormat = { transform: (info: Record<string, unknown>, options?: unknown) => unknown; options?: unknown };

/**
 * Makes a winston logger add the current request's id (`requestId`) to every entry written while a request
 * runs, unless the entry names one itself; the transports' formats then show it (config/logger.ts).
 */
export const addRequestIdsTo = (logger: { format: LogFormat }): void => {
  const previous = logger.format;
  logger.format = {
    transform: (info) => {
      const requestId = currentRequestId();
      if (requestId !== undefined && info.requestId === undefined) info.requestId = requestId;
      return previous.transform(info, previous.options);
    },
  };
};
