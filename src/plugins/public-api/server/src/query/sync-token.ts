/**
 * The sync feed's signed positions (contract section 16), pure apart from hashing; the caller supplies
 * the time.
 *
 * - A **sync token** (`?token=`, `meta.syncToken`, `links.sync`) is where a client's copy stands: a
 *   position in the change journal (everything before it is in the copy), the time that position was
 *   taken, the key, the locale list and the fingerprint of the key's grants it was made under.
 * - A **sync cursor** (`?cursor=`, `links.next`) continues one run of the feed page by page: an initial
 *   run (the resource and the keyset position within it, and the journal position the run started at)
 *   or a delta run (the journal position to continue from and the horizon the run reads up to).
 *
 * Both are `base64url(payload || HMAC-SHA-256(cursor key, "sync\0" || payload))`: the cursors' key
 * (contract: "signed like cursors"), with a label of their own so that no read cursor passes as a sync
 * token or the other way round. Decoding accepts only the canonical encoding.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CursorKey } from './cursor';
import { CURSOR_CLOCK_SKEW_MS, CURSOR_MAX_AGE_MS } from './cursor';
import { parameterError } from './problems';
import { apiError } from '../http/errors';

/** How old a token may be: the change journal's retention (30 days). */
export const SYNC_TOKEN_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The grain of the times tokens and cursors carry (their issue and run start times): an hour. The same
 * sync state then gives the same token, cursor and document for up to an hour, so its ETag answers
 * `If-None-Match` with 304 (contract section 14; at millisecond grain no two answers were alike). A time
 * is rounded down, never up: a token passes the 30-day check only while the journal still holds every
 * change after its position (those came after the real issue time, so after the rounded one), and it
 * expires at most an hour early; a cursor lives 23 to 24 hours. A client revalidating an answer holds a
 * token or cursor at most an hour older than a fresh one.
 */
export const SYNC_TIME_GRAIN_MS = 60 * 60 * 1000;

/** `now`, rounded down to the grain of sync times. */
export const syncTime = (now: number): number => now - (now % SYNC_TIME_GRAIN_MS);
export const MAX_SYNC_TOKEN_LENGTH = 1024;

const VERSION = 1;
const LABEL = Buffer.from('sync\u0000', 'utf8');
const TAG_BYTES = 32;

/** A position in the change journal (services/journal): entries are ordered by (txid, seq). */
export type SyncPosition = { txid: number; seq: number };

/** What a token or cursor is bound to: the key, its grants, and the locale list of the feed. */
export type SyncBinding = { keyId: string; grants: string; locale: string };

export type SyncToken = SyncBinding & { position: SyncPosition; issuedAt: number };

export type SyncCursor = SyncBinding &
  (
    | { phase: 'initial'; start: SyncPosition; startedAt: number; resourceId: string; after: string | null }
    | { phase: 'delta'; from: SyncPosition; to: SyncPosition; startedAt: number }
  ) & { issuedAt: number };

const tagOf = (key: CursorKey, bytes: Buffer) => createHmac('sha256', key.secret).update(LABEL).update(bytes).digest();

const sign = (payload: unknown[], key: CursorKey): string => {
  const bytes = Buffer.from(JSON.stringify(payload), 'utf8');
  return Buffer.concat([bytes, tagOf(key, bytes)]).toString('base64url');
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The signed payload of a canonical, untampered token, or null. */
const verified = (token: string, key: CursorKey): unknown[] | null => {
  if (token.length > MAX_SYNC_TOKEN_LENGTH || !BASE64URL.test(token) || token.length % 4 === 1) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.toString('base64url') !== token || bytes.length <= TAG_BYTES) return null;
  const body = bytes.subarray(0, bytes.length - TAG_BYTES);
  if (!timingSafeEqual(bytes.subarray(bytes.length - TAG_BYTES), tagOf(key, body))) return null;
  try {
    const payload: unknown = JSON.parse(body.toString('utf8'));
    return Array.isArray(payload) ? payload : null;
  } catch {
    return null;
  }
};

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isPosition = (value: unknown): value is [number, number] => Array.isArray(value) && value.length === 2 && value.every(isCount);
const toPosition = ([txid, seq]: [number, number]): SyncPosition => ({ txid, seq });
const fromPosition = (position: SyncPosition): [number, number] => [position.txid, position.seq];

export const encodeSyncToken = (token: SyncToken, key: CursorKey): string =>
  sign(['t', VERSION, token.keyId, token.grants, token.locale, fromPosition(token.position), token.issuedAt], key);

export const encodeSyncCursor = (cursor: SyncCursor, key: CursorKey): string => {
  const bound = [cursor.keyId, cursor.grants, cursor.locale, cursor.issuedAt];
  return cursor.phase === 'initial'
    ? sign(['i', VERSION, ...bound, fromPosition(cursor.start), cursor.startedAt, cursor.resourceId, cursor.after], key)
    : sign(['d', VERSION, ...bound, fromPosition(cursor.from), fromPosition(cursor.to), cursor.startedAt], key);
};

const invalidToken = () =>
  parameterError('token', 'The sync token is not valid; start again with a sync without a token.', 'sync_token_invalid');

/**
 * A token as sent -> where the copy stands, or: 400 on `token` when it is malformed, tampered or of
 * another key (`sync_token_invalid`, `sync_token_mismatch`) or of another locale list; 410 `gone` with
 * `sync_token_expired` past the retention, and `sync_grants_changed` when the key's grants changed
 * since (what the copy holds may no longer be what the key reads: start over).
 */
export const decodeSyncToken = (token: string, key: CursorKey, expected: SyncBinding, now: number): SyncToken => {
  const payload = verified(token, key);
  if (!payload || payload.length !== 7 || payload[0] !== 't' || payload[1] !== VERSION) throw invalidToken();
  const [, , keyId, grants, locale, position, issuedAt] = payload;
  if (
    typeof keyId !== 'string' ||
    typeof grants !== 'string' ||
    typeof locale !== 'string' ||
    !isPosition(position) ||
    !isCount(issuedAt)
  ) {
    throw invalidToken();
  }
  if (keyId !== expected.keyId) {
    throw parameterError('token', 'The sync token was issued to another API key.', 'sync_token_mismatch');
  }
  if (issuedAt - now > CURSOR_CLOCK_SKEW_MS) throw invalidToken();
  if (now - issuedAt > SYNC_TOKEN_MAX_AGE_MS) {
    throw apiError(410, 'The sync token is older than the 30 days changes are kept; start again with a sync without a token.', {
      source: { parameter: 'token' },
      reason: 'sync_token_expired',
    });
  }
  if (locale !== expected.locale) {
    throw parameterError(
      'token',
      'The sync token was issued for another locale; send it without `locale`, or start again.',
      'sync_token_mismatch',
    );
  }
  if (grants !== expected.grants) {
    throw apiError(410, "This key's grants changed since the sync token was issued; start again with a sync without a token.", {
      source: { parameter: 'token' },
      reason: 'sync_grants_changed',
    });
  }
  return { keyId, grants, locale, position: toPosition(position), issuedAt };
};

const invalidCursor = (detail = 'The cursor is not valid; start the sync again.') => parameterError('cursor', detail, 'cursor_invalid');

/** A sync cursor as sent -> the run it continues, or 400 on `cursor` (invalid, another key, grants or locale, expired). */
export const decodeSyncCursor = (cursor: string, key: CursorKey, expected: SyncBinding, now: number): SyncCursor => {
  const payload = verified(cursor, key);
  if (!payload || payload[1] !== VERSION) throw invalidCursor();
  const [phase, , keyId, grants, locale, issuedAt, ...rest] = payload;
  if (typeof keyId !== 'string' || typeof grants !== 'string' || typeof locale !== 'string' || !isCount(issuedAt)) throw invalidCursor();
  if (keyId !== expected.keyId)
    throw parameterError('cursor', 'The cursor was issued to another API key; start the sync again.', 'cursor_mismatch');
  if (grants !== expected.grants || locale !== expected.locale) {
    throw parameterError('cursor', 'The cursor was issued for other grants or another locale; start the sync again.', 'cursor_mismatch');
  }
  if (now - issuedAt > CURSOR_MAX_AGE_MS) {
    throw parameterError('cursor', 'The cursor has expired (after 24 hours); start the sync again.', 'cursor_expired');
  }
  if (issuedAt - now > CURSOR_CLOCK_SKEW_MS) throw invalidCursor();
  const bound = { keyId, grants, locale, issuedAt };
  if (phase === 'i' && rest.length === 4) {
    const [start, startedAt, resourceId, after] = rest;
    if (isPosition(start) && isCount(startedAt) && typeof resourceId === 'string' && (after === null || typeof after === 'string')) {
      return { ...bound, phase: 'initial', start: toPosition(start), startedAt, resourceId, after };
    }
  }
  if (phase === 'd' && rest.length === 3) {
    const [from, to, startedAt] = rest;
    if (isPosition(from) && isPosition(to) && isCount(startedAt)) {
      return { ...bound, phase: 'delta', from: toPosition(from), to: toPosition(to), startedAt };
    }
  }
  throw invalidCursor();
};
