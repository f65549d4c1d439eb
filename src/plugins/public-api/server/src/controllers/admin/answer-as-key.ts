/**
 * Asks /api/v2 a question as a key would, without HTTP and without the key's secret: the request is
 * routed by the API's own router and answered by its own handlers, so the preview shows exactly
 * what the API serves, including endpoints added later (the OpenAPI document).
 */
import { Readable } from 'node:stream';
import type { PreviewAnswer } from '../../../../shared/contracts/preview';
import { errorDocument, isApiError } from '../../http/errors';
import { JSONAPI_MEDIA_TYPE } from '../../http/media-types';
import { createRouter } from '../../http/router';
import type { ApiResponse } from '../../http/request';
import type { ApiKey } from '../../keys/types';
import { assertMethodOf, contentApiRoutes, handlerOf } from '../../routes/content-api';

const router = createRouter(contentApiRoutes);

/** The document of an answer, as the admin shows it; the OpenAPI document comes serialized already (it is cached as bytes). */
const previewBody = (response: ApiResponse): unknown => {
  switch (response.kind) {
    case 'document':
      return response.document ?? null;
    case 'serialized':
      return JSON.parse(response.bytes.toString()) as unknown;
    case 'empty':
    case 'file':
      return null;
  }
};

/** `GET <path>` as `key`; null when the API has no endpoint there (yet). */
export const answerAsKey = async (key: ApiKey, path: string, baseUrl: string): Promise<PreviewAnswer | null> => {
  try {
    const match = router.match('GET', path);
    // Public routes answer files, not documents: nothing to preview.
    const handler = match.route ? handlerOf(match.route.name) : null;
    if (!handler || !match.route) return null;
    const response = await handler({
      method: 'GET',
      path,
      params: match.params,
      query: new URLSearchParams(),
      headers: { accept: JSONAPI_MEDIA_TYPE },
      key,
      extensions: match.route.extensions,
      supports: (resource) => assertMethodOf(match, 'GET', resource),
      baseUrl,
      selfUrl: `${baseUrl}${path}`,
      // The admin previews what a key sees: no client of its own.
      client: 'admin',
      // A GET has no body.
      readBody: async () => Buffer.alloc(0),
      streamBody: () => Object.assign(Readable.from([]), { headers: {} }),
      // A signed-in editor's preview, one at a time from the admin: not counted against the API's budget.
      reserveExpansion: async () => undefined,
      assertExpansionRoom: async () => undefined,
      charge: async () => undefined,
    });
    return { status: response.status, body: previewBody(response) };
  } catch (error) {
    if (!isApiError(error)) throw error;
    if (error.status === 404) return null;
    return { status: error.status, body: errorDocument(error.errors) };
  }
};
