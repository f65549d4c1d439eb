/**
 * The request id: one per request, in the `X-Request-Id` response header and in every log line written
 * while the request runs, so an error a client reports leads to its log lines (docs/deployment.md, Logs).
 *
 * An incoming `X-Request-Id` is kept only when the server trusts a proxy in front (IS_PROXIED): the proxy
 * sets one per request (HAProxy's unique-id in the cluster) or passes on its own client's, and ids then
 * follow a request through every hop. Without a trusted proxy anyone could send the same id with every
 * request and blur the logs, so each request gets a new one. A kept id must be sane: 1 to 64 characters
 * of letters, digits and `-_.:@+=/`, so that it cannot break a log line or a header.
 */
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:@+=/]{1,64}$/;

export const isSaneRequestId = (value: string | undefined): value is string => value !== undefined && SANE_REQUEST_ID.test(value);

/** The id of a request: the incoming one when trusted and sane, else a new UUID. */
export const requestIdOf = (incoming: string | undefined, trustIncoming: boolean): string =>
  trustIncoming && isSaneRequestId(incoming) ? incoming : randomUUID();
