/**
 * Rows -> record objects with their references, files and `include` expansions. Each level costs one
 * query per readable relation field, one for files and one per expanded field, whatever the number
 * of rows, so a page of 100 records costs what a page of 5 does.
 */
import type { Projection } from '../grants/projection';
import type { IncludeSpec } from '../query/types';
import { MEDIA_FIELD_TYPES, RELATION_FIELD_TYPES } from '../registry/types';
import { readAll } from '../database/connection';
import type { FileRow, RecordRow, Related, TargetRef } from './rows';
import type { Asset } from '../serialize/assets';
import { serializeRecord, type RecordObject } from '../serialize/record';

export type RecordSource = {
  relations: (projection: Projection, rows: RecordRow[], fields: string[]) => Promise<Related<TargetRef>>;
  media: (projection: Projection, rows: RecordRow[], fields: string[]) => Promise<Related<FileRow>>;
  byRowIds: (projection: Projection, rowIds: number[]) => Promise<RecordRow[]>;
};

export type LoadContext = {
  source: RecordSource;
  projectionOf: (resource: Projection['resource']) => Projection;
  asset: (file: FileRow) => Asset;
  richtext: (raw: unknown) => unknown;
};

export const loadRecords = async (
  context: LoadContext,
  projection: Projection,
  rows: RecordRow[],
  include: readonly IncludeSpec[]
): Promise<RecordObject[]> => {
  if (rows.length === 0) return [];
  const relationFields = projection.readable.filter((field) => RELATION_FIELD_TYPES.has(field.type)).map((field) => field.key);
  const mediaFields = projection.readable.filter((field) => MEDIA_FIELD_TYPES.has(field.type)).map((field) => field.key);
  const [references, files] = (await readAll<unknown>([
    () => context.source.relations(projection, rows, relationFields),
    () => context.source.media(projection, rows, mediaFields),
  ])) as [Related<TargetRef>, Related<FileRow>];

  const expanded = new Map<string, Map<number, RecordObject>>();
  await readAll(
    include.map((spec) => async () => {
      const target = projection.targets.get(spec.field);
      if (!target) return;
      const targetProjection = context.projectionOf(target);
      const ids = new Set<number>();
      for (const refs of references.get(spec.field)?.values() ?? []) for (const ref of refs) ids.add(ref.rowId);
      const targetRows = await context.source.byRowIds(targetProjection, [...ids]);
      const records = await loadRecords(context, targetProjection, targetRows, spec.include);
      expanded.set(spec.field, new Map(targetRows.map((row, index) => [row.rowId, records[index]!])));
    })
  );

  return rows.map((row) =>
    serializeRecord(projection, row, { references, files, asset: context.asset, richtext: context.richtext, expanded })
  );
};
