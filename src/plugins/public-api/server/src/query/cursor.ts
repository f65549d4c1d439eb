/**
 * Signed keyset cursors (contract section 5). A cursor is a position, never an offset: the last row's
 * sort values and id, bound to the key, the resource and the query that produced it, and to a time.
 *
 * Token: base64url without padding of `payload bytes || HMAC-SHA-256(cursor key, payload bytes)`.
 * Decoding accepts only the canonical encoding, so that every change to a token changes its bytes and
 * fails the tag. Pure apart from hashing; the caller supplies the time.
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { createLru } from '../utils/lru';
import { parameterError } from './problems';
import type { FilterCondition, ParsedQuery, ScalarValue, SortTerm } from './types';

export const CURSOR_VERSION = 1;
/** Longer tokens are refused before any work; encoding refuses to produce one. */
export const MAX_CURSOR_LENGTH = 4096;
export const CURSOR_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Instances' clocks may disagree a little; a cursor from further in the future was not made by us. */
export const CURSOR_CLOCK_SKEW_MS = 60 * 1000;

const TAG_BYTES = 32;
const CURSOR_KEY_LABEL = 'public-api/cursor/v1';

/**
 * The HMAC key for cursors, derived from the server secret so that no other token can pass as a cursor.
 * `secret` is the same key as a KeyObject, made once: an HMAC keyed by a Buffer makes one on every call
 * (about 20 µs of a page, against 4 µs with the KeyObject; issue 16).
 */
export type CursorKey = { readonly purpose: 'cursor'; readonly bytes: Buffer; readonly secret: KeyObject };

export const deriveCursorKey = (serverSecret: string): CursorKey => {
  const bytes = createHmac('sha256', serverSecret).update(CURSOR_KEY_LABEL).digest();
  return Object.freeze({ purpose: 'cursor', bytes, secret: createSecretKey(bytes) });
};

/** Where the previous page ended: one value per sort term, and the row's id (the tiebreaker). */
export type CursorPosition = { values: ScalarValue[]; id: string | number };

export type CursorPayload = {
  /** The id of the API key the page was served to. */
  keyId: string;
  /** The resource index id, e.g. `native:events`. */
  resourceId: string;
  /** `queryFingerprint` of the query that produced the page. */
  fingerprint: string;
  /** Unix milliseconds. */
  issuedAt: number;
  position: CursorPosition;
};

/** What the request that presents a cursor must match. */
export type CursorExpectation = {
  keyId: string;
  resourceId: string;
  fingerprint: string;
  /** Number of sort terms of the query, without the id tiebreaker. */
  sortLength: number;
  /** Unix milliseconds. */
  now: number;
};

// ---------------------------------------------------------------------------------------------------------
// The query a cursor is bound to
// ---------------------------------------------------------------------------------------------------------

const byJson = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const normalFilter = (condition: FilterCondition): string =>
  JSON.stringify([
    condition.field,
    condition.op,
    Array.isArray(condition.value) ? condition.value.map((value) => JSON.stringify(value)).sort(byJson) : condition.value,
  ]);

/**
 * A hash of what decides which rows come in which order: the effective sort, the filters (in any order,
 * `filter[a]` and `filter[a][eq]` alike), the locale and the status (a draft read's cursor is refused on a
 * published read and the other way round). `limit` and `include` may change between pages.
 */
export const queryFingerprint = (
  query: Pick<ParsedQuery, 'sort' | 'filters' | 'locale'> & { status?: ParsedQuery['status']; fallback?: readonly string[] },
): string => {
  const normal = JSON.stringify([
    query.sort.map((term: SortTerm) => [term.key, term.direction]),
    query.filters.map(normalFilter).sort(byJson),
    query.locale,
    // Only drafts add a member: a published read's fingerprint, and so its cursors and ETags, stay as they were.
    ...(query.status === 'draft' ? ['draft'] : []),
    // A fallback list binds its whole order (a cursor of `de,en` is refused on `en,de`); a single locale adds nothing.
    ...(query.fallback?.length ? [['fallback', ...query.fallback]] : []),
  ]);
  // Clients repeat the same few queries: each is hashed once (a new Hash each request was 1.4% of a page's CPU).
  let fingerprint = fingerprints.get(normal);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256').update(normal).digest().subarray(0, 16).toString('base64url');
    if (normal.length <= KEPT_QUERY_CHARS) fingerprints.set(normal, fingerprint);
  }
  return fingerprint;
};

/** Fingerprints of the queries last seen, by their normal form (long ones are not kept): a few MB at most. */
const fingerprints = createLru<string, string>(1_000);
const KEPT_QUERY_CHARS = 2_000;

// ---------------------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------------------

const tagOf = (key: CursorKey, bytes: Buffer) => createHmac('sha256', key.secret).update(bytes).digest();

const isScalar = (value: unknown): value is ScalarValue =>
  value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/**
 * Throws (a server fault, not a client error) when a sort value is not a JSON scalar, e.g. a Date the
 * caller forgot to turn into milliseconds, or when the values are too long to fit a cursor.
 */
export const encodeCursor = (payload: CursorPayload, key: CursorKey): string => {
  const { keyId, resourceId, fingerprint, issuedAt, position } = payload;
  if (!position.values.every(isScalar) || !isId(position.id) || !Number.isSafeInteger(issuedAt)) {
    throw new TypeError('A cursor carries only JSON scalars, a string or number id and an integer time.');
  }
  const bytes = Buffer.from(
    JSON.stringify([CURSOR_VERSION, keyId, resourceId, fingerprint, issuedAt, position.values, position.id]),
    'utf8',
  );
  const token = Buffer.concat([bytes, tagOf(key, bytes)]).toString('base64url');
  if (token.length > MAX_CURSOR_LENGTH) {
    throw new RangeError(`The cursor would be ${token.length} characters, over ${MAX_CURSOR_LENGTH}.`);
  }
  return token;
};

// ---------------------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------------------

const invalid = (detail = 'The cursor is not valid; start again from the first page.') =>
  parameterError('cursor', detail, 'cursor_invalid');

const mismatch = (what: string) =>
  parameterError('cursor', `The cursor was issued for ${what}; start again from the first page.`, 'cursor_mismatch');

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Bytes of a canonical base64url string, or null: Node's decoder ignores junk and unused bits. */
const canonicalBytes = (token: string): Buffer | null => {
  if (!BASE64URL.test(token) || token.length % 4 === 1) return null;
  const bytes = Buffer.from(token, 'base64url');
  return bytes.toString('base64url') === token ? bytes : null;
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The signed bytes -> a payload, or null when they are not one of ours. */
const readPayload = (bytes: Buffer): CursorPayload | null => {
  const decoded = parseJson(bytes.toString('utf8'));
  if (!Array.isArray(decoded) || decoded.length !== 7) return null;
  const [version, keyId, resourceId, fingerprint, issuedAt, values, id] = decoded as unknown[];
  if (
    version !== CURSOR_VERSION ||
    typeof keyId !== 'string' ||
    typeof resourceId !== 'string' ||
    typeof fingerprint !== 'string' ||
    !Number.isSafeInteger(issuedAt) ||
    !Array.isArray(values) ||
    !values.every(isScalar) ||
    !isId(id)
  ) {
    return null;
  }
  return { keyId, resourceId, fingerprint, issuedAt: issuedAt as number, position: { values, id } };
};

/**
 * A cursor as sent -> the position it carries, or a 400 on `cursor`: `cursor_invalid` (malformed,
 * tampered, signed by another secret, wrong shape), `cursor_mismatch` (another key, resource or query),
 * `cursor_expired` (older than 24 hours).
 */
export const decodeCursor = (token: string, key: CursorKey, expected: CursorExpectation): CursorPayload => {
  if (token.length > MAX_CURSOR_LENGTH) throw invalid('The cursor is too long.');
  const bytes = canonicalBytes(token);
  if (!bytes || bytes.length <= TAG_BYTES) throw invalid();
  const body = bytes.subarray(0, bytes.length - TAG_BYTES);
  if (!timingSafeEqual(bytes.subarray(bytes.length - TAG_BYTES), tagOf(key, body))) throw invalid();

  const payload = readPayload(body);
  if (!payload) throw invalid();
  if (payload.keyId !== expected.keyId) throw mismatch('another API key');
  if (payload.resourceId !== expected.resourceId) throw mismatch('another resource');
  if (payload.fingerprint !== expected.fingerprint) throw mismatch('a different sort, filter or locale');
  if (payload.position.values.length !== expected.sortLength) throw invalid();
  if (expected.now - payload.issuedAt > CURSOR_MAX_AGE_MS) {
    throw parameterError('cursor', 'The cursor has expired (after 24 hours); start again from the first page.', 'cursor_expired');
  }
  if (payload.issuedAt - expected.now > CURSOR_CLOCK_SKEW_MS) throw invalid('The cursor was issued in the future.');
  return payload;
};
