/**
 * The statuses every keyed /api/v2 request can be answered with whatever its handler does, and those
 * reading a request body adds: the table the OpenAPI document lists on every operation (openapi/errors.ts),
 * so that a client generated from it knows every answer it may get (issue 33: no operation declared 429
 * or 431). Each entry names who answers it; a handler's own statuses (404 of a record, 409, 410, 412, 422)
 * are its operation's to list.
 */
import { CLIENT_ERROR_STATUSES } from './client-errors';
import type { ErrorStatus } from './errors';

/** The edge of a keyed request (middlewares/api-v2.ts, in its order) and Node's parser before it (http/client-errors.ts). */
const EDGE: Record<string, readonly ErrorStatus[]> = {
  /** A malformed Host (`host_invalid`, http/base-url.ts). */
  host: [400],
  /** An Accept without JSON:API (http/media-types.ts). */
  accept: [406],
  /** No usable key (401), or its address has spent its failed authentications (429). */
  key: [401, 429],
  /** The key's rate limit. */
  rateLimit: [429],
  /** A browser origin the key does not allow (`origin_not_allowed`). */
  origin: [403],
  /** Text no database stores in the path or query (`unstorable_text`, http/storable-request.ts). */
  storable: [400],
  /** Shed at the bound of requests in flight (`overloaded`, http/load-gate.ts). */
  loadGate: [503],
  /** Anything unforeseen: logged, answered without details. */
  failure: [500],
  /** Node's parser: a request line and headers over the limit (431), not HTTP (400), too slow (408), chunk extensions (413). */
  parser: CLIENT_ERROR_STATUSES,
};

/** Reading a body (http/body.ts, http/multipart.ts): not JSON (400), too slow (408), too large (413), another media type (415). */
const BODY: readonly ErrorStatus[] = [400, 408, 413, 415];

const sortedSet = (statuses: Iterable<ErrorStatus>): ErrorStatus[] => [...new Set(statuses)].sort((a, b) => a - b);

/** Every status any keyed request may get before or besides its handler's answer. */
export const EDGE_STATUSES: readonly ErrorStatus[] = sortedSet(Object.values(EDGE).flat());

/** The statuses an operation can answer: the edge's, a body's when it takes one, and its handler's own. */
export const operationStatuses = (own: readonly ErrorStatus[], takesBody: boolean): ErrorStatus[] =>
  sortedSet([...EDGE_STATUSES, ...(takesBody ? BODY : []), ...own]);
