/**
 * Content negotiation for JSON:API (contract section 12), as pure functions over header values.
 */
import { apiError } from './errors';

export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

/**
 * JSON:API's Atomic Operations extension (contract section 17), the only extension the API supports.
 * A route that supports it lists it in its `extensions` (routes/content-api.ts): POST /operations.
 */
export const ATOMIC_EXTENSION = 'https://jsonapi.org/ext/atomic';

/** The media type of a document that uses the Atomic Operations extension (its requests and its results). */
export const ATOMIC_MEDIA_TYPE = `${JSONAPI_MEDIA_TYPE}; ext="${ATOMIC_EXTENSION}"`;

/** A media type and its parameters (names lower-cased, values unquoted; a repeated name keeps every value). */
export type MediaType = { type: string; params: Record<string, string[]> };
/** A media range of an Accept header: a media type with its weight (`q`, not a parameter). */
export type MediaRange = MediaType & { q: number };

/** Splits at `separator` where it is not inside a quoted string (RFC 9110 5.6.4: `\` escapes there). */
const splitOutsideQuotes = (text: string, separator: string): string[] => {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted && char === '\\' && i + 1 < text.length) {
      current += char + text[i + 1]!;
      i += 1;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
};

const unquote = (value: string): string =>
  value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value;

/** One media type (a Content-Type value, or one range of an Accept header). */
export const parseMediaType = (text: string): MediaType => {
  const [type = '', ...parts] = splitOutsideQuotes(text, ';');
  const params: Record<string, string[]> = {};
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (!name) continue;
    (params[name] ??= []).push(eq === -1 ? '' : unquote(part.slice(eq + 1).trim()));
  }
  return { type: type.trim().toLowerCase(), params };
};

const weightOf = (values: string[] | undefined): number => {
  if (values === undefined) return 1;
  const parsed = Number(values[0]);
  return Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 1;
};

export const parseMediaRanges = (header: string): MediaRange[] =>
  splitOutsideQuotes(header, ',')
    .map((range) => range.trim())
    .filter(Boolean)
    .map((range) => {
      const { type, params } = parseMediaType(range);
      const { q, ...rest } = params;
      return { type, params: rest, q: weightOf(q) };
    });

const onlyJsonApiParams = (params: Record<string, string[]>): boolean =>
  Object.keys(params).every((name) => name === 'ext' || name === 'profile');

/** The extension URIs an `ext` parameter names (a space-separated list, JSON:API 1.1). */
const extensionsOf = (params: Record<string, string[]>): string[] =>
  (params.ext ?? []).flatMap((value) => value.split(/\s+/)).filter(Boolean);

const unsupportedExtensions = (params: Record<string, string[]>, supported: readonly string[]): string[] =>
  extensionsOf(params).filter((uri) => !supported.includes(uri));

/** A JSON:API media type this endpoint can honour: no parameter but ext and profile, and only extensions it supports. */
const usable = (params: Record<string, string[]>, supported: readonly string[]): boolean =>
  onlyJsonApiParams(params) && unsupportedExtensions(params, supported).length === 0;

const supportedText = (supported: readonly string[]): string =>
  supported.length ? `supports only the JSON:API extensions ${supported.join(', ')}` : 'supports no JSON:API extension';

/**
 * The Accept header (contract section 12, JSON:API 1.1 "Content Negotiation"). When it names JSON:API,
 * those instances decide, whatever else it lists (wildcards included): 406 unless one of them, with a
 * weight above 0, carries no parameter but ext and profile and names only extensions this endpoint
 * supports (`supported`). When it does not name JSON:API, a wildcard (any type, or any application type) is needed. No Accept
 * header accepts everything.
 */
export const assertAcceptable = (accept: string | undefined, supported: readonly string[] = []): void => {
  if (accept === undefined || accept.trim() === '') return;
  const ranges = parseMediaRanges(accept);
  const instances = ranges.filter((range) => range.type === JSONAPI_MEDIA_TYPE);
  if (instances.length === 0) {
    if (ranges.some((range) => range.q > 0 && (range.type === '*/*' || range.type === 'application/*'))) return;
    throw apiError(406, `This endpoint answers with ${JSONAPI_MEDIA_TYPE}; the Accept header excludes it.`, {
      source: { header: 'Accept' },
      reason: 'not_acceptable',
    });
  }
  const requested = instances.filter((range) => range.q > 0);
  if (requested.some((range) => usable(range.params, supported))) return;
  if (requested.length === 0) {
    throw apiError(406, `This endpoint answers with ${JSONAPI_MEDIA_TYPE}; the Accept header refuses it (q=0).`, {
      source: { header: 'Accept' },
      reason: 'not_acceptable',
    });
  }
  if (requested.every((range) => !onlyJsonApiParams(range.params))) {
    throw apiError(406, `The ${JSONAPI_MEDIA_TYPE} media type in Accept may only carry the ext and profile parameters.`, {
      source: { header: 'Accept' },
      reason: 'media_type_parameters',
    });
  }
  throw apiError(
    406,
    `Every ${JSONAPI_MEDIA_TYPE} in Accept asks for an extension this endpoint does not support; it ${supportedText(supported)}.`,
    {
      source: { header: 'Accept' },
      reason: 'extension_unsupported',
    },
  );
};

/**
 * Request bodies are application/json or application/vnd.api+json, the latter with ext/profile only
 * and only extensions this endpoint supports (`supported`); anything else, or no Content-Type at all
 * on a body, gives 415.
 */
export const assertJsonContentType = (contentType: string | undefined, supported: readonly string[] = []): void => {
  const { type, params } = parseMediaType(contentType ?? '');
  if (type === 'application/json') return;
  if (type === JSONAPI_MEDIA_TYPE) {
    if (!onlyJsonApiParams(params)) {
      throw apiError(415, `The ${JSONAPI_MEDIA_TYPE} media type may only carry the ext and profile parameters.`, {
        source: { header: 'Content-Type' },
        reason: 'media_type_parameters',
      });
    }
    const unsupported = unsupportedExtensions(params, supported);
    if (unsupported.length) {
      throw apiError(415, `This endpoint ${supportedText(supported)}; the request body names ${unsupported.join(', ')}.`, {
        source: { header: 'Content-Type' },
        reason: 'extension_unsupported',
      });
    }
    return;
  }
  throw apiError(415, `Request bodies must be application/json or ${JSONAPI_MEDIA_TYPE}.`, {
    source: { header: 'Content-Type' },
    reason: 'unsupported_media_type',
  });
};

/**
 * A body of atomic operations (contract section 17) must say so: JSON:API's media type naming the Atomic
 * Operations extension in `ext`. Plain JSON, or JSON:API without the extension, would be read with the
 * base specification's semantics, which has no `atomic:operations`: 415.
 */
export const assertAtomicContentType = (contentType: string | undefined): void => {
  assertJsonContentType(contentType, [ATOMIC_EXTENSION]);
  const { type, params } = parseMediaType(contentType ?? '');
  if (type === JSONAPI_MEDIA_TYPE && extensionsOf(params).includes(ATOMIC_EXTENSION)) return;
  throw apiError(415, `Atomic operations are sent as ${ATOMIC_MEDIA_TYPE}.`, {
    source: { header: 'Content-Type' },
    reason: 'atomic_extension_required',
  });
};

// ---------------------------------------------------------------------------------------------------------
// The OpenAPI document (GET /schema, /openapi, /openapi.json)
// ---------------------------------------------------------------------------------------------------------

/**
 * The document is not JSON:API, so it is not served as application/vnd.api+json: tools (Swagger UI,
 * Redocly, openapi-typescript, Postman) ask for application/json, and OpenAPI registers
 * application/vnd.oai.openapi+json. Either is served; plain JSON unless the client prefers the other.
 */
export const OPENAPI_MEDIA_TYPES = ['application/json', 'application/vnd.oai.openapi+json'] as const;
export type OpenApiMediaType = (typeof OPENAPI_MEDIA_TYPES)[number];

/** The quality a media type gets from the most specific range that matches it (RFC 9110 12.5.1). */
const qualityOf = (type: string, ranges: MediaRange[]): { q: number; specificity: number } => {
  const [major] = type.split('/');
  let best: { q: number; specificity: number } = { q: 0, specificity: -1 };
  for (const range of ranges) {
    const specificity = range.type === type ? 2 : range.type === `${major}/*` ? 1 : range.type === '*/*' ? 0 : -1;
    if (specificity > best.specificity) best = { q: range.q, specificity };
  }
  return best;
};

/** The media type to serve the document as, or null when the Accept header excludes both. */
export const openApiMediaType = (accept: string | undefined): OpenApiMediaType | null => {
  if (accept === undefined || accept.trim() === '') return OPENAPI_MEDIA_TYPES[0];
  const ranges = parseMediaRanges(accept);
  let chosen: { type: OpenApiMediaType; q: number; specificity: number } | null = null;
  for (const type of OPENAPI_MEDIA_TYPES) {
    const { q, specificity } = qualityOf(type, ranges);
    if (q > 0 && (!chosen || q > chosen.q || (q === chosen.q && specificity > chosen.specificity))) chosen = { type, q, specificity };
  }
  return chosen?.type ?? null;
};

export const assertAcceptsOpenApi = (accept: string | undefined): void => {
  if (openApiMediaType(accept) === null) {
    throw apiError(406, `This endpoint answers with ${OPENAPI_MEDIA_TYPES.join(' or ')}; the Accept header excludes both.`, {
      source: { header: 'Accept' },
      reason: 'not_acceptable',
    });
  }
};
