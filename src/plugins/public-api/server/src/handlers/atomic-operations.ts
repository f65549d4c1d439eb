/**
 * POST /operations: JSON:API Atomic Operations (contract section 17). Up to 100 `add`, `update` and
 * `remove` operations on the key's resources, native and CMS, in ONE database transaction: all or nothing.
 *
 * Each operation is the single write (handlers/writes.ts) in all but its URL: the same resource lookup,
 * mode and grant checks (404, 400, 403) before anything is written, then inside the transaction the same
 * document checks (409 type and id, 403 client id), attribute plan (422), references, slugs (409),
 * Strapi's and the domain's validation, and the same read-back as a read shows the record. The first
 * operation refused rolls everything back; its errors point into it (`/atomic:operations/<n>/...`).
 * `lid`s let an operation name a record an earlier one added, in `ref` and in references
 * (write/local-ids.ts). Idempotency-Key covers the whole request (handlers/shared/write-handler.ts);
 * If-Match does not apply (there is no one record whose ETag it could be).
 *
 *   parse (400, 413) -> per operation: resource, mode, grant, locale (404, 400, 403)
 *     -> [Idempotency-Key] -> charge one unit per operation (429) -> transaction(operation 0 .. n-1 -> atomic:results) -> send
 */
import { pluginConfig } from '../config';
import { mayWrite, takesLocale, type Projection } from '../grants/projection';
import { ApiError, apiError, apiErrors, type ReasonOf } from '../http/errors';
import { headerValue } from '../http/headers';
import { ATOMIC_MEDIA_TYPE, assertAtomicContentType } from '../http/media-types';
import { readJsonBody } from '../http/body';
import type { ApiRequest, Handler } from '../http/request';
import { parseWriteQuery } from '../query/parse';
import type { Field, Resource } from '../registry/types';
import type { ResourceAccess } from '../services/access';
import type { WriteTarget } from '../services/writes/target';
import type { RecordObject } from '../serialize/record';
import { echo } from '../values/echo';
import {
  RESULTS_MEMBER,
  parseAtomicDocument,
  underOperation,
  type AtomicOperation,
  type RecordName,
  type ResourceName,
} from '../write/atomic-document';
import { planAttributes, type AttributePlan } from '../write/attributes';
import { resolveLocalIds, type ComponentSites, type LidSites, type LocalRecord, type RelationTarget } from '../write/local-ids';
import { assertDocumentTarget, type ResourceObject } from '../write/resource-object';
import { findRecord, findSingleton } from './shared/find-record';
import { explainWrite, loadWritten, loadWrittenMany, refuseCutComponentLists } from './shared/read-back';
import { withDeferredCreates } from '../services/journal/deferred';
import { writeHandler, type Execution } from './shared/write-handler';
import { getService } from '../utils/get-service';
import { isComponentField, isRelationField } from '../fields/items';

const ACTIONS = { add: 'create', update: 'update', remove: 'delete' } as const;

/** One operation, its resource found and its grant checked: ready to run in the transaction. */
type Step = { operation: AtomicOperation; access: ResourceAccess; target: WriteTarget };

/**
 * What the operations run so far leave for the next: the records added under a lid, and the records
 * removed or archived (by resource id and document id). A lid names its record without a query, so a
 * record removed earlier must be told apart here: updating or removing it again would write nothing and
 * then read back nothing (200 for a removal that did nothing, or a 500).
 */
type RunState = { lids: Map<string, LocalRecord>; removed: Set<string> };

const removedKey = (resourceId: string, documentId: string): string => `${resourceId}\u0000${documentId}`;

/** An operation's result (`atomic:results[n]`): the record as a read shows it, or nothing for a removal. */
type Result = { data: RecordObject } | Record<string, never>;

// ---------------------------------------------------------------------------------------------------------
// Before the transaction: what the request and each operation may do at all
// ---------------------------------------------------------------------------------------------------------

/** The parameters of POST /operations itself: none; an operation's locale is in its href. */
const assertNoParameters = (query: URLSearchParams): void => {
  for (const name of query.keys()) {
    throw apiError(400, `The query parameter ${echo(name)} does not apply to /operations; give an operation's locale in its href.`, {
      source: { parameter: name },
      reason: 'parameter_unknown',
    });
  }
};

const assertNoIfMatch = (request: ApiRequest): void => {
  if (headerValue(request.headers, 'if-match') === undefined) return;
  throw apiError(400, 'If-Match does not apply to /operations: send each conditional change as a single write.', {
    source: { header: 'If-Match' },
    reason: 'if_match_not_applicable',
  });
};

/**
 * What the resource's mode allows, as the single write's routes do: records are added to collections
 * only, a singleton's one record (native or a website's) is updated and never removed, and a collection's
 * record is named. Said before the key's grant (as 405 before 403).
 */
const supportsOperation =
  (operation: AtomicOperation) =>
  (resource: Resource): void => {
    const refuse = (detail: string, reason: ReasonOf<400>, at = '/op') => {
      throw apiError(400, detail, { source: { pointer: at }, reason });
    };
    if (resource.mode === 'singleton') {
      if (operation.op !== 'update')
        refuse(`${resource.slug} is a singleton: its one record is updated, never added or removed.`, 'operation_not_supported');
      if (operation.record?.by !== 'singleton') {
        throw apiError(404, 'A singleton has no records below it: name only the resource.', {
          source: { pointer: operation.record && 'at' in operation.record ? operation.record.at : '' },
          reason: 'record_not_found',
        });
      }
      return;
    }
    if (operation.record?.by === 'singleton') {
      refuse(`${resource.slug} is a collection: name the record in \`ref\` (id or lid), \`data.id\` or \`href\`.`, 'record_not_named', '');
    }
  };

const resourceKey = (name: ResourceName, action: string): string =>
  name.source === 'native' ? `native/${name.slug}/${action}` : `cms/${name.website}/${name.collection}/${action}`;

/** The resource of each operation and what the key may do with it, looked up once per resource and action. */
const accessResolver = (request: ApiRequest) => {
  const found = new Map<string, Promise<ResourceAccess>>();
  return (operation: AtomicOperation): Promise<ResourceAccess> => {
    const action = ACTIONS[operation.op];
    const key = resourceKey(operation.resource, action);
    // The mode check depends on the operation, not only on the resource: run it for each.
    const supports = supportsOperation(operation);
    const cached = found.get(key);
    if (cached) {
      return cached.then((access) => {
        supports(access.resource);
        return access;
      });
    }
    const name = operation.resource;
    const access =
      name.source === 'native'
        ? Promise.resolve().then(() => getService('access').native(request.key, name.slug, action, { supports }))
        : getService('access').cms(request.key, name.website, name.collection, action, { supports });
    found.set(key, access);
    return access;
  };
};

const resourceNotFound = (error: unknown, operation: AtomicOperation): unknown =>
  error instanceof ApiError && error.errors[0]?.meta?.reason === 'resource_not_found'
    ? apiError(404, 'No resource exists at this path.', { source: { pointer: operation.resourceAt }, reason: 'resource_not_found' })
    : error;

/** The operation's locale (its href's `locale`, else the default), as the single write's `writeTarget`. */
const targetOf = (
  request: ApiRequest,
  access: ResourceAccess,
  query: URLSearchParams,
  locales: { codes: string[]; defaultLocale: string },
) => {
  const { locale } = parseWriteQuery(query, { locales: takesLocale(access.projection) ? locales.codes : null });
  const language = locale ?? locales.defaultLocale;
  return { key: request.key, projection: access.projection, locale: access.resource.localized ? language : null, language };
};

const prepareSteps = async (request: ApiRequest, operations: AtomicOperation[]): Promise<Step[]> => {
  const accessOf = accessResolver(request);
  const locales = await getService('locales').get();
  const steps: Step[] = [];
  for (const operation of operations) {
    try {
      const access = await accessOf(operation).catch((error: unknown) => {
        throw resourceNotFound(error, operation);
      });
      steps.push({ operation, access, target: targetOf(request, access, operation.query, locales) });
    } catch (error) {
      throw error instanceof ApiError ? underOperation(error, operation.index) : error;
    }
  }
  return steps;
};

// ---------------------------------------------------------------------------------------------------------
// Inside the transaction: the operations in order
// ---------------------------------------------------------------------------------------------------------

/** The type an operation states must be its resource's slug (409, as the single write's `data.type`). */
const assertTypes = (step: Step): void => {
  const slug = step.access.resource.slug;
  for (const type of step.operation.types) {
    if (type.value === slug) continue;
    throw apiError(409, `The type is ${echo(type.value)}, but this operation writes '${slug}' records.`, {
      source: { pointer: type.at },
      reason: 'type_mismatch',
    });
  }
};

/** The relation fields of `fields`, with the resource each refers to as `projection` sees it. */
const relationTargets = (projection: Projection, fields: readonly Field[]): RelationTarget[] =>
  fields.flatMap((field) => {
    const target = projection.targets.get(field.key);
    return isRelationField(field) && target ? [{ key: field.key, resourceId: target.id }] : [];
  });

/**
 * Where a lid may stand in a write's attributes: the relation fields the key may write, and the relations
 * inside the component fields it may write (each component's as the record's resource sees it).
 */
const lidSites = (projection: Projection): LidSites => {
  const inside = new Map<string, LidSites>();
  const componentSites = (fields: readonly Field[]): ComponentSites[] =>
    fields.flatMap((field) =>
      isComponentField(field)
        ? [
            {
              key: field.key,
              type: field.type,
              components: new Map((field.components ?? []).map((component) => [component.uid, sitesOf(component.uid)])),
            },
          ]
        : [],
    );
  const sitesOf = (uid: string): LidSites => {
    const known = inside.get(uid);
    if (known) return known;
    const seen = projection.components.get(uid);
    const sites: LidSites = { relations: seen ? relationTargets(seen, seen.readable) : [], components: [] };
    inside.set(uid, sites);
    return Object.assign(sites, { components: seen ? componentSites(seen.readable) : [] });
  };
  return { relations: relationTargets(projection, projection.writable), components: componentSites(projection.writable) };
};

/** Lid sites by projection: worked out once per resource and action of a request, not per operation. */
const lidSitesOnce = (() => {
  const known = new WeakMap<Projection, LidSites>();
  return (projection: Projection): LidSites => {
    let sites = known.get(projection);
    if (!sites) known.set(projection, (sites = lidSites(projection)));
    return sites;
  };
})();

/** The attributes with their lid references replaced by ids, planned as the single write plans them. */
const planWithLocalIds = (step: Step, object: ResourceObject, lids: ReadonlyMap<string, LocalRecord>) => {
  const { attributes, problems } = resolveLocalIds(object.attributes, lidSitesOnce(step.access.projection), lids);
  if (problems.length) throw apiErrors(422, problems);
  return planAttributes(step.access.projection, attributes);
};

/** The document id of the record an update or remove names: by identifier (as the path does), lid, or the singleton's. */
const documentIdOf = async (step: Step, record: RecordName, state: RunState): Promise<string> => {
  const { projection } = step.access;
  const { lids, removed } = state;
  if (record.by === 'singleton') return (await findSingleton(projection, step.target.locale)).documentId;
  if (record.by === 'lid') {
    const local = lids.get(record.value)!;
    if (local.resourceId !== step.access.resource.id) {
      throw apiError(
        409,
        `The lid ${echo(record.value)} names a ${local.resourceSlug} record, but this operation writes '${step.access.resource.slug}' records.`,
        {
          source: { pointer: record.at },
          reason: 'lid_type_mismatch',
        },
      );
    }
    if (removed.has(removedKey(local.resourceId, local.documentId))) {
      throw apiError(404, `The record with the lid ${echo(record.value)} was removed by an earlier operation of this request.`, {
        source: { pointer: record.at },
        reason: 'record_not_found',
      });
    }
    return local.documentId;
  }
  try {
    return (await findRecord(projection, record.value, step.target.locale)).documentId;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    throw apiError(404, `No ${step.access.resource.slug} record ${echo(record.value)} exists.`, {
      source: { pointer: record.at },
      reason: 'record_not_found',
    });
  }
};

const readBack = async (request: ApiRequest, step: Step, documentId: string): Promise<RecordObject> => {
  const data = await loadWritten(request, step.access, step.target, documentId);
  // Just written in this transaction: not finding it is a server fault, and rolls everything back.
  if (!data) throw new Error(`${step.access.resource.id}: record ${documentId} was written but cannot be read back.`);
  return data;
};

/** Fields whose values link the record to others: writing them can change how other records read. */
const LINKING_KINDS: ReadonlySet<string> = new Set(['relation', 'relationChanges', 'components']);

/** An add that sets no link: it changes no record but its own, so its read-back may wait (`ReadBacks`). */
const isPlainAdd = (plan: AttributePlan): boolean => plan.fields.every((entry) => !LINKING_KINDS.has(entry.planned.kind));

/**
 * The read-backs of plain adds, done together: one row query and one set of read queries per resource
 * and locale instead of per operation. Read before the next operation that may change what they show
 * (anything but another plain add: an update or removal, or an add that sets links), and at the end, so
 * each result still shows its record as it was right after its operation.
 */
const createReadBacks = (request: ApiRequest, results: Result[]) => {
  const pending = new Map<string, { step: Step; entries: { index: number; documentId: string }[] }>();
  return {
    defer(step: Step, index: number, documentId: string): void {
      const key = `${step.access.resource.id}\u0000${step.target.locale ?? ''}\u0000${step.target.language}`;
      const group = pending.get(key) ?? { step, entries: [] };
      group.entries.push({ index, documentId });
      pending.set(key, group);
    },
    async flush(): Promise<void> {
      for (const { step, entries } of pending.values()) {
        const records = await loadWrittenMany(
          request,
          step.access,
          step.target,
          entries.map((entry) => entry.documentId),
        );
        for (const { index, documentId } of entries) {
          const data = records.get(documentId);
          // Just written in this transaction: not finding it is a server fault, and rolls everything back.
          if (!data) throw new Error(`${step.access.resource.id}: record ${documentId} was written but cannot be read back.`);
          results[index] = { data };
        }
      }
      pending.clear();
    },
  };
};

type ReadBacks = ReturnType<typeof createReadBacks>;

/** An operation's result now, or `later` when its read-back waits in `readBacks` (a plain add). */
const runStep = async (request: ApiRequest, step: Step, state: RunState, readBacks: ReadBacks): Promise<Result | 'later'> => {
  const { operation, access, target } = step;
  const { lids } = state;
  const writes = getService('writes');
  assertTypes(step);
  if (operation.op === 'add') {
    const object = operation.data!;
    assertDocumentTarget(object, { type: access.resource.slug, id: null });
    const plan = planWithLocalIds(step, object, lids);
    const plain = isPlainAdd(plan);
    if (!plain) await readBacks.flush();
    const documentId = await writes.create(target, plan);
    if (operation.lid) lids.set(operation.lid, { resourceId: access.resource.id, resourceSlug: access.resource.slug, documentId });
    if (!plain) return { data: await readBack(request, step, documentId) };
    readBacks.defer(step, operation.index, documentId);
    return 'later';
  }
  await readBacks.flush();
  const documentId = await documentIdOf(step, operation.record!, state);
  if (operation.op === 'update') {
    const object = operation.data!;
    assertDocumentTarget(object, { type: access.resource.slug, id: documentId });
    await refuseCutComponentLists(request, access, target, documentId, object.attributes);
    await writes.update(target, documentId, planWithLocalIds(step, object, lids));
    return { data: await readBack(request, step, documentId) };
  }
  state.removed.add(removedKey(access.resource.id, documentId));
  if (access.resource.deleteMode === 'remove') {
    await writes.remove(target, documentId);
    return {};
  }
  // Archived, as DELETE answers: the record as it was last shown, without a publication date; it leaves reads.
  const data = await readBack(request, step, documentId);
  await writes.archive(target, documentId);
  return { data: { ...data, meta: { ...data.meta, publishedAt: null } } };
};

/** Resolves after the I/O and timers already due have run (a macrotask: `setImmediate`). */
const yieldToOthers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The atomic time limit (`atomicTimeLimitMs`), checked between operations: a transaction that ran past it
 * rolls back whole (nothing of it is kept) and is answered 503 with Retry-After, not stored for
 * Idempotency-Key, so that a retry runs afresh. On SQLite, whose writes run one at a time, it bounds how
 * long other keys' writes wait behind one request (database/write-turns.ts).
 */
const assertWithinTimeLimit = (deadline: number, limitMs: number): void => {
  if (Date.now() <= deadline) return;
  throw apiError(
    503,
    `The operations did not finish within the time limit of ${limitMs} ms for one atomic request; nothing was written. Retry later, or send fewer operations per request.`,
    { reason: 'atomic_time_limit', headers: { 'Retry-After': String(Math.max(1, Math.ceil(limitMs / 1000))) } },
  );
};

/**
 * Runs the operations in order inside the request's transaction; the first refusal, under its operation,
 * ends it. The journal entries of plain creates are written together (services/journal/deferred.ts), as
 * are the read-backs of plain adds (`createReadBacks`).
 */
const runSteps = (request: ApiRequest, steps: Step[]): Promise<Result[]> =>
  withDeferredCreates(strapi, async () => {
    const state: RunState = { lids: new Map(), removed: new Set() };
    const results: Result[] = new Array<Result>(steps.length);
    const readBacks = createReadBacks(request, results);
    const limitMs = pluginConfig(strapi).atomicTimeLimitMs;
    const deadline = Date.now() + limitMs;
    for (const step of steps) {
      assertWithinTimeLimit(deadline, limitMs);
      // Lets the requests that arrived meanwhile run between two operations: an operation's work is a chain
      // of promises that never waits for I/O on SQLite, and 100 of them kept every other request waiting
      // for the whole request (issue 34).
      await yieldToOthers();
      try {
        const result = await runStep(request, step, state, readBacks);
        if (result !== 'later') results[step.operation.index] = result;
      } catch (error) {
        const explained = explainWrite(step.access)(error);
        if (!explained) throw error;
        throw underOperation(explained, step.operation.index);
      }
    }
    await readBacks.flush();
    assertWithinTimeLimit(deadline, limitMs);
    return results;
  });

const prepareOperations = async (request: ApiRequest): Promise<Execution> => {
  // As its OpenAPI document says: a key that may write no resource has no /operations (403 before anything is read).
  const resources = await getService('resources').all();
  if (!resources.some((resource) => mayWrite(request.key.grants, resource.id))) {
    throw apiError(403, 'This key may not write records of any resource.', { reason: 'action_not_granted' });
  }
  assertNoParameters(request.query);
  assertNoIfMatch(request);
  assertAtomicContentType(headerValue(request.headers, 'content-type'));
  const body = await readJsonBody(request);
  const operations = parseAtomicDocument(body, request.baseUrl);
  const steps = await prepareSteps(request, operations);
  return {
    body,
    // Each operation is priced like the single write it stands for (http/request-cost.ts).
    cost: { operations: operations.length },
    execute: async () => ({
      status: 200,
      // The applied extension is named by the media type (`ext=` of Content-Type), not by `jsonapi.ext`:
      // `atomic:results` is the one member the contract adds beyond JSON:API's schema here (its preamble).
      body: { jsonapi: { version: '1.1' }, [RESULTS_MEMBER]: await runSteps(request, steps) },
    }),
  };
};

const atomic = writeHandler(prepareOperations, { idempotent: true });

export const runOperations: Handler = async (request) => {
  const response = await atomic(request);
  // The results use the extension, so their media type names it (stored answers and replays alike);
  // errors are plain JSON:API documents.
  if (response.status !== 200 || response.rawBody === undefined) return response;
  const { rawBody, ...rest } = response;
  return { ...rest, raw: { type: ATOMIC_MEDIA_TYPE, text: rawBody } };
};
