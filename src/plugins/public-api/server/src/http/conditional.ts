/**
 * Conditional and range requests for files (RFC 9110 sections 13 and 14), as pure functions over header
 * values. Only what assets need: If-None-Match, If-Range with an entity tag, and one byte range.
 */

/** `"abc"` or `W/"abc"`; the opaque tag with its quotes, and whether it is weak. */
export type EntityTag = { opaque: string; weak: boolean };

const ENTITY_TAG = /\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/gy;

/** The entity tags of a list header, or null when the header is not a well-formed list (or `*`). */
export const entityTags = (header: string): EntityTag[] | null => {
  const tags: EntityTag[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < header.length) {
    const match = ENTITY_TAG.exec(header);
    if (!match) return null;
    tags.push({ weak: match[1] !== undefined, opaque: match[2]! });
  }
  return tags;
};

/**
 * Whether If-None-Match matches our (strong) tag, by weak comparison as RFC 9110 13.1.2 asks: `*` or any
 * listed tag with the same opaque value. A malformed header matches nothing.
 */
export const noneMatchHits = (ifNoneMatch: string | undefined, etag: string): boolean => {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return (entityTags(ifNoneMatch) ?? []).some((tag) => tag.opaque === etag);
};

/** An inclusive byte range, as Content-Range writes it. */
export type ByteRange = { start: number; end: number };

export type RangeDecision =
  /** No usable Range: send the whole representation with 200. */
  | { kind: 'full' }
  /** One satisfiable range: 206 with Content-Range. */
  | { kind: 'partial'; range: ByteRange }
  /** A well-formed range that selects no byte: 416 with `Content-Range: bytes *\/size`. */
  | { kind: 'unsatisfiable' };

const FULL: RangeDecision = { kind: 'full' };
const UNSATISFIABLE: RangeDecision = { kind: 'unsatisfiable' };

const DIGITS = /^\d+$/;
// Beyond 2^53 the numbers are no longer exact; any such position is past the end of every file we serve.
const position = (text: string): number => Math.min(Number(text), Number.MAX_SAFE_INTEGER);

/**
 * Decides how to answer a GET with `Range` on a representation of `size` bytes and tag `etag`.
 *
 * - No Range, another unit, or a header that is not a well-formed `bytes=` set: ignored (200).
 * - Several ranges: ignored (200). Multipart responses are not offered: they cost more than they save for
 *   the files served here, and ignoring a Range is always allowed.
 * - If-Range that is not our strong tag (a date, a weak or another tag): the Range is ignored (200).
 * - One range: clamped to the file; one that starts at or past the end, an empty suffix (`-0`), or one
 *   that ends before it starts selects nothing (416).
 */
export const decideRange = (range: string | undefined, ifRange: string | undefined, size: number, etag: string): RangeDecision => {
  if (range === undefined) return FULL;
  if (ifRange !== undefined && ifRange.trim() !== etag) return FULL;
  const match = /^\s*bytes\s*=\s*(.*)$/i.exec(range);
  if (!match) return FULL;
  const specs = match[1]!.split(',').map((spec) => spec.trim());
  if (specs.length !== 1) return FULL;
  const spec = specs[0]!;
  const dash = spec.indexOf('-');
  if (dash === -1) return FULL;
  const first = spec.slice(0, dash).trim();
  const last = spec.slice(dash + 1).trim();

  if (first === '') {
    if (!DIGITS.test(last)) return FULL;
    const suffix = position(last);
    if (suffix === 0 || size === 0) return UNSATISFIABLE;
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  if (!DIGITS.test(first) || (last !== '' && !DIGITS.test(last))) return FULL;
  const start = position(first);
  const end = last === '' ? size - 1 : Math.min(position(last), size - 1);
  if (start >= size || (last !== '' && position(last) < start)) return UNSATISFIABLE;
  return { kind: 'partial', range: { start, end } };
};

export const contentRange = (range: ByteRange, size: number): string => `bytes ${range.start}-${range.end}/${size}`;

export const unsatisfiedRange = (size: number): string => `bytes */${size}`;
