/**
 * POST /public-api/preview: what a key with these (unsaved) grants would see, computed by the API
 * itself. Grants are validated exactly as saving would validate them; their issues are the answer
 * (200), while a body of the wrong shape is refused (400) like any other.
 */
import type { Context } from 'koa';
import type { PreviewKey } from '../../../../shared/contracts/preview';
import type { ApiKey } from '../../keys/types';
import { getService } from '../../utils/get-service';
import { answerAsKey } from './answer-as-key';
import { apiBaseUrl } from './api-base-url';
import { parseBody, previewSchema } from './input';

/** Stands for a key that is not saved yet; it never authenticates anything. */
const unsavedKey = (): ApiKey => {
  const now = new Date().toISOString();
  return {
    id: 0,
    documentId: 'preview',
    keyId: '000000000000',
    name: 'Preview',
    description: null,
    prefix: 'pdk_000000000000',
    lastFour: '0000',
    grants: { resources: {}, commands: [], origins: [] },
    limits: null,
    cache: null,
    preview: false,
    expiresAt: null,
    revoked: false,
    lastUsedAt: null,
    createdAt: now,
    updatedAt: now,
  };
};

export default () => ({
  async preview(ctx: Context) {
    const body = parseBody(previewSchema, ctx.request.body);
    const baseUrl = apiBaseUrl(ctx);
    const resolved = await getService('grants').resolve(body.grants);
    if (!resolved.ok) {
      const issues = resolved.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message }));
      ctx.body = { data: { apiBaseUrl: baseUrl, issues, index: null, openapi: null } } satisfies PreviewKey.Response;
      return;
    }
    const saved = body.keyId ? await getService('keys').findOne(body.keyId) : null;
    // The form's preview flag decides whether the OpenAPI document names `status` (unsaved, like the grants).
    const key: ApiKey = {
      ...(saved ?? unsavedKey()),
      grants: resolved.grants,
      ...(body.preview !== undefined ? { preview: body.preview } : {}),
    };
    const [index, openapi] = await Promise.all([answerAsKey(key, '/', baseUrl), answerAsKey(key, '/schema', baseUrl)]);
    ctx.body = {
      data: { apiBaseUrl: baseUrl, issues: [], index: index ?? { status: 404, body: null }, openapi },
    } satisfies PreviewKey.Response;
  },
});
