/**
 * What a write answers with and how it explains a refusal, shared by the single writes (handlers/writes.ts)
 * and atomic operations (handlers/operations.ts): the record read back as a read shows it to this key,
 * inside the write's transaction through the read path itself, and Strapi's refusals told in the fields the
 * key sees.
 */
import type { Projection } from '../../grants/projection';
import type { ApiError } from '../../http/errors';
import type { ApiRequest } from '../../http/request';
import { loadRecords } from '../../read/load';
import type { RecordObject } from '../../serialize/record';
import type { ResourceAccess } from '../../services/access';
import type { WriteTarget } from '../../services/writes/target';
import { apiErrorOfWrite, type ViolationScope } from '../../write/violations';
import { getService } from '../../utils/get-service';
import { loadContext } from './load-context';

/** The record as a read shows it to this key, read inside the write's transaction; null when it is not (or no longer) visible. */
export const loadWritten = async (request: ApiRequest, access: ResourceAccess, target: WriteTarget, documentId: string) => {
  const row = await getService('records').byDocumentId(access.projection, documentId, { locale: target.locale });
  if (!row) return null;
  const [data] = await loadRecords(loadContext(request, access, target.language), access.projection, [row], []);
  return data!;
};

/**
 * Several records of one resource, written in one locale, as `loadWritten` shows each: one query for
 * their rows and the read path's queries for all of them together (atomic operations, issue 17). By
 * document id; a record that is not visible is missing.
 */
export const loadWrittenMany = async (
  request: ApiRequest,
  access: ResourceAccess,
  target: WriteTarget,
  documentIds: readonly string[],
): Promise<Map<string, RecordObject>> => {
  const rows = await getService('records').byDocumentIds(access.projection, [...new Set(documentIds)], { locale: target.locale });
  const data = await loadRecords(loadContext(request, access, target.language), access.projection, rows, []);
  return new Map(rows.map((row, index) => [row.documentId, data[index]!]));
};

const visibleFields = (projection: Projection): ViolationScope => ({
  visible: new Set(projection.fields.map((field) => field.key)),
  readable: new Set(projection.readable.map((field) => field.key)),
});

/** What a refused write means to this key: Strapi's and the domain's refusals, told in the fields it sees. */
export const explainWrite =
  (access: ResourceAccess) =>
  (error: unknown): ApiError | null =>
    apiErrorOfWrite(error, visibleFields(access.projection));
