/**
 * How records are loaded for one request: the records service, the key's projections, and asset objects,
 * richtext and current images with URLs below the request's base URL. Reads and the read-back of a write
 * load through it alike, so a write answers with the record exactly as a read shows it.
 */
import { pluginConfig } from '../../config';
import { derivedKeys } from '../../keys/derived';
import type { Fieldsets } from '../../query/types';
import type { LoadContext } from '../../read/load';
import type { FileRow } from '../../serialize/rows';
import { assetObject } from '../../serialize/assets';
import { createRichtextReader, withCurrentImages } from '../../serialize/richtext-read';
import type { ResourceAccess } from '../../services/access';
import type { ApiRequest } from '../../http/request';
import { getService } from '../../utils/get-service';

const readRichtext = createRichtextReader();

const NO_FIELDSETS: Fieldsets = new Map();

/**
 * `language`: the locale of the localized records the read reaches (see `LoadContext`); `fieldsets`:
 * the read's sparse fieldsets (a write's read-back shows every readable field).
 */
export const loadContext = (
  request: ApiRequest,
  access: ResourceAccess,
  language: string,
  fieldsets: Fieldsets = NO_FIELDSETS,
): LoadContext => {
  const { asset } = derivedKeys(pluginConfig(strapi).keySecret);
  return {
    source: getService('records'),
    language,
    projectionOf: access.projectionOf,
    fieldsets,
    asset: (file: FileRow) => assetObject(request.baseUrl, asset, file),
    richtext: (raw, identity) => readRichtext(raw, request.baseUrl, asset, identity),
    currentImages: (doc, files) => withCurrentImages(doc, files, request.baseUrl, asset),
  };
};
