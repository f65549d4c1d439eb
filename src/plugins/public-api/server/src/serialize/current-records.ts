/**
 * "These records of this resource, as key K reads them now": the record objects a read of the resource
 * would show the key (its readable fields, references, asset URLs below `baseUrl`), or `null` for a
 * record the key cannot read (unpublished, deleted, of another website, missing in the locale, or a
 * resource the key may not read). The sync feed turns a `null` into a removal; webhooks do the same.
 *
 * It is the read path itself (services/records.ts, read/load.ts): one query for the records of a batch
 * (`byDocumentIds`), then one per readable relation field and one for the files, whatever the number
 * of records. No field the key may not read is selected, so none can appear.
 */
import { allows, type Projection } from '../grants/projection';
import { sharedProjector, type Projector } from '../grants/projector';
import type { KeyGrants } from '../grants/types';
import type { Resource } from '../registry/types';
import { loadRecords, type LoadContext, type RecordSource } from '../read/load';
import type { FileRow } from './rows';
import { assetObject } from './assets';
import type { RecordObject } from './record';
import { withCurrentImages } from './richtext-read';
import { getService } from '../utils/get-service';

/** How the records are shown: where asset URLs point, and the locale list (contract sections 5, 15). */
export type RenderOptions = {
  baseUrl: string;
  /** The locale localized records are read in (the default locale when the caller names none). */
  language: string;
  /** The locales after `language` of a fallback list. */
  fallback?: readonly string[];
};

/** The resources a key's projections may lead to: native ones, and a CMS resource's siblings on its website. */
const projectorFor = async (grants: KeyGrants, resource: Resource): Promise<Projector> => {
  const registry = getService('resources');
  const siblings = resource.website ? ((await registry.website(resource.website.slug)) ?? null) : null;
  return sharedProjector(grants, registry.native(), siblings ? registry.resourcesOf(siblings) : []);
};

const source = (): RecordSource => {
  const records = getService('records');
  return {
    relations: (projection, rowIds, fields, language, fallback) =>
      records.relations(projection, rowIds, fields, language, false, 'published', fallback),
    media: (projection, rows, fields) => records.media(projection, rows, fields),
    byRowIds: (projection, rowIds, language, fallback) => records.byRowIds(projection, rowIds, language, 'published', fallback),
    imageFiles: (documentIds) => records.imageFiles(documentIds),
    componentLinks: (ownerUid, rowIds, fields) => getService('components').links(ownerUid, rowIds, fields),
    componentRows: (projection, rowIds) => getService('components').rows(projection, rowIds),
  };
};

const contextFor = (projectionOf: Projector, options: RenderOptions): LoadContext => {
  const { asset } = getService('derived-keys').current();
  const readRichtext = getService('read-caches').changesRichtext;
  return {
    source: source(),
    language: options.language,
    fallback: options.fallback ?? [],
    projectionOf,
    fieldsets: new Map(),
    asset: (file: FileRow) => assetObject(options.baseUrl, asset, file),
    richtext: (raw, identity) => readRichtext(raw, options.baseUrl, asset, identity),
    currentImages: (doc, files) => withCurrentImages(doc, files, options.baseUrl, asset),
  };
};

/** The key's projection of `resource` with the projector it came from, or null when the key may not read it. */
export const readableProjection = async (
  grants: KeyGrants,
  resource: Resource,
): Promise<{ projection: Projection; projectionOf: Projector } | null> => {
  if (!allows(grants, resource.id, 'read')) return null;
  const projectionOf = await projectorFor(grants, resource);
  return { projection: projectionOf(resource), projectionOf };
};

/**
 * documentId -> the record as the key reads it now, or null when it cannot; every id asked for is in the
 * answer. `documentIds` is a batch (the caller bounds it: a page of changes).
 */
export const renderCurrent = async (
  grants: KeyGrants,
  resource: Resource,
  documentIds: readonly string[],
  options: RenderOptions,
): Promise<Map<string, RecordObject | null>> => {
  const rendered = new Map<string, RecordObject | null>(documentIds.map((id) => [id, null]));
  const readable = documentIds.length ? await readableProjection(grants, resource) : null;
  if (!readable) return rendered;
  const { projection, projectionOf } = readable;
  const rows = await getService('records').byDocumentIds(projection, [...new Set(documentIds)], {
    locale: resource.localized ? options.language : null,
    fallback: resource.localized ? (options.fallback ?? []) : [],
  });
  const records = await loadRecords(contextFor(projectionOf, options), projection, rows, []);
  for (const record of records) rendered.set(record.id, record);
  return rendered;
};

/** A page of a resource's records in id order after `after`, as the key reads them (the sync feed's full read). */
export const renderPage = async (
  readable: { projection: Projection; projectionOf: Projector },
  after: string | null,
  limit: number,
  options: RenderOptions,
): Promise<{ records: RecordObject[]; last: string | null; hasMore: boolean }> => {
  const { projection, projectionOf } = readable;
  const { resource } = projection;
  const page = await getService('records').page(projection, {
    locale: resource.localized ? options.language : null,
    fallback: resource.localized ? (options.fallback ?? []) : [],
    language: options.language,
    sort: [],
    filters: [],
    after: after === null ? null : [after],
    limit,
  });
  const records = await loadRecords(contextFor(projectionOf, options), projection, page.rows, []);
  return { records, last: page.rows.at(-1)?.documentId ?? null, hasMore: page.hasMore };
};
