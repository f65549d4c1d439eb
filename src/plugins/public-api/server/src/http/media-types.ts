/**
 * Content negotiation for JSON:API (contract section 12), as pure functions over header values.
 */
import { apiError } from './errors';

export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';

type MediaRange = { type: string; params: Record<string, string>; q: number };

const parseParams = (parts: string[]): { params: Record<string, string>; q: number } => {
  const params: Record<string, string> = {};
  let q = 1;
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'q') {
      const parsed = Number(value);
      q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 1;
    } else if (name) {
      params[name] = value;
    }
  }
  return { params, q };
};

export const parseMediaRanges = (header: string): MediaRange[] =>
  header
    .split(',')
    .map((range) => range.trim())
    .filter(Boolean)
    .map((range) => {
      const [type = '', ...rest] = range.split(';');
      return { type: type.trim().toLowerCase(), ...parseParams(rest) };
    });

const onlyJsonApiParams = (params: Record<string, string>): boolean =>
  Object.keys(params).every((name) => name === 'ext' || name === 'profile');

/**
 * An Accept header that excludes JSON:API and any wildcard gives 406; so does one whose JSON:API
 * instances all carry parameters other than ext/profile. No Accept header accepts everything.
 */
export const assertAcceptable = (accept: string | undefined): void => {
  if (accept === undefined || accept.trim() === '') return;
  const ranges = parseMediaRanges(accept).filter((range) => range.q > 0);
  const wildcard = ranges.some((range) => range.type === '*/*' || range.type === 'application/*');
  const jsonApi = ranges.filter((range) => range.type === JSONAPI_MEDIA_TYPE);
  const usableJsonApi = jsonApi.some((range) => onlyJsonApiParams(range.params));
  if (usableJsonApi || wildcard) return;
  if (jsonApi.length > 0) {
    throw apiError(406, `The ${JSONAPI_MEDIA_TYPE} media type in Accept may only carry the ext and profile parameters.`, {
      source: { header: 'Accept' },
      reason: 'media_type_parameters',
    });
  }
  throw apiError(406, `This endpoint answers with ${JSONAPI_MEDIA_TYPE}; the Accept header excludes it.`, {
    source: { header: 'Accept' },
    reason: 'not_acceptable',
  });
};

/**
 * Request bodies are application/json or application/vnd.api+json (the latter with ext/profile only);
 * anything else, or no Content-Type at all on a body, gives 415.
 */
export const assertJsonContentType = (contentType: string | undefined): void => {
  const [range] = parseMediaRanges(contentType ?? '');
  if (range?.type === 'application/json') return;
  if (range?.type === JSONAPI_MEDIA_TYPE) {
    if (onlyJsonApiParams(range.params)) return;
    throw apiError(415, `The ${JSONAPI_MEDIA_TYPE} media type may only carry the ext and profile parameters.`, {
      source: { header: 'Content-Type' },
      reason: 'media_type_parameters',
    });
  }
  throw apiError(415, `Request bodies must be application/json or ${JSONAPI_MEDIA_TYPE}.`, {
    source: { header: 'Content-Type' },
    reason: 'unsupported_media_type',
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
