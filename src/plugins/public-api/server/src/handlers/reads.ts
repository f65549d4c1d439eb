/**
 * The read endpoints: collection pages, single records and singletons, native and CMS alike.
 */
import { shownProjection } from '../grants/fieldset-projection';
import { takesLocale, type Projection } from '../grants/projection';
import { readTrees, readVocabulary } from '../grants/read-vocabulary';
import { recordTags } from '../http/cache-tags';
import { apiError } from '../http/errors';
import { DEFAULT_CHUNK_OPTIONS } from '../http/json-chunks';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
import type { ApiRequest, ApiResponse, Handler } from '../http/request';
import { queryFingerprint } from '../query/cursor';
import { parseCollectionQuery, parseRecordQuery } from '../query/parse';
import { includeReaches } from '../read/include-reaches';
import { loadRecords, type LoadContext } from '../read/load';
import { expandedFor, largestFittingLimit, MAX_EXPANDED_RECORDS } from '../read/expansion';
import { parameterError } from '../query/problems';
import type { IncludeSpec, ReadStatus } from '../query/types';
import type { RecordRow } from '../serialize/rows';
import { nextLink } from '../http/canonical-url';
import { collectionDocument, recordDocument } from '../serialize/document';
import { documentBytes, recordDocumentBytes } from '../serialize/document-bytes';
import type { ResourceAccess } from '../services/access';
import { getService } from '../utils/get-service';
import { nextCursor, pageStart, type CursorBinding } from './shared/cursor-paging';
import { findRecord, findSingleton } from '../read/find-record';
import { loadContext } from '../read/load-context';

/**
 * The locales a read checks `locale` against (null: the resource ignores it), and the language it reads
 * localized records in: the requested locale, else the default.
 */
const localesFor = async (projection: Projection) => {
  const locales = await getService('locales').get();
  return { codes: takesLocale(projection) ? locales.codes : null, defaultLocale: locales.defaultLocale };
};

/**
 * Refuses, before any included record is loaded, a read whose `include` would expand more than
 * MAX_EXPANDED_RECORDS records (counted level by level from ids: read/expansion.ts). A page is told the
 * largest `limit` that fits from its first record on. A read that fits reserves its expanded records in
 * the process's budget (503 when none frees up in time) and pays for them from the key's rate limit (429
 * when it cannot, http/request-cost.ts), still before any is loaded.
 */
const boundInclude = async (
  request: ApiRequest,
  context: LoadContext,
  projection: Projection,
  rows: readonly RecordRow[],
  include: readonly IncludeSpec[],
  paged: boolean,
): Promise<void> => {
  if (include.length === 0) return;
  await request.assertExpansionRoom();
  const reaches = await includeReaches(
    context,
    projection,
    rows.map((row) => row.rowId),
    include,
  );
  const expanded = expandedFor(reaches, rows.length);
  if (expanded <= MAX_EXPANDED_RECORDS) {
    await request.reserveExpansion(expanded);
    // Charged once the room is held, so that a read shed for want of room (503) has not paid for it.
    await request.charge({ expandedRecords: expanded });
    return;
  }
  const fitting = largestFittingLimit(reaches, rows.length);
  const advice =
    paged && fitting > 0
      ? `Ask for limit=${fitting} or less, or include fewer paths.`
      : paged
        ? 'The first record alone expands more than that: include fewer or shorter paths.'
        : 'Include fewer or shorter paths.';
  throw parameterError(
    'include',
    `This include would expand ${expanded} records; one response expands at most ${MAX_EXPANDED_RECORDS}. ${advice}`,
    'include_too_large',
  );
};

/**
 * Drafts are for preview keys alone (contract section 15): any other key sending `status=draft` is
 * refused before anything is read, so no draft, and not even whether one exists, reaches it.
 */
const assertMayRead = (request: ApiRequest, status: ReadStatus): void => {
  if (status === 'draft' && !request.key.preview) {
    throw apiError(403, 'Only a preview key may read drafts (status=draft).', {
      source: { parameter: 'status' },
      reason: 'preview_not_granted',
    });
  }
};

/** A draft read's answer is never stored by any cache: drafts change without notice and are not public. */
const storable = (status: ReadStatus): Pick<ApiResponse, 'noStore'> => (status === 'draft' ? { noStore: true } : {});

const readCollection = async (request: ApiRequest, access: ResourceAccess): Promise<ApiResponse> => {
  const { projection, resource } = access;
  const locales = await localesFor(projection);
  const vocabulary = readVocabulary(projection, access.projectionOf, locales.codes);
  const parsed = parseCollectionQuery(request.query, vocabulary);
  assertMayRead(request, parsed.status);
  const shown = shownProjection(projection, parsed.fields, parsed.include);
  const language = parsed.locale ?? locales.defaultLocale;
  const locale = resource.localized ? language : null;
  // The cursor is bound to the language wherever it matters (relation filters match in it).
  const binding: CursorBinding = {
    keyId: request.key.keyId,
    resourceId: resource.id,
    fingerprint: queryFingerprint({
      sort: parsed.sort,
      filters: parsed.filters,
      locale: takesLocale(projection) ? language : null,
      status: parsed.status,
      // Relation filters follow the list too, so it binds wherever the language does.
      fallback: takesLocale(projection) ? parsed.fallback : [],
    }),
    sort: parsed.sort,
    now: Date.now(),
  };
  const after = parsed.cursor ? pageStart(parsed.cursor, binding) : null;

  const page = await getService('records').page(projection, {
    locale,
    fallback: resource.localized ? parsed.fallback : [],
    language,
    languageFallback: parsed.fallback,
    sort: parsed.sort,
    filters: parsed.filters,
    after,
    limit: parsed.limit,
    shown,
    status: parsed.status,
  });
  // References and `include` fall back by the list also from a resource that is not localized (buildings).
  const context = loadContext(request, access, language, parsed.fields, parsed.status, parsed.fallback);
  await boundInclude(request, context, projection, page.rows, parsed.include, true);
  const data = await loadRecords(context, shown, page.rows, parsed.include);
  const last = page.rows.at(-1);
  const next = page.hasMore && last ? nextCursor(projection, last, binding) : null;

  const document = collectionDocument({
    selfUrl: request.selfUrl,
    nextUrl: next ? nextLink(request.selfUrl, next) : null,
    nextCursor: next,
    resource,
    fields: shown.fields,
    data,
  });
  // A page of plain records is written here from its kept records' bytes, however large, with a turn of the
  // event loop after each chunk's worth of records written now (serialize/document-bytes.ts); a page carrying
  // `include` expansions is written by the edge in chunks.
  const bytes = parsed.include.length === 0 ? await documentBytes(document, DEFAULT_CHUNK_OPTIONS.chunkBytes) : null;
  return {
    status: 200,
    ...storable(parsed.status),
    tags: recordTags(shown, access.projectionOf, data),
    ...(bytes === null ? { kind: 'document', document } : { kind: 'serialized', type: JSONAPI_MEDIA_TYPE, bytes }),
  };
};

const readOne = async (request: ApiRequest, access: ResourceAccess, identifier: string | null): Promise<ApiResponse> => {
  const { projection, resource } = access;
  const locales = await localesFor(projection);
  const trees = readTrees(projection, access.projectionOf);
  const parsed = parseRecordQuery(request.query, { locales: locales.codes, include: trees.include, records: trees.records });
  assertMayRead(request, parsed.status);
  const language = parsed.locale ?? locales.defaultLocale;
  const locale = resource.localized ? language : null;
  const shown = shownProjection(projection, parsed.fields, parsed.include);
  const fallback = resource.localized ? parsed.fallback : [];
  const row =
    identifier === null
      ? await findSingleton(shown, locale, parsed.status, fallback)
      : await findRecord(shown, identifier, locale, parsed.status, fallback);
  const context = loadContext(request, access, language, parsed.fields, parsed.status, parsed.fallback);
  await boundInclude(request, context, projection, [row], parsed.include, false);
  const [data] = await loadRecords(context, shown, [row], parsed.include);
  const document = recordDocument({ selfUrl: request.selfUrl, resource, fields: shown.fields, data: data! });
  return {
    status: 200,
    ...storable(parsed.status),
    tags: recordTags(shown, access.projectionOf, [data]),
    // A record without `include` expansions is written here at once, from its kept bytes as each record of a
    // page is (serialize/document-bytes.ts); with expansions, by the edge in chunks.
    ...(parsed.include.length === 0
      ? { kind: 'serialized', type: JSONAPI_MEDIA_TYPE, bytes: recordDocumentBytes(document) }
      : { kind: 'document', document }),
  };
};

const readResource = (request: ApiRequest, access: ResourceAccess) =>
  access.resource.mode === 'singleton' ? readOne(request, access, null) : readCollection(request, access);

const readRecord = (request: ApiRequest, access: ResourceAccess, identifier: string) => {
  if (access.resource.mode === 'singleton') {
    throw apiError(404, 'A singleton has no records below it.', { reason: 'record_not_found' });
  }
  return readOne(request, access, identifier);
};

export const nativeCollection: Handler = async (request) =>
  readResource(request, getService('access').native(request.key, request.params.resource!, 'read'));

export const nativeRecord: Handler = async (request) =>
  readRecord(request, getService('access').native(request.key, request.params.resource!, 'read'), request.params.record!);

export const cmsCollection: Handler = async (request) =>
  readResource(request, await getService('access').cms(request.key, request.params.website!, request.params.collection!, 'read'));

export const cmsRecord: Handler = async (request) =>
  readRecord(
    request,
    await getService('access').cms(request.key, request.params.website!, request.params.collection!, 'read'),
    request.params.record!,
  );
