/**
 * GET /sync (contract section 16) in the key's document: described for a key that may read some
 * resource (any other key is refused with 403), with the items it answers: records of the readable
 * resources (their attributes as reads describe them) and removals, each naming its resource. Pure.
 */
import { allows } from '../grants/projection';
import type { ErrorStatus } from '../http/errors';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
import { MAX_LIMIT } from '../query/parse';
import { MAX_SYNC_TOKEN_LENGTH } from '../query/sync-token';
import { SYNC_DEFAULT_LIMIT } from '../query/sync-query';
import type { Resource } from '../registry/types';
import type { DocumentContext } from './context';
import { jsonApi } from './envelope';
import { errorResponses } from './errors';
import { localeListParameter } from './parameters';
import { SELF_LINK, attributesSchema } from './records';
import { object } from './schema';
import type { PathItemObject } from './types';

/** 410: a token past the retention, or made under other grants. */
const SYNC_ERRORS: readonly ErrorStatus[] = [400, 403, 410];

const LINK = { type: 'string', format: 'uri' } as const;

export const syncPath = (context: DocumentContext, exposed: readonly Resource[], tag: string): Record<string, PathItemObject> => {
  const readable = exposed.filter((resource) => allows(context.grants, resource.id, 'read'));
  if (readable.length === 0) return {};
  const { components } = context;
  const item = components.schema('SyncItem', () => ({
    type: 'object',
    description:
      'A record as the key reads it now (with `attributes`), or a removal (without, `meta.deletedAt` set): the key cannot read the record any more. `meta.resource` names the resource (two websites may publish collections of one type).',
    required: ['type', 'id', 'meta'],
    properties: {
      type: { type: 'string', enum: [...new Set(readable.map((resource) => resource.slug))] },
      id: { type: 'string' },
      // One resource: its attributes; several: any of theirs (Redocly refuses an anyOf of one).
      attributes:
        readable.length === 1
          ? attributesSchema(context, readable[0]!)
          : { anyOf: readable.map((resource) => attributesSchema(context, resource)) },
      meta: {
        type: 'object',
        description: "A record's system values (as in reads) and its resource; for a removal, the resource and when it left.",
        required: ['resource'],
        properties: {
          resource: { type: 'string', enum: readable.map((resource) => resource.id) },
          deletedAt: {
            type: 'string',
            format: 'date-time',
            description: 'Removals only: when the record changed so that the key cannot read it.',
          },
        },
      },
    },
    additionalProperties: false,
  }));
  const document = components.schema('SyncDocument', () =>
    object(
      {
        jsonapi: jsonApi(components),
        links: object(
          {
            self: SELF_LINK,
            next: { ...LINK, description: 'The next page of this run; absent on its last page.' },
            sync: { ...LINK, description: 'The last page only: the delta since this run, ready to use.' },
          },
          ['self'],
        ),
        meta: object(
          {
            page: object({ nextCursor: { type: 'string' } }),
            syncToken: { type: 'string', description: 'The last page only: keep it and send it as `token` for what changed since.' },
          },
          [],
        ),
        data: { type: 'array', items: item },
      },
      ['jsonapi', 'links', 'meta', 'data'],
      { description: 'A page of a sync run.' },
    ),
  );
  return {
    '/sync': {
      get: {
        operationId: 'sync',
        summary: 'Every record this key reads, then what changed since',
        description:
          'Without `token`: every record of every resource this key may read, page by page (follow `links.next`); the last page carries `links.sync` and `meta.syncToken`. With `token`: the records changed since, as they are now, and removals; each changed record once. Tokens are bound to this key, its grants and the locale, and kept 30 days (then 410 `sync_token_expired`; after a grant change 410 `sync_grants_changed`): start over without a token.',
        tags: [tag],
        parameters: [
          {
            name: 'limit',
            in: 'query',
            description: `Records per page, 1 to ${MAX_LIMIT}.`,
            schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: SYNC_DEFAULT_LIMIT },
          },
          localeListParameter(context),
          {
            name: 'token',
            in: 'query',
            description: 'A sync token (`meta.syncToken` of a run’s last page): answer what changed since.',
            schema: { type: 'string', minLength: 1, maxLength: MAX_SYNC_TOKEN_LENGTH },
          },
          {
            name: 'cursor',
            in: 'query',
            description: 'The next page of a run (`meta.page.nextCursor`); `links.next` carries it ready to use.',
            schema: { type: 'string', minLength: 1, maxLength: MAX_SYNC_TOKEN_LENGTH },
          },
        ],
        responses: {
          '200': { description: 'A page of the sync run.', content: { [JSONAPI_MEDIA_TYPE]: { schema: document } } },
          ...errorResponses(components, SYNC_ERRORS),
        },
      },
    },
  };
};
