/**
 * What the OpenAPI document says about HTTP caching (contract section 14, http/respond.ts): on every
 * GET the If-None-Match parameter, the ETag, Cache-Control, Cache-Tag and Surrogate-Key headers of its
 * 200 and a 304; on PATCH and DELETE the If-Match parameter, the ETag of a 200 and a 412. Applied to the
 * finished paths, so each operation says it the same way.
 */
import type { Components } from './document-components';
import { errorResponse } from './errors';
import type { OperationObject, PathItemObject, Ref, ResponseObject } from './types';

const etag = (c: Components): Ref =>
  c.header('ETag', () => ({
    description:
      'The strong entity tag of this representation: it changes whenever any byte of the document does (included records and asset URLs too), and a compressed representation has its own (`-br`/`-gzip` before the closing quote).',
    schema: { type: 'string' },
  }));

const cacheControl = (c: Components): Ref =>
  c.header('Cache-Control', () => ({
    description:
      '`private, no-cache` by default; `public, s-maxage=<n>, stale-while-revalidate=<n>` for a key marked cacheable. Errors and writes: `no-store`.',
    schema: { type: 'string' },
  }));

const cacheTag = (c: Components): Ref =>
  c.header('Cache-Tag', () => ({
    description:
      'What a CDN may purge this document by, comma-separated: its resource (`<resource>` for a native one, `<website>/<collection>` for a CMS one) and every record in it (`<resource>:<id>`), included and referenced records too; `<resource>:overflow` in place of record tags past 8,000 bytes.',
    schema: { type: 'string' },
  }));

const surrogateKey = (c: Components): Ref =>
  c.header('Surrogate-Key', () => ({ description: 'The values of Cache-Tag, space-separated.', schema: { type: 'string' } }));

const ifNoneMatch = (c: Components): Ref =>
  c.parameter('IfNoneMatch', () => ({
    name: 'If-None-Match',
    in: 'header',
    description: 'ETags of documents already held: when one is still current the answer is 304 without a body.',
    schema: { type: 'string' },
  }));

const ifMatch = (c: Components): Ref =>
  c.parameter('IfMatch', () => ({
    name: 'If-Match',
    in: 'header',
    description:
      "Write only if the record is unchanged: the ETag of the record's GET (without parameters other than `locale`), or of the previous write's answer. Otherwise 412; a value that is not `*` or a list of quoted entity tags is 400.",
    schema: { type: 'string' },
  }));

const notModified = (c: Components): Ref =>
  c.response('NotModified', () => ({
    description: 'The document has not changed since the ETag sent in If-None-Match.',
    headers: { ETag: etag(c), 'Cache-Control': cacheControl(c), 'Cache-Tag': cacheTag(c), 'Surrogate-Key': surrogateKey(c) },
  }));

const withHeaders = (response: ResponseObject | Ref | undefined, headers: Record<string, Ref>): ResponseObject | Ref | undefined =>
  response && !('$ref' in response) ? { ...response, headers: { ...(response.headers ?? {}), ...headers } } : response;

/** Responses in status order, as every operation lists them. */
const byStatus = (responses: OperationObject['responses']): OperationObject['responses'] =>
  Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));

const read = (c: Components, operation: OperationObject): OperationObject => ({
  ...operation,
  parameters: [...(operation.parameters ?? []), ifNoneMatch(c)],
  responses: byStatus({
    ...operation.responses,
    '200': withHeaders(operation.responses['200'], {
      ETag: etag(c),
      'Cache-Control': cacheControl(c),
      'Cache-Tag': cacheTag(c),
      'Surrogate-Key': surrogateKey(c),
    })!,
    '304': notModified(c),
  }),
});

const conditionalWrite = (c: Components, operation: OperationObject): OperationObject => ({
  ...operation,
  parameters: [...(operation.parameters ?? []), ifMatch(c)],
  responses: byStatus({
    ...operation.responses,
    ...(operation.responses['200'] ? { '200': withHeaders(operation.responses['200'], { ETag: etag(c) })! } : {}),
    '412': errorResponse(c, 412),
  }),
});

/** The paths with what caching adds to their operations. */
export const withCaching = (c: Components, paths: Record<string, PathItemObject>): Record<string, PathItemObject> =>
  Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      {
        ...item,
        ...(item.get ? { get: read(c, item.get) } : {}),
        ...(item.patch ? { patch: conditionalWrite(c, item.patch) } : {}),
        ...(item.delete ? { delete: conditionalWrite(c, item.delete) } : {}),
      },
    ]),
  );
