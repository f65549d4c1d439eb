/**
 * The read endpoints: collection pages, single records and singletons, native and CMS alike.
 */
import { deriveCursorKey, decodeCursor, encodeCursor, queryFingerprint, type CursorKey } from '../query/cursor';
import { includeTree, queryVocabulary, defaultSort, takesLocale, type Projection } from '../grants/projection';
import { apiError } from '../http/errors';
import type { ApiRequest, ApiResponse, Handler } from '../http/request';
import { parseCollectionQuery, parseRecordQuery } from '../query/parse';
import type { ScalarValue } from '../query/types';
import { loadRecords, type LoadContext } from '../read/load';
import type { RecordRow } from '../read/rows';
import { assetObject, deriveAssetKey, type AssetKey } from '../serialize/assets';
import { collectionDocument, nextLink, recordDocument } from '../serialize/document';
import { createRichtextReader, withCurrentImages } from '../serialize/richtext-read';
import { cursorValue } from '../serialize/values';
import type { ResourceAccess } from '../services/access';
import { pluginConfig } from '../config';
import { getService } from '../utils/get-service';

let keys: { secret: string; cursor: CursorKey; asset: AssetKey } | null = null;
const readRichtext = createRichtextReader();

/** Keys derived once from the server secret. */
const derivedKeys = () => {
  const secret = pluginConfig(strapi).keySecret;
  if (!keys || keys.secret !== secret) keys = { secret, cursor: deriveCursorKey(secret), asset: deriveAssetKey(secret) };
  return keys;
};

/** `language`: the locale of the localized records the read reaches (see `LoadContext`). */
export const loadContext = (request: ApiRequest, access: ResourceAccess, language: string): LoadContext => {
  const { asset } = derivedKeys();
  const toAsset = (file: Parameters<typeof assetObject>[2]) => assetObject(request.baseUrl, asset, file);
  return {
    source: getService('records'),
    language,
    projectionOf: access.projectionOf,
    asset: toAsset,
    richtext: (raw) => readRichtext(raw, request.baseUrl, asset),
    currentImages: (doc, files) => withCurrentImages(doc, files, request.baseUrl, asset),
  };
};

/**
 * The locales a read checks `locale` against (null: the resource ignores it), and the language it reads
 * localized records in: the requested locale, else the default.
 */
const localesFor = async (projection: Projection) => {
  const locales = await getService('locales').get();
  return { codes: takesLocale(projection) ? locales.codes : null, defaultLocale: locales.defaultLocale };
};

/** The value of one sort key on a row, as the cursor carries it. */
const positionValue = (access: ResourceAccess, row: RecordRow, key: string): ScalarValue => {
  const sqlKey = getService('records').sqlKeysOf(access.projection)(key);
  const raw =
    key === 'slug' ? row.slug : key === 'sort' ? row.sort : key === 'createdAt' ? row.createdAt : key === 'updatedAt' ? row.updatedAt : key === 'publishedAt' ? row.publishedAt : row.values[key];
  return cursorValue(sqlKey.kind, raw);
};

const readCollection = async (request: ApiRequest, access: ResourceAccess): Promise<ApiResponse> => {
  const { projection, resource } = { projection: access.projection, resource: access.resource };
  const locales = await localesFor(projection);
  const vocabulary = queryVocabulary(projection, locales.codes, includeTree(projection, access.projectionOf));
  const parsed = parseCollectionQuery(request.query, vocabulary);
  const language = parsed.locale ?? locales.defaultLocale;
  const locale = resource.localized ? language : null;
  // The cursor is bound to the language wherever it matters (relation filters match in it).
  const fingerprint = queryFingerprint({ sort: parsed.sort, filters: parsed.filters, locale: takesLocale(projection) ? language : null });
  const { cursor: cursorKey } = derivedKeys();
  const now = Date.now();

  let after: ScalarValue[] | null = null;
  if (parsed.cursor) {
    const payload = decodeCursor(parsed.cursor, cursorKey, {
      keyId: request.key.keyId,
      resourceId: resource.id,
      fingerprint,
      sortLength: parsed.sort.length,
      now,
    });
    after = [...payload.position.values, payload.position.id];
  }

  const page = await getService('records').page(projection, {
    locale,
    language,
    sort: parsed.sort,
    filters: parsed.filters,
    after,
    limit: parsed.limit,
  });
  const data = await loadRecords(loadContext(request, access, language), projection, page.rows, parsed.include);

  const last = page.rows.at(-1);
  let nextCursor: string | null = null;
  if (page.hasMore && last) {
    try {
      nextCursor = encodeCursor(
        {
          keyId: request.key.keyId,
          resourceId: resource.id,
          fingerprint,
          issuedAt: now,
          position: { values: parsed.sort.map((term) => positionValue(access, last, term.key)), id: last.documentId },
        },
        cursorKey
      );
    } catch (error) {
      // Values too long to carry in a cursor (only pathological string data gets here).
      if (!(error instanceof RangeError)) throw error;
      throw apiError(400, 'These records cannot be paged in this order: a sort value is too long. Sort by another key.', {
        source: { parameter: 'sort' },
        reason: 'sort_value_too_long',
      });
    }
  }

  return {
    status: 200,
    body: collectionDocument({
      selfUrl: request.selfUrl,
      nextUrl: nextCursor ? nextLink(request.selfUrl, nextCursor) : null,
      nextCursor,
      resource,
      fields: projection.fields,
      data,
    }),
  };
};

const readOne = async (request: ApiRequest, access: ResourceAccess, identifier: string | null): Promise<ApiResponse> => {
  const { projection, resource } = access;
  const locales = await localesFor(projection);
  const parsed = parseRecordQuery(request.query, {
    locales: locales.codes,
    include: includeTree(projection, access.projectionOf),
  });
  const language = parsed.locale ?? locales.defaultLocale;
  const locale = resource.localized ? language : null;
  const records = getService('records');
  const row =
    identifier === null
      ? await records.singleton(projection, { locale }, defaultSort(resource))
      : await records.one(projection, identifier, { locale });
  if (!row) {
    throw apiError(404, identifier === null ? 'This resource has no published record.' : 'No record exists at this path.', {
      reason: 'record_not_found',
    });
  }
  const [data] = await loadRecords(loadContext(request, access, language), projection, [row], parsed.include);
  return { status: 200, body: recordDocument({ selfUrl: request.selfUrl, resource, fields: projection.fields, data: data! }) };
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
    request.params.record!
  );
