/**
 * How records are loaded for one request: the records service, the key's projections, and asset objects,
 * richtext and current images with URLs below the request's base URL. Reads and the read-back of a write
 * load through it alike, so a write answers with the record exactly as a read shows it.
 */
import type { Fieldsets, ReadStatus } from '../query/types';
import type { LoadContext, RecordSource } from './load';
import type { FileRow } from '../serialize/rows';
import { assetObject } from '../serialize/assets';
import { objectId } from '../serialize/record-texts';
import { withCurrentImages } from '../serialize/richtext-read';
import type { ResourceAccess } from '../services/access';
import { getService } from '../utils/get-service';

/** Where the records are shown: asset and image URLs are below the request's base URL. */
export type LoadOrigin = { baseUrl: string };

const NO_FIELDSETS: Fieldsets = new Map();

/**
 * Where a read's records come from: the records service; for a draft read
 * (contract section 15) the same with every relation and expanded record read among drafts, so that
 * `include` and references of a draft show the targets' drafts, never their published versions; and both
 * pass on the read's locale fallback list.
 */
const recordSource = (status: ReadStatus): RecordSource => {
  const records = getService('records');
  return {
    relations: (projection, rowIds, fields, language, fallback) =>
      records.relations(projection, rowIds, fields, language, false, status, fallback),
    media: (projection, rows, fields) => records.media(projection, rows, fields),
    byRowIds: (projection, rowIds, language, fallback) => records.byRowIds(projection, rowIds, language, status, fallback),
    imageFiles: (documentIds) => records.imageFiles(documentIds),
    componentLinks: (ownerUid, rowIds, fields) => getService('components').links(ownerUid, rowIds, fields),
    componentRows: (projection, rowIds) => getService('components').rows(projection, rowIds),
  };
};

/**
 * `language`: the locale of the localized records the read reaches (see `LoadContext`); `fieldsets`:
 * the read's sparse fieldsets (a write's read-back shows every readable field); `status`: which version
 * of each record (a write's read-back: the published one); `fallback`: the locales after `language` of the
 * read's fallback list.
 */
export const loadContext = (
  origin: LoadOrigin,
  access: ResourceAccess,
  language: string,
  fieldsets: Fieldsets = NO_FIELDSETS,
  status: ReadStatus = 'published',
  fallback: readonly string[] = [],
): LoadContext => {
  const { asset } = getService('derived-keys').current();
  // Kept per application (services/read-caches.ts): the records by their inputs, converted richtext.
  const caches = getService('read-caches');
  const cache = caches.recordTexts();
  const readRichtext = caches.readsRichtext;
  return {
    source: recordSource(status),
    language,
    fallback,
    projectionOf: access.projectionOf,
    fieldsets,
    asset: (file: FileRow) => assetObject(origin.baseUrl, asset, file),
    richtext: (raw, identity) => readRichtext(raw, origin.baseUrl, asset, identity),
    currentImages: (doc, files) => withCurrentImages(doc, files, origin.baseUrl, asset),
    // A record's asset and image URLs are below the base URL and signed with the asset key.
    kept: cache && { cache, partition: `${origin.baseUrl}\u0001${objectId(asset)}` },
  };
};
