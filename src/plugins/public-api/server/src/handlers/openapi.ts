/**
 * GET /schema, /openapi and /openapi.json: the OpenAPI document of the calling key. The middleware
 * has already checked that the Accept header admits application/json or
 * application/vnd.oai.openapi+json (http/media-types.ts). The document is cached with its entity tag
 * (services/openapi.ts); the edge answers If-None-Match and compression like for every read
 * (http/respond.ts).
 */
import { OPENAPI_TAG } from '../http/cache-tags';
import { headerValue } from '../http/headers';
import { assertOnlyParameters } from '../http/query';
import { openApiMediaType } from '../http/media-types';
import type { Handler } from '../http/request';
import { getService } from '../utils/get-service';

export const openApiDocument: Handler = async (request) => {
  assertOnlyParameters(request.query, () => false);
  const { text, etag } = await getService('openapi').document(request.key, request.baseUrl);
  const type = openApiMediaType(headerValue(request.headers, 'accept')) ?? 'application/json';
  // The media type follows Accept; the bytes and so the tag do not.
  return { kind: 'serialized', status: 200, headers: { Vary: 'Accept' }, type, bytes: text, etag, tags: [OPENAPI_TAG] };
};
