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

const visibleFields = (projection: Projection): ViolationScope => ({
  visible: new Set(projection.fields.map((field) => field.key)),
  readable: new Set(projection.readable.map((field) => field.key)),
});

/** What a refused write means to this key: Strapi's and the domain's refusals, told in the fields it sees. */
export const explainWrite =
  (access: ResourceAccess) =>
  (error: unknown): ApiError | null =>
    apiErrorOfWrite(error, visibleFields(access.projection));
