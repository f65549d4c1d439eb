/**
 * CORS for /api/v2 (contract section 4). Only a serialized origin (http/origins.ts) is ever echoed: with
 * the full CORS answer when the key allows it, and on the refusal of one it does not (issue 33, item 12).
 */
export const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, Accept, Idempotency-Key, If-None-Match, If-Match';
export const EXPOSED_RESPONSE_HEADERS =
  'Location, Idempotent-Replayed, WWW-Authenticate, Allow, ETag, RateLimit, RateLimit-Policy, Retry-After';
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export const corsHeaders = (origin: string): Record<string, string> => ({
  'Access-Control-Allow-Origin': origin,
  'Access-Control-Expose-Headers': EXPOSED_RESPONSE_HEADERS,
  Vary: 'Origin',
});

/**
 * The 403 `origin_not_allowed` of a key that does not list the origin, readable by the page so that its
 * developer sees why instead of "Failed to fetch". It grants nothing: the request was refused before any
 * record was read, the body says only that the origin is not on the key's list (which the page, holding
 * the key, could learn by asking from a server), no response header is exposed, and credentials are never
 * allowed (no `Access-Control-Allow-Credentials`, anywhere in the API).
 */
export const refusalHeaders = (origin: string): Record<string, string> => ({
  'Access-Control-Allow-Origin': origin,
  Vary: 'Origin',
});

export const preflightHeaders = (origin: string, allow: string[]): Record<string, string> => ({
  'Access-Control-Allow-Origin': origin,
  'Access-Control-Allow-Methods': allow.join(', '),
  'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS,
  'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
  Vary: 'Origin',
});

/**
 * Public routes (assets) need no key and no cookie, so any origin may read them: a page may draw an
 * image on a canvas or fetch a file. Credentials are never allowed.
 */
export const PUBLIC_CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Content-Length, Content-Range, Accept-Ranges, ETag',
};

export const PUBLIC_REQUEST_HEADERS = 'Range, If-None-Match, If-Range';

export const publicPreflightHeaders = (allow: string[]): Record<string, string> => ({
  'Access-Control-Allow-Methods': allow.join(', '),
  'Access-Control-Allow-Headers': PUBLIC_REQUEST_HEADERS,
  'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
});
