/**
 * The upload files records show, as they are now (name, hash, content version, size): those of their
 * media fields, in one query per page, and those images embedded in their richtext name.
 */
import type { Projection } from '../grants/projection';
import type { CurrentImageFile, FileRow, RecordRow, Related } from '../serialize/rows';
import { FILE_VERSIONS_TABLE } from '../content-types/file-version';
import type { RecordReads } from './record-reads';

/** The files images embedded in richtext name, as they are now (name, hash, content version). */
export const readImageFiles = async ({ knex, run }: RecordReads, documentIds: string[]): Promise<Map<string, CurrentImageFile>> => {
  const found = new Map<string, CurrentImageFile>();
  if (documentIds.length === 0) return found;
  const raws = await run(`images|${documentIds.length}`, documentIds, (param) =>
    knex()('files as f')
      .leftJoin(`${FILE_VERSIONS_TABLE} as v`, 'v.file_id', 'f.id')
      .select({
        documentId: 'f.document_id',
        name: 'f.name',
        hash: 'f.hash',
        version: 'v.version',
        width: 'f.width',
        height: 'f.height',
        mime: 'f.mime',
      })
      .whereIn(
        'f.document_id',
        documentIds.map((_, index) => param(index) as string),
      ),
  );
  for (const raw of raws) {
    const documentId = String(raw.documentId);
    found.set(documentId, {
      documentId,
      name: String(raw.name),
      hash: String(raw.hash),
      version: (raw.version as string | null) ?? null,
      width: raw.width == null ? null : Number(raw.width),
      height: raw.height == null ? null : Number(raw.height),
      mime: String(raw.mime),
    });
  }
  return found;
};

/** Files of every readable media field, in one query. */
export const readMedia = async (
  { models, knex, run }: RecordReads,
  projection: Projection,
  rows: RecordRow[],
  fields: string[],
): Promise<Related<FileRow>> => {
  const result: Related<FileRow> = new Map(fields.map((field) => [field, new Map()]));
  if (rows.length === 0 || fields.length === 0) return result;
  const model = models(projection.resource.uid);
  const m = model.media;
  const ownerIds = rows.map((row) => row.rowId);
  const raws = await run(`media|${projection.resource.uid}|${fields.join(',')}|${ownerIds.length}`, ownerIds, (param) =>
    knex()(`${m.table} as m`)
      .join('files as f', 'f.id', `m.${m.fileColumn}`)
      .leftJoin(`${FILE_VERSIONS_TABLE} as v`, 'v.file_id', 'f.id')
      .select({
        owner: `m.${m.ownerColumn}`,
        field: `m.${m.fieldColumn}`,
        id: 'f.id',
        documentId: 'f.document_id',
        name: 'f.name',
        alternativeText: 'f.alternative_text',
        caption: 'f.caption',
        width: 'f.width',
        height: 'f.height',
        hash: 'f.hash',
        version: 'v.version',
        ext: 'f.ext',
        mime: 'f.mime',
        size: 'f.size',
        bytes: 'v.bytes',
        url: 'f.url',
        updatedAt: 'f.updated_at',
      })
      .where(`m.${m.typeColumn}`, projection.resource.uid)
      .whereIn(
        `m.${m.ownerColumn}`,
        ownerIds.map((_, index) => param(index) as number),
      )
      .whereIn(`m.${m.fieldColumn}`, fields)
      .orderBy([`m.${m.ownerColumn}`, `m.${m.fieldColumn}`, `m.${m.orderColumn}`, 'm.id']),
  );
  for (const raw of raws) {
    const byOwner = result.get(String(raw.field))!;
    const owner = Number(raw.owner);
    const list = byOwner.get(owner) ?? [];
    list.push({
      id: Number(raw.id),
      documentId: String(raw.documentId),
      name: String(raw.name),
      alternativeText: (raw.alternativeText as string | null) ?? null,
      caption: (raw.caption as string | null) ?? null,
      width: raw.width == null ? null : Number(raw.width),
      height: raw.height == null ? null : Number(raw.height),
      hash: String(raw.hash),
      version: (raw.version as string | null) ?? null,
      ext: (raw.ext as string | null) ?? null,
      mime: String(raw.mime),
      size: Number(raw.size),
      bytes: raw.bytes == null ? null : Number(raw.bytes),
      url: String(raw.url),
      updatedAt: raw.updatedAt,
    });
    byOwner.set(owner, list);
  }
  return result;
};
