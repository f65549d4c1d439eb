/**
 * Strong entity tags of documents (contract section 14, RFC 9110 8.8.3 and 13.1), as pure functions.
 *
 * A document's tag is a hash of the exact bytes sent: `"<27 base64url characters of SHA-256>"`, so it
 * changes with any byte of the document (an included record, an asset URL, a self link) and two keys
 * that see different documents get different tags. A content-coded representation is other bytes, so it
 * gets its own strong tag (RFC 9110 8.8.3.3): the identity tag with `-br` or `-gzip` inside the quotes.
 * Conditional requests compare tags without that suffix: a client that holds the gzip representation
 * and now asks for br still revalidates it, and an If-Match may quote the tag of any representation.
 */
import { createHash, hash } from 'node:crypto';
import type { ContentCoding } from './accept-encoding';
import { entityTags } from './conditional';
import { apiError } from './errors';

/** 27 base64url characters: 162 bits of the SHA-256 of the bytes. */
const HASH_LENGTH = 27;

/**
 * The strong tag of these identity bytes, quotes included. One call of `crypto.hash`: a Hash object per
 * document is a native handle the garbage collector tracks, dearer than the hash of a small document.
 */
export const entityTagOf = (bytes: Buffer | string): string => `"${hash('sha256', bytes, 'base64url').slice(0, HASH_LENGTH)}"`;

/**
 * The tag of a document sent as `chunks` (the same as `entityTagOf` their concatenation), hashed a chunk
 * at a time with a turn of the event loop between chunks: a 40 MB document's hash would otherwise hold
 * the one thread for tens of milliseconds.
 */
export const entityTagOfChunks = async (chunks: readonly Buffer[]): Promise<string> => {
  if (chunks.length === 1) return entityTagOf(chunks[0]!);
  const digest = createHash('sha256');
  for (const [index, chunk] of chunks.entries()) {
    if (index > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    digest.update(chunk);
  }
  return `"${digest.digest('base64url').slice(0, HASH_LENGTH)}"`;
};

/** The tag of the representation in `coding` (null: identity) of the document whose identity tag is `tag`. */
export const codedTag = (tag: string, coding: ContentCoding | null): string => (coding === null ? tag : `${tag.slice(0, -1)}-${coding}"`);

const CODING_SUFFIX = /-(?:br|gzip)"$/;

/** The identity tag a (possibly coded) tag stands for. */
const identityOf = (opaque: string): string => opaque.replace(CODING_SUFFIX, '"');

/**
 * Whether If-None-Match matches the document whose identity tag is `tag`, by weak comparison (RFC 9110
 * 13.1.2): `*`, or any listed tag, weak or not, of one of its representations. A malformed header
 * matches nothing, so the document is sent.
 */
export const noneMatch = (ifNoneMatch: string | undefined, tag: string): boolean => {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return (entityTags(ifNoneMatch) ?? []).some((listed) => identityOf(listed.opaque) === tag);
};

/** What an If-Match header asks: nothing, any current representation (`*`), or one of these strong tags. */
export type IfMatch = { kind: 'none' } | { kind: 'any' } | { kind: 'tags'; tags: string[] };

export const IF_MATCH_HEADER = 'If-Match';

/**
 * The If-Match header -> what it asks, or 400 `if_match_invalid` when it is not `*` or a list of entity
 * tags (RFC 9110 13.1.1 gives no meaning to such a header; refusing it says so, where a 412 would
 * send the client to read the record again for nothing). Weak tags are kept out: If-Match compares
 * strongly, so a weak tag never matches (its request gets 412).
 */
export const parseIfMatch = (header: string | undefined): IfMatch => {
  if (header === undefined) return { kind: 'none' };
  if (header.trim() === '*') return { kind: 'any' };
  const listed = header.trim() === '' ? null : entityTags(header);
  if (!listed || listed.length === 0) {
    throw apiError(400, 'If-Match is `*` or a list of entity tags, each in double quotes, as an ETag header sends them.', {
      source: { header: IF_MATCH_HEADER },
      reason: 'if_match_invalid',
    });
  }
  return { kind: 'tags', tags: listed.filter((entry) => !entry.weak).map((entry) => identityOf(entry.opaque)) };
};

/** Whether If-Match holds for an existing record whose current documents have these identity tags. */
export const ifMatchHolds = (ifMatch: IfMatch, current: readonly string[]): boolean =>
  ifMatch.kind !== 'tags' || ifMatch.tags.some((tag) => current.includes(tag));
