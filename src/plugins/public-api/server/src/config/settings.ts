/**
 * The plugin's settings (config/plugins.ts of an application sets them, most from the environment: see
 * .env.example): what each is, and its default and bounds. Read through `pluginConfig` (config/index.ts),
 * checked when Strapi loads them (config/validate.ts).
 */
import { availableParallelism } from 'node:os';
import type { RateLimit, RateLimitStore } from './rate-limits';
import type { OperationsConfig } from './operator';
import type { NativeResourceConfig } from './native-resources';

export type PluginConfig = OperationsConfig & {
  /**
   * The content types served as native resources (`/events`), as the application lists them
   * (config/native-resources.ts). None: the API serves only what websites publish.
   */
  nativeResources: readonly NativeResourceConfig[];
  /** Server secret that keys the HMAC of stored API keys (and, derived from it, cursors and asset tokens). */
  keySecret: string;
  /** Where transformed image variants are cached (relative to the application root, or absolute). */
  assetCacheDir: string;
  /** The most bytes the variant cache keeps on disk; the least recently used variants go first. */
  assetCacheMaxBytes: number;
  /** Command uploads (multipart bodies) one process receives at once; more get 503 with Retry-After. */
  uploadsInFlight: number;
  /** The most bytes of command uploads one process receives at once, counted at their declared or maximal size. */
  uploadBytesInFlight: number;
  /** How long a JSON request body may take to arrive whole, from when it is first read; then 408. */
  jsonBodyTimeoutMs: number;
  /** How long a multipart body (a command upload) may take to arrive whole; then 408. */
  multipartBodyTimeoutMs: number;
  /** The longest gap between two chunks of a request body (and before its first); then 408. */
  bodyGapTimeoutMs: number;
  /** Keyed /api/v2 requests one process runs at once (reads, writes, the OpenAPI build); more wait, then get 503. */
  requestsInFlight: number;
  /**
   * Turns one API key may have, running and waiting together; more get 503 with Retry-After at once.
   * Unset: half of `requestsInFlight` (at least 1), so one key never takes every turn.
   */
  requestsPerKey?: number;
  /** Records expanded through `include` at once, across requests (a larger read runs alone); more wait, then 503. */
  expandedRecordsInFlight: number;
  /** Requests that may wait for a turn; more get 503 with Retry-After at once. */
  requestsWaiting: number;
  /**
   * How long the 503 of a key refused for taking more than its share (of turns, of the record budget) is
   * held before it is sent (0: at once); the same for a 429 known from memory (a key, or a client address's
   * failed authentications, that sends again once refused in a window; never past the window's end). A
   * flooding client's refusals then come at most one per connection per this time, instead of as fast as
   * the process can refuse them, which took the CPU from other keys.
   */
  keyShedDelayMs: number;
  /** How long a client may take to read a keyed response (its turn is held meanwhile); then the connection is closed. */
  responseSendTimeoutMs: number;
  /** How long a request waits for a turn before it gets 503 with Retry-After (0: never waits). */
  requestWaitMs: number;
  /** Image transforms one process runs at once (decoding is memory-hungry); the rest wait their turn. */
  transformsInFlight: number;
  /**
   * Turns only cheap transforms take (small outputs, assets/transform-cost.ts), besides
   * `transformsInFlight`, so that a first thumbnail never waits behind large encodings (0: no such lane).
   */
  cheapTransformsInFlight: number;
  /** Transforms that may wait for a turn in all; more get 503 with Retry-After at once. */
  transformsWaiting: number;
  /** Transforms one client address may have running and waiting together; more get 503 with Retry-After. */
  transformsPerClient: number;
  /** How long a transform may take, waiting included; then 503 with Retry-After (the variant is not kept). */
  transformTimeoutMs: number;
  /**
   * Preset mode: when set, only these named transform sets (name -> query, `"thumb": "w=200&format=webp"`)
   * are computed; other transforms get 400 naming them (assets/presets.ts). Null: any transform.
   */
  transformPresets: Record<string, string> | null;
  /**
   * Files of a non-local upload provider (S3...) are read from its origin: the longest wait for its
   * answer's headers, and the longest gap in its body; then 504 (or a cut response, once bytes were sent).
   */
  assetOriginTimeoutMs: number;
  /** The largest object relayed from an origin; a larger one answers 502 `asset_too_large`. */
  assetOriginMaxBytes: number;
  /** Reads from origins one process runs at once (relayed originals and transform sources); more: 503. */
  assetOriginFetchesInFlight: number;
  /** The largest remote original copied for a transform; a larger one answers 422 `image_too_large`. */
  transformSourceMaxBytes: number;
  /** A key's units of cost per window unless its own limit says otherwise (contract section 13, http/request-cost.ts). */
  rateLimit: RateLimit;
  /** Requests without a valid key (401s), per client address (Koa's ctx.ip: see Strapi's server.proxy). */
  unauthenticatedRateLimit: RateLimit;
  /** Redis for the counters, shared by every instance (e.g. redis://127.0.0.1:6379); empty: see rateLimitStore. */
  redisUrl: string;
  /** Without Redis: `database` (a table of the plugin's, shared by every instance) or `memory` (one process only). */
  rateLimitStore: RateLimitStore;
  /** Prefix of the counters' names (in Redis or the table), so that several applications can share one store. */
  rateLimitPrefix: string;
  /**
   * How much of a busy key's demand one lease of rate-limit points covers (database/rate-leases.ts): the store
   * counts a lease at a time instead of every request. 0: every request is counted in the store.
   */
  rateLimitLeaseMs: number;
  /**
   * How long an atomic request's transaction may run (handlers/atomic-operations.ts): past it, checked between
   * operations, the whole request rolls back and is answered 503 with Retry-After. On SQLite, whose writes
   * run one at a time, this bounds how long another key's write waits behind one.
   */
  atomicTimeLimitMs: number;
  /**
   * How many characters of record inputs the record cache holds (serialize/record-texts.ts): records read
   * again with the same inputs are not made again. 0: no cache.
   */
  recordCacheChars: number;
};

export const PLUGIN_ID = 'public-api';
export const DEFAULT_ASSET_CACHE_MAX_BYTES = 512 * 1024 * 1024;
export const DEFAULT_UPLOADS_IN_FLIGHT = 8;
/** A busy key's lease of rate-limit points covers this much of its demand (0: none; at most a second). */
export const DEFAULT_RATE_LIMIT_LEASE_MS = 50;
export const MAX_RATE_LIMIT_LEASE_MS = 1_000;
/** An atomic request of 100 operations took 0.9-3.9 s on the shared 2-core machine (issue 34), over 5 s under test load. */
export const DEFAULT_ATOMIC_TIME_LIMIT_MS = 10_000;
export const MIN_ATOMIC_TIME_LIMIT_MS = 100;
export const MAX_ATOMIC_TIME_LIMIT_MS = 600_000;
/**
 * 4 Mi characters of inputs: some 9,000 records of the size of a benchmark event, about 30 MB of memory
 * with their objects and JSON (measured: 16 Mi held 37,000 such records in about 115 MB, 7 bytes a character).
 */
export const DEFAULT_RECORD_CACHE_CHARS = 4 * 1024 * 1024;
export const MAX_RECORD_CACHE_CHARS = 1024 * 1024 * 1024;
/**
 * Four CVs of the largest size at once. A body is parsed as it arrives and its files written to the
 * scratch directory (http/body.ts `createBodyStream`, issue 34): what this bounds is disk, and the one
 * file a DOCX sniff reads whole; no body is held in memory (it was: 20 concurrent 10 MiB CVs peaked at
 * 592 MiB RSS with 64 MiB, 548 MiB with 48 MiB, against the 600 MB aim of issue 15; docs/benchmarks.md,
 * *Uploads parsed as they arrive*).
 */
export const DEFAULT_UPLOAD_BYTES_IN_FLIGHT = 48 * 1024 * 1024;
/**
 * Twice the uploads in flight: a turn is held from the handler's start, body reception included, so
 * uploads held by slow senders never take every turn (docs/api.md, "Limits").
 */
export const DEFAULT_REQUESTS_IN_FLIGHT = 2 * DEFAULT_UPLOADS_IN_FLIGHT;
export const DEFAULT_REQUESTS_WAITING = 64;
/** Half the turns: a key flooding with connections leaves the other half to every other key. */
export const defaultRequestsPerKey = (requestsInFlight: number) => Math.max(1, Math.floor(requestsInFlight / 2));
/**
 * One read of the largest include (MAX_EXPANDED_RECORDS) at a time: on the bench data such a document is
 * 42 MB and its read holds about 400 MB while it is built and sent (docs/benchmarks.md, bench:abuse).
 */
export const DEFAULT_EXPANDED_RECORDS_IN_FLIGHT = 1_000;
/** A 1 MiB JSON body over a slow mobile link (1 Mbit/s) takes about 8 s. */
export const DEFAULT_JSON_BODY_TIMEOUT_MS = 10_000;
/** The largest upload (10 MiB CV and its document) at about 1 Mbit/s. */
export const DEFAULT_MULTIPART_BODY_TIMEOUT_MS = 120_000;
export const DEFAULT_BODY_GAP_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_WAIT_MS = 2_000;
/** A 100-record page (about 300 KB) takes well under a second even on a slow link; the largest include documents, tens of MB, several seconds on a fast one. */
export const DEFAULT_RESPONSE_SEND_TIMEOUT_MS = 30_000;
export const DEFAULT_KEY_SHED_DELAY_MS = 1_000;
/** How long a shed client is asked to wait: a turn frees up within a request's time, usually far less. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 2;
export const DEFAULT_TRANSFORMS_IN_FLIGHT = Math.max(1, availableParallelism());
/** One: a thumbnail takes tens of milliseconds, so one lane serves many visitors' first thumbnails. */
export const DEFAULT_CHEAP_TRANSFORMS_IN_FLIGHT = 1;
export const DEFAULT_TRANSFORMS_WAITING = 32;
export const DEFAULT_TRANSFORMS_PER_CLIENT = 4;
/** A first thumbnail of a large photo takes well under a second; a 24-megapixel AVIF a few. */
export const DEFAULT_TRANSFORM_TIMEOUT_MS = 10_000;
/** An S3 GET's first byte comes in tens of milliseconds; ten seconds means the origin is in trouble. */
export const DEFAULT_ASSET_ORIGIN_TIMEOUT_MS = 10_000;
/** Strapi's upload plugin accepts files up to 1 GB by default (its `sizeLimit`): every such file is served. */
export const DEFAULT_ASSET_ORIGIN_MAX_BYTES = 1_000_000_000;
/** Each is a socket and a stream's buffers; the transforms they feed are bounded by their own queue. */
export const DEFAULT_ASSET_ORIGIN_FETCHES_IN_FLIGHT = 32;
/**
 * A 50-megapixel photo (the transform limit) is 10 to 30 MB as JPEG, up to about 150 MB as 8-bit PNG or
 * TIFF; copies wait on disk for their transform's turn, so their size times the queue bounds the disk used.
 */
export const DEFAULT_TRANSFORM_SOURCE_MAX_BYTES = 128 * 1024 * 1024;
export const API_BASE_PATH = '/api/v2';
