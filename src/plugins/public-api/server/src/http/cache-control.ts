/**
 * Cache-Control and Vary of /api/v2 answers (contract section 14). Pure.
 *
 * - A 200 or 304 to a GET or HEAD with a key: `private, no-cache` (the document depends on the key, and
 *   grants change without notice, so a browser revalidates every time), or for a cacheable key
 *   `public, s-maxage=<n>, stale-while-revalidate=<n>`. Either way `Vary: Authorization`, so that no
 *   cache hands one key's document to another.
 * - Everything else (errors, writes, answers to commands): `no-store`.
 */
import type { CachePolicy } from '../config/cache-policy';

export const PRIVATE_REVALIDATED = 'private, no-cache';
export const NOT_STORED = 'no-store';

export const sharedCacheControl = (policy: CachePolicy): string =>
  `public, s-maxage=${policy.sharedMaxAge}, stale-while-revalidate=${policy.sharedMaxAge}`;

/** The Cache-Control of a document a key reads (200 or 304 to GET or HEAD). */
export const readCacheControl = (policy: CachePolicy | null): string => (policy ? sharedCacheControl(policy) : PRIVATE_REVALIDATED);
