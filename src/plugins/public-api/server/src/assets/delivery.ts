/**
 * The headers a file is delivered with. Pure.
 *
 * A file's MIME type is what the uploader declared. Types a browser would run as a document (HTML, XML,
 * SVG, scripts) must not execute on the API's origin: they are served with a sandboxing Content Security
 * Policy, and, except SVG (which pages embed as an image), as an attachment. `nosniff` (set for every
 * response of /api/v2) keeps the browser from second-guessing the declared type.
 */
export const CACHE_FOREVER = 'public, max-age=31536000, immutable';

export const SANDBOX_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export const FALLBACK_MIME = 'application/octet-stream';

const TOKEN = '[a-z0-9!#$&^_.+-]+';
const MIME = new RegExp(`^${TOKEN}/${TOKEN}$`, 'i');

const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'text/xml',
  'application/xml',
  'text/xsl',
  'application/xslt+xml',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'text/ecmascript',
  'application/ecmascript',
  'application/x-shockwave-flash',
  'multipart/x-mixed-replace',
]);

export const SVG_MIME = 'image/svg+xml';

/** A declared type, lower-cased, or the neutral fallback when it is not a plain `type/subtype`. */
export const deliveredMime = (declared: string | null | undefined): string => {
  const trimmed = (declared ?? '').trim().toLowerCase();
  return MIME.test(trimmed) ? trimmed : FALLBACK_MIME;
};

/** Whether a browser would treat a response of this type as an active document. */
export const isActiveType = (mime: string): boolean => ACTIVE_TYPES.has(mime) || mime.endsWith('+xml');

/** Content-Type and the safety headers for a file of this declared type. */
export const deliveryHeaders = (declared: string | null | undefined): Record<string, string> => {
  const mime = deliveredMime(declared);
  if (!isActiveType(mime)) return { 'Content-Type': mime };
  return {
    'Content-Type': mime,
    'Content-Security-Policy': SANDBOX_POLICY,
    ...(mime === SVG_MIME ? {} : { 'Content-Disposition': 'attachment' }),
  };
};
