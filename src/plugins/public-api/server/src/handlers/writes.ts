/**
 * The write endpoints (specification "Writing", contract section 7): POST a record to a collection,
 * PATCH a record or a singleton, DELETE a record; native and CMS alike.
 *
 * Each handler prepares what HTTP says (resource 404, a method the resource's mode lacks 405
 * (`request.supports`), grant 403, query 400, body 415/413/400, record 404, If-Match) and hands the write
 * over as an operation list of one: the write-operation processor (writes/processor.ts) runs it, as it
 * runs each of an atomic request's operations, in one transaction (`handlers/shared/write-handler.ts`,
 * with Idempotency-Key for POST and PATCH). The answer is the record as a read shows it to this key, at
 * its URL.
 */
import { takesLocale, type Projection } from '../grants/projection';
import { assertNoBody, readJsonBody } from '../http/body';
import { IF_MATCH_HEADER, entityTagOf, ifMatchHolds, parseIfMatch } from '../http/entity-tags';
import { apiError } from '../http/errors';
import { headerValue } from '../http/headers';
import type { ApiRequest, ApiResponse, Handler } from '../http/request';
import { writeHandler, type Execution } from './shared/write-handler';
import { resourcePath } from '../registry/paths';
import type { ResourceAccess } from '../services/access';
import type { WriteTarget } from '../services/writes/target';
import { recordDocument } from '../serialize/document';
import type { RecordObject } from '../serialize/record';
import { parseResourceDocument, type ResourceObject } from '../write/resource-object';
import { findRecord, findSingleton } from '../read/find-record';
import { explainWrite } from '../writes/read-back';
import { writeTargetOf, type RecordRef, type WriteOperation } from '../writes/operation';
import { createWriteProcessor } from '../writes/processor';
import { getService } from '../utils/get-service';

// ---------------------------------------------------------------------------------------------------------
// Resources, methods, locales, records
// ---------------------------------------------------------------------------------------------------------

// Which methods a resource's paths have (405, and 404 below a singleton) is the route table's to say:
// `request.supports`, asked by the access service before the key's grants (405 before 403).
const nativeAccess = (request: ApiRequest, action: 'create' | 'update' | 'delete') =>
  getService('access').native(request.key, request.params.resource!, action, { supports: request.supports });

const cmsAccess = (request: ApiRequest, action: 'create' | 'update' | 'delete') =>
  getService('access').cms(request.key, request.params.website!, request.params.collection!, action, { supports: request.supports });

/** The write's locale (the `locale` parameter, else the default): writes/operation.ts. */
const writeTarget = async (request: ApiRequest, access: ResourceAccess): Promise<WriteTarget> =>
  writeTargetOf(request.key, access, request.query, await getService('locales').get());

/** Where a record is read: by slug where the resource takes slugs, else by id; in the write's locale when one was asked for. */
const recordUrl = (request: ApiRequest, target: WriteTarget, record: { id: string; meta: { slug: string | null } }): string => {
  const resource = target.projection.resource;
  const base = `${request.baseUrl}${resourcePath(resource)}`;
  const identifier =
    resource.mode === 'singleton' ? null : resource.identifiers.includes('slug') && record.meta.slug ? record.meta.slug : record.id;
  const path = identifier === null ? base : `${base}/${encodeURIComponent(identifier)}`;
  return takesLocale(target.projection) && request.query.has('locale') ? `${path}?locale=${encodeURIComponent(target.language)}` : path;
};

// ---------------------------------------------------------------------------------------------------------
// If-Match (contract section 14)
// ---------------------------------------------------------------------------------------------------------

/**
 * The URLs at which a plain GET (no parameter but the write's `locale`) shows this record: its own path
 * (by slug and by id where the resource takes slugs, or the singleton's path) and the path the write was
 * sent to, each with the write's query.
 */
const plainReadUrls = (request: ApiRequest, projection: Projection, record: RecordObject): string[] => {
  const resource = projection.resource;
  const search = new URL(request.selfUrl).search;
  const base = `${request.baseUrl}${resourcePath(resource)}`;
  const identifiers =
    resource.mode === 'singleton'
      ? [null]
      : [record.id, ...(resource.identifiers.includes('slug') && record.meta.slug ? [record.meta.slug] : [])];
  const urls = identifiers.map((identifier) => {
    const url = new URL(identifier === null ? base : `${base}/${encodeURIComponent(identifier)}`);
    url.search = search;
    return url.toString();
  });
  return [...new Set([request.selfUrl, ...urls])];
};

/**
 * If-Match as the processor's precondition: 412 unless it holds for the record as it is now, read inside
 * the write's transaction with its rows locked (database/document-lock.ts), so that no other write changes
 * it between this check and this write. A tag holds when it is the ETag of the record's plain GET document
 * for this key, read at any of its URLs (the entity tags of every representation of it, coded or not:
 * http/entity-tags.ts), which is also the ETag the previous write's answer carried. None without tags.
 */
const ifMatchOf = (request: ApiRequest, access: ResourceAccess): WriteOperation['precondition'] => {
  const ifMatch = parseIfMatch(headerValue(request.headers, 'if-match'));
  if (ifMatch.kind !== 'tags') return null;
  return (current) => {
    const tags = current
      ? plainReadUrls(request, access.projection, current).map((selfUrl) =>
          entityTagOf(
            JSON.stringify(recordDocument({ selfUrl, resource: access.resource, fields: access.projection.fields, data: current })),
          ),
        )
      : [];
    if (ifMatchHolds(ifMatch, tags)) return;
    throw apiError(412, 'The record has changed since the ETag sent in If-Match was served: read it again, then retry with its new ETag.', {
      source: { header: IF_MATCH_HEADER },
      reason: 'precondition_failed',
    });
  };
};

// ---------------------------------------------------------------------------------------------------------
// The three writes: an operation list of one
// ---------------------------------------------------------------------------------------------------------

type SingleWrite = {
  op: WriteOperation['op'];
  access: ResourceAccess;
  target: WriteTarget;
  ref: RecordRef | null;
  data: ResourceObject | null;
  precondition: WriteOperation['precondition'];
};

/** The operation run by the processor, as a list of one; its result answered as the single write answers. */
const executeOne = (request: ApiRequest, write: SingleWrite, body: unknown): Execution => ({
  body,
  explain: explainWrite(write.access),
  execute: async (): Promise<ApiResponse> => {
    const processor = createWriteProcessor(request, { localIds: false, batchReadBacks: false });
    await processor.process({ ...write, lid: null, types: [] });
    const [{ data }] = (await processor.finish()) as [{ data: RecordObject | null }];
    if (data === null) return { kind: 'empty', status: 204 };
    const { access, target } = write;
    const url = recordUrl(request, target, data);
    const status = write.op === 'add' ? 201 : 200;
    return {
      kind: 'document',
      status,
      ...(status === 201 ? { headers: { Location: url } } : {}),
      document: recordDocument({ selfUrl: url, resource: access.resource, fields: access.projection.fields, data }),
    };
  },
});

const prepareCreate = async (request: ApiRequest, access: ResourceAccess): Promise<Execution> => {
  const target = await writeTarget(request, access);
  const body = await readJsonBody(request);
  const data = parseResourceDocument(body);
  return executeOne(request, { op: 'add', access, target, ref: null, data, precondition: null }, body);
};

const prepareUpdate = async (request: ApiRequest, access: ResourceAccess, identifier: string | null): Promise<Execution> => {
  const precondition = ifMatchOf(request, access);
  const target = await writeTarget(request, access);
  const record =
    identifier === null
      ? await findSingleton(target.projection, target.locale)
      : await findRecord(target.projection, identifier, target.locale);
  const body = await readJsonBody(request);
  const data = parseResourceDocument(body);
  return executeOne(
    request,
    { op: 'update', access, target, ref: { by: 'document', documentId: record.documentId }, data, precondition },
    body,
  );
};

const prepareDelete = async (request: ApiRequest, access: ResourceAccess, identifier: string): Promise<Execution> => {
  assertNoBody(request);
  const precondition = ifMatchOf(request, access);
  const target = await writeTarget(request, access);
  const record = await findRecord(target.projection, identifier, target.locale);
  return executeOne(
    request,
    { op: 'remove', access, target, ref: { by: 'document', documentId: record.documentId }, data: null, precondition },
    null,
  );
};

// ---------------------------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------------------------

const IDEMPOTENT = { idempotent: true };
// The contract gives Idempotency-Key to POST and PATCH; a DELETE is idempotent by itself.
const PLAIN = { idempotent: false };

export const nativeCreate: Handler = writeHandler(async (request) => prepareCreate(request, nativeAccess(request, 'create')), IDEMPOTENT);

/** PATCH on a native singleton's own path (a single type the application serves) updates its one record. */
export const nativeSingletonUpdate: Handler = writeHandler(
  async (request) => prepareUpdate(request, nativeAccess(request, 'update'), null),
  IDEMPOTENT,
);

export const nativeUpdate: Handler = writeHandler(
  async (request) => prepareUpdate(request, nativeAccess(request, 'update'), request.params.record!),
  IDEMPOTENT,
);

export const nativeDelete: Handler = writeHandler(
  async (request) => prepareDelete(request, nativeAccess(request, 'delete'), request.params.record!),
  PLAIN,
);

export const cmsCreate: Handler = writeHandler(async (request) => prepareCreate(request, await cmsAccess(request, 'create')), IDEMPOTENT);

/** PATCH on a singleton's own path updates its one record. */
export const cmsSingletonUpdate: Handler = writeHandler(
  async (request) => prepareUpdate(request, await cmsAccess(request, 'update'), null),
  IDEMPOTENT,
);

export const cmsUpdate: Handler = writeHandler(
  async (request) => prepareUpdate(request, await cmsAccess(request, 'update'), request.params.record!),
  IDEMPOTENT,
);

export const cmsDelete: Handler = writeHandler(
  async (request) => prepareDelete(request, await cmsAccess(request, 'delete'), request.params.record!),
  PLAIN,
);
