/**
 * GET /schema, /openapi and /openapi.json: the OpenAPI document of the calling key. The middleware
 * has already checked that the Accept header admits application/json or
 * application/vnd.oai.openapi+json (http/media-types.ts).
 */
import { noneMatchHits } from '../http/conditional';
import { headerValue } from '../http/headers';
import { assertOnlyParameters } from '../http/query';
import { openApiMediaType } from '../http/media-types';
import type { Handler } from '../http/request';
import { getService } from '../utils/get-service';

export const openApiDocument: Handler = async (request) => {
  assertOnlyParameters(request.query, () => false);
  const { text, etag } = await getService('openapi').document(request.key, request.baseUrl);
  // Per key, and revalidated every time: grants change without notice.
  const headers = { ETag: etag, 'Cache-Control': 'private, no-cache', Vary: 'Accept, Authorization' };
  if (noneMatchHits(headerValue(request.headers, 'if-none-match'), etag)) return { status: 304, headers };
  const type = openApiMediaType(headerValue(request.headers, 'accept')) ?? 'application/json';
  return { status: 200, headers, raw: { type, text } };
};
