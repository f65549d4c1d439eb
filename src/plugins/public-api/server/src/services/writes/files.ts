/**
 * The assets a write names, in media fields and in richtext images: the upload files, loaded in one query,
 * and what Strapi is given for each field, or a 422 problem per asset that does not fit.
 */
import type { Core } from '@strapi/strapi';
import { errorObject, type ErrorObject } from '../../http/errors';
import { echo } from '../../query/problems';
import { docToBlocks, imageAttrsOf, type BlocksImageFile, type ImageLookup } from '../../richtext';
import type { AssetRef, PlannedField } from '../../write/attributes';
import { isToMany } from '../../fields/items';

const FILE_UID = 'plugin::upload.file';

type FileRow = {
  id: number;
  documentId: string;
  name: string;
  mime: string;
  width: number | null;
  height: number | null;
  [column: string]: unknown;
};

const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : new Date(value instanceof Date ? value : (value as string | number)).toISOString();

/** `image/*`, `application/pdf`, `*\/*` against a MIME type. */
const mimeAllowed = (patterns: readonly string[] | undefined, mime: string): boolean =>
  !patterns ||
  patterns.some((pattern) => pattern === '*/*' || pattern === mime || (pattern.endsWith('/*') && mime.startsWith(pattern.slice(0, -1))));

/** The upload files the write names (media fields and richtext images), by asset id, in one query. */
export const loadFiles = async (strapi: Core.Strapi, planned: PlannedField[]): Promise<Map<string, FileRow>> => {
  const ids = new Set<string>();
  for (const entry of planned) {
    if (entry.planned.kind === 'media') for (const ref of entry.planned.refs) ids.add(ref.id);
    if (entry.planned.kind === 'richtext') {
      for (const attrs of imageAttrsOf(entry.planned.doc)) if (typeof attrs.id === 'string') ids.add(attrs.id);
    }
  }
  if (ids.size === 0) return new Map();
  const rows = (await strapi.db.query(FILE_UID).findMany({ where: { documentId: { $in: [...ids] } } })) as FileRow[];
  return new Map(rows.map((row) => [row.documentId, row]));
};

export const resolveMedia = (entry: PlannedField, refs: AssetRef[], files: Map<string, FileRow>, problems: ErrorObject[]) => {
  const ids: number[] = [];
  for (const ref of refs) {
    const file = files.get(ref.id);
    if (!file) {
      problems.push(errorObject(422, `No asset ${echo(ref.id)} exists.`, { source: { pointer: ref.pointer }, reason: 'asset_not_found' }));
    } else if (!mimeAllowed(entry.field.allowedTypes, file.mime)) {
      problems.push(
        errorObject(422, `'${entry.field.key}' accepts ${entry.field.allowedTypes!.join(', ')}; this asset is ${file.mime}.`, {
          source: { pointer: ref.pointer },
          reason: 'asset_type_not_allowed',
        }),
      );
    } else if (ids.includes(file.id)) {
      problems.push(
        errorObject(422, 'This asset is already listed above.', { source: { pointer: ref.pointer }, reason: 'asset_repeated' }),
      );
    } else {
      ids.push(file.id);
    }
  }
  const many = isToMany(entry.field);
  return many ? ids : (ids[0] ?? null);
};

/** An upload file as Strapi's blocks keep it inside an image block (what the admin stores). */
const imageBlockFile = (file: FileRow): BlocksImageFile => ({
  id: file.id,
  documentId: file.documentId,
  name: file.name,
  alternativeText: file.alternativeText ?? null,
  caption: file.caption ?? null,
  width: file.width,
  height: file.height,
  formats: file.formats ?? null,
  hash: file.hash,
  ext: file.ext,
  mime: file.mime,
  size: file.size,
  url: file.url,
  previewUrl: file.previewUrl ?? null,
  provider: file.provider,
  provider_metadata: file.provider_metadata ?? null,
  createdAt: iso(file.createdAt),
  updatedAt: iso(file.updatedAt),
});

export const resolveRichtext = (entry: PlannedField, doc: unknown, files: Map<string, FileRow>, problems: ErrorObject[]) => {
  if (doc === null) return null;
  const attrsToImage = (attrs: Record<string, unknown>): ImageLookup => {
    const file = typeof attrs.id === 'string' ? files.get(attrs.id) : undefined;
    if (!file) return { ok: false, message: 'An image names an existing asset by its id (attrs.id).' };
    if (!file.mime.startsWith('image/') || typeof file.width !== 'number' || typeof file.height !== 'number') {
      return { ok: false, message: `An image must be an image asset with a size; this asset is ${file.mime}.` };
    }
    return { ok: true, file: imageBlockFile(file) };
  };
  const result = docToBlocks(doc, { attrsToImage, pointer: entry.pointer });
  if (result.ok) return result.blocks;
  for (const issue of result.issues) {
    problems.push(errorObject(422, issue.message, { source: { pointer: issue.pointer }, reason: 'richtext_invalid' }));
  }
  return null;
};
