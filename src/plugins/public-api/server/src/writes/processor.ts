/**
 * The write-operation processor: one `add`, `update` or `remove` (writes/operation.ts) run inside the
 * request's transaction, transport-free. A single POST, PATCH or DELETE is a list of one
 * (handlers/writes.ts); POST /operations runs its list through one processor (handlers/operations.ts).
 * Both have judged before what a transport judges (resource, mode, grant, locale, body: 404, 405, 403,
 * 400, 413, 415); the processor does the rest, the same way for both:
 *
 *   add:    stated types (409) -> `data.type` and no `data.id` (409, 403) -> attribute plan, lids resolved
 *           (422) -> create (references, slugs 409, Strapi's and the domain's validation 422) -> read back
 *   update: stated types (409) -> the record (404) -> `data.type` and `data.id` (409) -> precondition
 *           (If-Match, 412, rows locked) -> no cut component list (409) -> plan (422) -> update -> read back
 *   remove: stated types (409) -> the record (404) -> precondition (412) -> remove, or archive (the record
 *           as last shown, without a publication date)
 *
 * A refusal leaves as the ApiError it means to this key (`explainWrite`: Strapi's refusals told in the
 * fields it sees); anything else is a server fault. Either rolls the transaction back. The result is the
 * record as a read shows it to this key, read back inside the transaction through the read path itself.
 *
 * What the operations of one list leave for the next: the records added under a lid, and the records
 * removed or archived. A lid names its record without a query, so a record removed earlier must be told
 * apart here: updating or removing it again would write nothing and then read back nothing.
 */
import { ApiError, apiError, apiErrors } from '../http/errors';
import type { LoadOrigin } from '../read/load-context';
import { findRecord, findSingleton, recordNotFound } from '../read/find-record';
import { echo } from '../values/echo';
import { planAttributes, type AttributePlan } from '../write/attributes';
import { resolveLocalIds, type LocalRecord } from '../write/local-ids';
import { assertDocumentTarget, type ResourceObject } from '../write/resource-object';
import { getService } from '../utils/get-service';
import { createLidSites } from './lid-sites';
import type { OperationResult, RecordRef, WriteOperation } from './operation';
import { explainWrite, loadWritten, readBack, refuseCutComponentLists } from './read-back';
import { createReadBacks, isPlainAdd } from './read-backs';

export type ProcessorOptions = {
  /** Whether operations may name records added earlier in the list by lid (atomic requests). */
  localIds: boolean;
  /** Whether the read-backs of plain adds wait to be read together (writes/read-backs.ts). */
  batchReadBacks: boolean;
};

export type WriteProcessor = {
  /** Runs the next operation of the list; throws its refusal (an ApiError) or a server fault. */
  process: (operation: WriteOperation) => Promise<void>;
  /** The results of the operations run, in order, every read-back done. */
  finish: () => Promise<OperationResult[]>;
};

const removedKey = (resourceId: string, documentId: string): string => `${resourceId}\u0000${documentId}`;

/** The type an operation states must be its resource's slug (409, as the single write's `data.type`). */
const assertTypes = (operation: WriteOperation): void => {
  const slug = operation.access.resource.slug;
  for (const type of operation.types) {
    if (type.value === slug) continue;
    throw apiError(409, `The type is ${echo(type.value)}, but this operation writes '${slug}' records.`, {
      source: { pointer: type.at },
      reason: 'type_mismatch',
    });
  }
};

/** A processor for one request's list of operations, in one transaction. */
export const createWriteProcessor = (origin: LoadOrigin, options: ProcessorOptions): WriteProcessor => {
  const lids = new Map<string, LocalRecord>();
  const removed = new Set<string>();
  const results: OperationResult[] = [];
  const readBacks = createReadBacks(origin, results);
  const lidSitesOf = createLidSites();
  const writes = getService('writes');

  /** The attributes planned as a write plans them, their lid references replaced by ids where lids apply (422). */
  const plan = (operation: WriteOperation, object: ResourceObject): AttributePlan => {
    const { projection } = operation.access;
    if (!options.localIds) return planAttributes(projection, object.attributes);
    const { attributes, problems } = resolveLocalIds(object.attributes, lidSitesOf(projection), lids);
    if (problems.length) throw apiErrors(422, problems);
    return planAttributes(projection, attributes);
  };

  /** The document id of the record an update or remove names: found already, by identifier (as a path names it), lid, or the singleton's. */
  const documentIdOf = async (operation: WriteOperation, ref: RecordRef): Promise<string> => {
    const { access, target } = operation;
    if (ref.by === 'document') return ref.documentId;
    if (ref.by === 'singleton') return (await findSingleton(access.projection, target.locale)).documentId;
    if (ref.by === 'lid') {
      const local = lids.get(ref.value)!;
      if (local.resourceId !== access.resource.id) {
        throw apiError(
          409,
          `The lid ${echo(ref.value)} names a ${local.resourceSlug} record, but this operation writes '${access.resource.slug}' records.`,
          { source: { pointer: ref.at }, reason: 'lid_type_mismatch' },
        );
      }
      if (removed.has(removedKey(local.resourceId, local.documentId))) {
        throw apiError(404, `The record with the lid ${echo(ref.value)} was removed by an earlier operation of this request.`, {
          source: { pointer: ref.at },
          reason: 'record_not_found',
        });
      }
      return local.documentId;
    }
    try {
      return (await findRecord(access.projection, ref.value, target.locale)).documentId;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      throw apiError(404, `No ${access.resource.slug} record ${echo(ref.value)} exists.`, {
        source: { pointer: ref.at },
        reason: 'record_not_found',
      });
    }
  };

  /** The operation's precondition, judged on the record as it is now with its rows held until the write commits. */
  const assertPrecondition = async (operation: WriteOperation, documentId: string): Promise<void> => {
    if (!operation.precondition) return;
    const { access, target } = operation;
    await writes.lock(access.resource.uid, documentId);
    operation.precondition(await loadWritten(origin, access, target, documentId));
  };

  const add = async (operation: WriteOperation, index: number): Promise<void> => {
    const { access, target } = operation;
    const object = operation.data!;
    assertDocumentTarget(object, { type: access.resource.slug, id: null });
    const planned = plan(operation, object);
    const deferred = options.batchReadBacks && isPlainAdd(planned);
    if (!deferred) await readBacks.flush();
    const documentId = await writes.create(target, planned);
    if (operation.lid) lids.set(operation.lid, { resourceId: access.resource.id, resourceSlug: access.resource.slug, documentId });
    if (deferred) readBacks.defer(access, target, index, documentId);
    else results[index] = { data: await readBack(origin, access, target, documentId) };
  };

  const update = async (operation: WriteOperation, index: number): Promise<void> => {
    const { access, target } = operation;
    await readBacks.flush();
    const documentId = await documentIdOf(operation, operation.ref!);
    const object = operation.data!;
    assertDocumentTarget(object, { type: access.resource.slug, id: documentId });
    await assertPrecondition(operation, documentId);
    await refuseCutComponentLists(origin, access, target, documentId, object.attributes);
    await writes.update(target, documentId, plan(operation, object));
    results[index] = { data: await readBack(origin, access, target, documentId) };
  };

  const remove = async (operation: WriteOperation, index: number): Promise<void> => {
    const { access, target } = operation;
    await readBacks.flush();
    const documentId = await documentIdOf(operation, operation.ref!);
    await assertPrecondition(operation, documentId);
    removed.add(removedKey(access.resource.id, documentId));
    if (access.resource.deleteMode === 'remove') {
      await writes.remove(target, documentId);
      results[index] = { data: null };
      return;
    }
    // Archived: the record as it was last shown, now without a publication date; it leaves reads.
    const data = await loadWritten(origin, access, target, documentId);
    if (!data) throw recordNotFound();
    await writes.archive(target, documentId);
    results[index] = { data: { ...data, meta: { ...data.meta, publishedAt: null } } };
  };

  const RUN = { add, update, remove };
  let next = 0;
  return {
    async process(operation) {
      const index = next++;
      try {
        assertTypes(operation);
        await RUN[operation.op](operation, index);
      } catch (error) {
        const explained = explainWrite(operation.access)(error);
        throw explained ?? error;
      }
    },
    async finish() {
      await readBacks.flush();
      return results;
    },
  };
};
