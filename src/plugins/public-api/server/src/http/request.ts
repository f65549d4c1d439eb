/**
 * The request as handlers see it: plain data, parsed once at the edge.
 */
import type { Readable } from 'node:stream';
import type { ApiKey } from '../keys/types';
import type { Resource } from '../registry/types';
import type { RequestCost } from './request-cost';

/** Which time limit a request body is read under (http/body.ts). */
export type BodyKind = 'json' | 'multipart';

/**
 * Decides, before a chunk of a body is taken in, whether it may be: `bytes` is the body's size with the
 * chunk. Resolves to let it in; rejects (an ApiError: 429 when the key cannot pay for it) to refuse the
 * body, and the chunk is dropped unread by anyone (http/body.ts `createBodyStream`).
 */
export type BodyMeter = (bytes: number) => Promise<void> | void;

/** A request body as a stream, with the request's headers (what a multipart parser reads the boundary from). */
export type BodyStream = Readable & { headers: Record<string, string | string[] | undefined> };

/** What every handler is told, with or without a key. */
export type PublicRequest = {
  method: string;
  /** The path below the API base as sent (`/events/jazz-night`), for fingerprints and links. */
  path: string;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /** Raw query parameters in order, as sent. */
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** `{base_url}`: absolute URL of /api/v2, without a trailing slash. */
  baseUrl: string;
  /** The absolute request URL. */
  selfUrl: string;
  /**
   * The client's address: the peer, or behind a trusted proxy (`IS_PROXIED`) the one it forwards, as it
   * is counted (IPv6 by /64, http/client-address.ts). What fairness between clients counts by (the
   * transform queue).
   */
  client: string;
  /**
   * The request body, read at most once and never past `limit` bytes (413 beyond it), within the time
   * limits of its kind (408 beyond them, http/body.ts). Strapi's body parser does not run for /api/v2, so
   * this is the only way to the body.
   */
  readBody: (limit: number, kind: BodyKind) => Promise<Buffer>;
  /**
   * The request body as a stream of its chunks, under the same limits as `readBody` (http/body.ts
   * `createBodyStream`), for a parser that writes it on as it arrives (multipart uploads). `meter` hears
   * the size so far before each chunk is passed on, and may refuse the rest. A body is read one way only.
   */
  streamBody: (limit: number, kind: BodyKind, meter?: BodyMeter) => BodyStream;
};

/** A request that presented a valid API key. */
export type ApiRequest = PublicRequest & {
  key: ApiKey;
  /**
   * Reserves room for `records` records expanded through `include` in the process's budget
   * (http/record-budget.ts), held until the response has been sent; throws 503 `overloaded` when no room
   * frees up in time. A read calls it once, after counting and before loading.
   */
  reserveExpansion: (records: number) => Promise<void>;
  /**
   * Throws 503 `overloaded` when this key already holds or awaits room in the budget while the budget is
   * taken (http/record-budget.ts), after the key's shed delay: called before a read counts its expanded
   * records.
   */
  assertExpansionRoom: () => Promise<void>;
  /**
   * Charges the key's rate limit for work beyond the request's own unit (http/request-cost.ts), before the
   * work is done: throws 429 when the key has not that much left, nothing of it charged. A read calls it
   * once it has counted its expanded records, an atomic request once it has parsed its operations, an
   * upload before its body is read (a chunked one as it arrives: `paid` is the part of `cost` charged
   * before, and only the rest is charged).
   */
  charge: (cost: RequestCost, paid?: RequestCost) => Promise<void>;
  /** The JSON:API extensions (URIs) the matched route supports in Content-Type (Accept is judged before). */
  extensions: readonly string[];
  /**
   * Throws unless the path has this request's method for the resource it names, judged by the resource's
   * mode from the route table (404 below a singleton, 405 with Allow): handlers call it once they have
   * found the resource, before the key's grants are looked at.
   */
  supports: (resource: Resource) => void;
};

/** What every answer has, whatever its body. */
type ResponseHead = {
  status: number;
  headers?: Record<string, string>;
  /** The strong entity tag of the identity bytes, when the handler has it already (a cached document). */
  etag?: string;
  /** Cache-Tag values of a read (http/cache-tags.ts). */
  tags?: string[];
  /** `Cache-Control: no-store` even on a 200 read, whatever the key's policy (draft reads, contract section 15). */
  noStore?: boolean;
};

/**
 * A handler's answer, one variant per kind of body (http/respond.ts switches on `kind`):
 * - `empty`: no body (204, a preflight, a 304 of a file);
 * - `document`: a JSON:API document, serialized by the edge (in chunks, http/json-chunks.ts);
 * - `serialized`: a body serialized already, sent as is with its media type (a replay's stored bytes, the
 *   OpenAPI document, a page written as bytes);
 * - `file`: bytes sent as they are (files, not documents), under the handler's own Content-Type and
 *   Content-Length headers. A stream is closed by the edge when the response ends, HEAD included.
 */
export type ApiResponse =
  | (ResponseHead & { kind: 'empty' })
  | (ResponseHead & { kind: 'document'; document: unknown })
  | (ResponseHead & { kind: 'serialized'; type: string; bytes: string | Buffer })
  | (ResponseHead & { kind: 'file'; content: Readable | Buffer });

export type Handler = (request: ApiRequest) => Promise<ApiResponse>;

/** A handler of a route that needs no key: its URL is the capability (assets). */
export type PublicHandler = (request: PublicRequest) => Promise<ApiResponse>;
