/**
 * What a write answers with and how it explains a refusal, shared by the single writes (handlers/writes.ts)
 * and atomic operations (handlers/atomic-operations.ts): the record read back as a read shows it to this key,
 * inside the write's transaction through the read path itself, and Strapi's refusals told in the fields the
 * key sees.
 */
import type { Projection } from '../../grants/projection';
import { COMPONENT_FIELD_TYPES } from '../../fields/table';
import { apiError, type ApiError } from '../../http/errors';
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

/**
 * A write never drops references a read did not show (contract section 13), inside components too: a
 * component or dynamic zone field sent whole, whose stored value holds a relation list longer than reads
 * show (the record's `meta.truncated` names the field), is 409 `relation_list_truncated`, as a whole
 * top-level list is. Only fields the key may read are looked at, so the refusal tells nothing a read would
 * not; the record is read (inside the write's transaction) only when such a field is sent.
 */
export const refuseCutComponentLists = async (
  request: ApiRequest,
  access: ResourceAccess,
  target: WriteTarget,
  documentId: string,
  attributes: Record<string, unknown> | undefined,
): Promise<void> => {
  const sent = access.projection.readable.filter(
    (field) => COMPONENT_FIELD_TYPES.has(field.type) && attributes !== undefined && Object.hasOwn(attributes, field.key),
  );
  if (sent.length === 0) return;
  const cut = new Set((await loadWritten(request, access, target, documentId))?.meta.truncated ?? []);
  for (const field of sent) {
    if (!cut.has(field.key)) continue;
    throw apiError(
      409,
      `'${field.key}' holds a reference list longer than reads show, so writing the field whole would drop references no read showed. Change those references in the content manager, or leave '${field.key}' out of this write.`,
      { source: { pointer: `/data/attributes/${field.key}` }, reason: 'relation_list_truncated' },
    );
  }
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
