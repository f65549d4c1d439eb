/**
 * The record a path names, as reads find it, or 404: by its identifier (slug first, then id) below a
 * collection, or a singleton's one published record. Reads answer it; writes find their target with it.
 */
import { defaultSort, type Projection } from '../grants/projection';
import { apiError, type ApiError } from '../http/errors';
import type { ReadStatus } from '../query/types';
import type { RecordRow } from '../serialize/rows';
import { getService } from '../utils/get-service';

/** 404 `record_not_found`: the path names no record this key can see (reads and writes alike). */
export const recordNotFound = (): ApiError => apiError(404, 'No record exists at this path.', { reason: 'record_not_found' });

export const findRecord = async (
  projection: Projection,
  identifier: string,
  locale: string | null,
  status: ReadStatus = 'published',
  fallback: readonly string[] = [],
): Promise<RecordRow> => {
  const row = await getService('records').one(projection, identifier, { locale, status, fallback });
  if (!row) throw recordNotFound();
  return row;
};

export const findSingleton = async (
  projection: Projection,
  locale: string | null,
  status: ReadStatus = 'published',
  fallback: readonly string[] = [],
): Promise<RecordRow> => {
  const row = await getService('records').singleton(projection, { locale, status, fallback }, defaultSort(projection.resource));
  if (!row) {
    const detail = status === 'draft' ? 'This resource has no record.' : 'This resource has no published record.';
    throw apiError(404, detail, { reason: 'record_not_found' });
  }
  return row;
};
