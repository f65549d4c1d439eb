/**
 * The request URL as links repeat it (`links.self`), and the next page's URL (`links.next`), written
 * without parsing a URL when nothing in them needs it (issue 16: `new URL` twice and `URLSearchParams`
 * three times a page, 4% of a ten-record page's CPU). Pure.
 *
 * `canonicalUrl` is what `new URL(raw)` with its query rewritten by `URLSearchParams` gives: query
 * characters such as `[` and `]` percent-encoded, the host lower-cased, a default port dropped, dot
 * segments resolved, other characters of the path percent-encoded. Where the path holds only characters
 * the URL standard leaves as they are and no dot segment, and the origin is already in its normal form,
 * that is the origin, the path and the rewritten query as they are; anything else goes through `URL`.
 */
import { createLru } from '../utils/lru';

/** Characters a URL path keeps as they are (no percent-encoding, no `\` turned into `/`). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
/** A `.` or `..` segment, also percent-encoded: `URL` resolves those. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** A fragment, spaces and controls (`URL` trims them from the ends), and anything past ASCII (`URL` encodes it first). */
// eslint-disable-next-line no-control-regex -- controls are what it looks for
const OUTSIDE_FAST_PATH = /[#\x00-\x20\x7f-\uffff]/;

/** Whether `URL` writes this origin (scheme, host, port, and a base path of PUBLIC_URL's) as it is. */
const normalOrigins = createLru<string, boolean>(100);
const isNormalOrigin = (origin: string): boolean => {
  let normal = normalOrigins.get(origin);
  if (normal === undefined) {
    try {
      normal = new URL(origin).href.replace(/\/$/, '') === origin && !origin.includes('?') && !origin.includes('#');
    } catch {
      normal = false;
    }
    if (origin.length <= 300) normalOrigins.set(origin, normal);
  }
  return normal;
};

const slowCanonicalUrl = (raw: string): string => {
  const url = new URL(raw);
  url.search = new URLSearchParams(url.search).toString();
  return url.toString();
};

/** `origin` (links' origin) followed by the request target's path and query, as a valid URI. */
export const canonicalUrl = (origin: string, pathAndQuery: string): string => {
  const at = pathAndQuery.indexOf('?');
  const path = at === -1 ? pathAndQuery : pathAndQuery.slice(0, at);
  if (!isNormalOrigin(origin) || OUTSIDE_FAST_PATH.test(pathAndQuery) || !PLAIN_PATH.test(path) || DOT_SEGMENT.test(path)) {
    return slowCanonicalUrl(`${origin}${pathAndQuery}`);
  }
  // With its `?`, as `URL`'s search is: URLSearchParams drops one leading `?` (a second is a name).
  const query = at === -1 ? '' : new URLSearchParams(pathAndQuery.slice(at)).toString();
  return query === '' ? `${origin}${path}` : `${origin}${path}?${query}`;
};

/** `links.next`: every parameter of the request as sent (`selfUrl`, a canonical URL), the cursor replaced. */
export const nextLink = (selfUrl: string, cursor: string): string => {
  if (OUTSIDE_FAST_PATH.test(selfUrl)) {
    const url = new URL(selfUrl);
    const params = new URLSearchParams(url.search);
    params.delete('cursor');
    params.append('cursor', cursor);
    url.search = params.toString();
    return url.toString();
  }
  const at = selfUrl.indexOf('?');
  const params = new URLSearchParams(at === -1 ? '' : selfUrl.slice(at));
  params.delete('cursor');
  params.append('cursor', cursor);
  return `${at === -1 ? selfUrl : selfUrl.slice(0, at)}?${params.toString()}`;
};
