/**
 * The write endpoints (specification "Writing", contract section 7): POST a record to a collection,
 * PATCH a record or a singleton, DELETE a record; native and CMS alike.
 *
 * Each handler prepares (resource 404, a method the resource's mode lacks 405 (`request.supports`), grant 403, query 400, body 415/413/400,
 * record 404) and returns the write to execute; `handlers/shared/write-handler.ts` runs it in one transaction,
 * with Idempotency-Key for POST and PATCH. A write answers with the record as a read shows it to this
 * key, loaded back inside the write's transaction through the read path itself.
 */
import { createDocumentLock } from '../database/document-lock';
import { takesLocale, type Projection } from '../grants/projection';
import { assertNoBody, readJsonBody } from '../http/body';
import { IF_MATCH_HEADER, entityTagOf, ifMatchHolds, parseIfMatch, type IfMatch } from '../http/entity-tags';
import { apiError } from '../http/errors';
import { headerValue } from '../http/headers';
import type { ApiRequest, ApiResponse, Handler } from '../http/request';
import { writeHandler, type Execution } from './shared/write-handler';
import { parseWriteQuery } from '../query/parse';
import { resourcePath } from '../registry/paths';
import type { ResourceAccess } from '../services/access';
import type { WriteTarget } from '../services/writes/target';
import { recordDocument } from '../serialize/document';
import type { RecordObject } from '../serialize/record';
import { assertDocumentTarget, parseResourceDocument } from '../write/resource-object';
import { planAttributes } from '../write/attributes';
import { findRecord, findSingleton } from './shared/find-record';
import { explainWrite, loadWritten as load, refuseCutComponentLists } from './shared/read-back';
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

/**
 * The write's locale (the `locale` parameter, else the default) for localized resources, null otherwise;
 * and the language of the localized records its references name, which is the same locale, also for
 * resources that are not localized (as reads show their references).
 */
const writeTarget = async (request: ApiRequest, access: ResourceAccess): Promise<WriteTarget> => {
  const { resource } = access;
  const locales = await getService('locales').get();
  const { locale } = parseWriteQuery(request.query, { locales: takesLocale(access.projection) ? locales.codes : null });
  const language = locale ?? locales.defaultLocale;
  return {
    key: request.key,
    projection: access.projection,
    locale: resource.localized ? language : null,
    language,
  };
};

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
 * 412 unless If-Match holds for the record as it is now, read inside the write's transaction with its rows
 * locked (database/document-lock.ts). A tag holds
 * when it is the ETag of the record's plain GET document for this key, read at any of its URLs (the
 * entity tags of every representation of it, coded or not: http/entity-tags.ts), which is also the ETag
 * the previous write's answer carried.
 */
const assertIfMatch = async (request: ApiRequest, access: ResourceAccess, target: WriteTarget, documentId: string, ifMatch: IfMatch) => {
  if (ifMatch.kind !== 'tags') return;
  // Held until the write commits: no other write changes the record between this check and this write.
  await lockDocument()(access.resource.uid, documentId);
  const data = await load(request, access, target, documentId);
  const current = data
    ? plainReadUrls(request, access.projection, data).map((selfUrl) =>
        entityTagOf(JSON.stringify(recordDocument({ selfUrl, resource: access.resource, fields: access.projection.fields, data }))),
      )
    : [];
  if (ifMatchHolds(ifMatch, current)) return;
  throw apiError(412, 'The record has changed since the ETag sent in If-Match was served: read it again, then retry with its new ETag.', {
    source: { header: IF_MATCH_HEADER },
    reason: 'precondition_failed',
  });
};

let documentLock: ReturnType<typeof createDocumentLock> | null = null;
const lockDocument = () => (documentLock ??= createDocumentLock(strapi));

const ifMatchOf = (request: ApiRequest): IfMatch => parseIfMatch(headerValue(request.headers, 'if-match'));

const recordResponse = async (
  request: ApiRequest,
  access: ResourceAccess,
  target: WriteTarget,
  documentId: string,
  status: 200 | 201,
): Promise<ApiResponse> => {
  const data = await load(request, access, target, documentId);
  // Just written in this transaction: not finding it is a server fault, and rolls the write back.
  if (!data) throw new Error(`${access.resource.id}: record ${documentId} was written but cannot be read back.`);
  const url = recordUrl(request, target, data);
  return {
    status,
    ...(status === 201 ? { headers: { Location: url } } : {}),
    body: recordDocument({ selfUrl: url, resource: access.resource, fields: access.projection.fields, data }),
  };
};

// ---------------------------------------------------------------------------------------------------------
// The three writes
// ---------------------------------------------------------------------------------------------------------

const prepareCreate = async (request: ApiRequest, access: ResourceAccess): Promise<Execution> => {
  const target = await writeTarget(request, access);
  const body = await readJsonBody(request);
  const object = parseResourceDocument(body);
  return {
    body,
    explain: explainWrite(access),
    execute: async () => {
      assertDocumentTarget(object, { type: access.resource.slug, id: null });
      const documentId = await getService('writes').create(target, planAttributes(access.projection, object.attributes));
      return recordResponse(request, access, target, documentId, 201);
    },
  };
};

const prepareUpdate = async (request: ApiRequest, access: ResourceAccess, identifier: string | null): Promise<Execution> => {
  const ifMatch = ifMatchOf(request);
  const target = await writeTarget(request, access);
  const record =
    identifier === null
      ? await findSingleton(target.projection, target.locale)
      : await findRecord(target.projection, identifier, target.locale);
  const body = await readJsonBody(request);
  const object = parseResourceDocument(body);
  return {
    body,
    explain: explainWrite(access),
    execute: async () => {
      assertDocumentTarget(object, { type: access.resource.slug, id: record.documentId });
      await assertIfMatch(request, access, target, record.documentId, ifMatch);
      await refuseCutComponentLists(request, access, target, record.documentId, object.attributes);
      await getService('writes').update(target, record.documentId, planAttributes(access.projection, object.attributes));
      return recordResponse(request, access, target, record.documentId, 200);
    },
  };
};

const prepareDelete = async (request: ApiRequest, access: ResourceAccess, identifier: string): Promise<Execution> => {
  assertNoBody(request);
  const ifMatch = ifMatchOf(request);
  const target = await writeTarget(request, access);
  const record = await findRecord(target.projection, identifier, target.locale);
  return {
    body: null,
    explain: explainWrite(access),
    execute: async () => {
      await assertIfMatch(request, access, target, record.documentId, ifMatch);
      const writes = getService('writes');
      if (access.resource.deleteMode === 'remove') {
        await writes.remove(target, record.documentId);
        return { status: 204 };
      }
      // Archived: the record as it was last shown, now without a publication date; it leaves reads.
      const data = await load(request, access, target, record.documentId);
      if (!data) throw apiError(404, 'No record exists at this path.', { reason: 'record_not_found' });
      await writes.archive(target, record.documentId);
      const archived = { ...data, meta: { ...data.meta, publishedAt: null } };
      return {
        status: 200,
        body: recordDocument({
          selfUrl: recordUrl(request, target, data),
          resource: access.resource,
          fields: access.projection.fields,
          data: archived,
        }),
      };
    },
  };
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
