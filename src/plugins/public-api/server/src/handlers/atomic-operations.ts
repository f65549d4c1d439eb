/**
 * POST /operations: JSON:API Atomic Operations (contract section 17). Up to 100 `add`, `update` and
 * `remove` operations on the key's resources, native and CMS, in ONE database transaction: all or nothing.
 *
 * Each operation is the single write (handlers/writes.ts) in all but its URL: the same resource lookup,
 * mode and grant checks (404, 400, 403) before anything is written, then inside the transaction the same
 * write-operation processor (writes/processor.ts) runs them in order, as it runs a single write. The first
 * operation refused rolls everything back; its errors point into it (`/atomic:operations/<n>/...`).
 * `lid`s let an operation name a record an earlier one added, in `ref` and in references
 * (write/local-ids.ts). Idempotency-Key covers the whole request (handlers/shared/write-handler.ts);
 * If-Match does not apply (there is no one record whose ETag it could be).
 *
 *   parse (400, 413) -> per operation: resource, mode, grant, locale (404, 400, 403)
 *     -> [Idempotency-Key] -> charge one unit per operation (429) -> transaction(operation 0 .. n-1 -> atomic:results) -> send
 */
import { pluginConfig } from '../config';
import { mayWrite } from '../grants/projection';
import { ApiError, apiError, type ReasonOf } from '../http/errors';
import { headerValue } from '../http/headers';
import { ATOMIC_MEDIA_TYPE, assertAtomicContentType } from '../http/media-types';
import { readJsonBody } from '../http/body';
import type { ApiRequest, ApiResponse, Handler } from '../http/request';
import type { Resource } from '../registry/types';
import type { ResourceAccess } from '../services/access';
import type { WriteTarget } from '../services/writes/target';
import type { RecordObject } from '../serialize/record';
import { echo } from '../values/echo';
import { RESULTS_MEMBER, parseAtomicDocument, underOperation, type AtomicOperation, type ResourceName } from '../write/atomic-document';
import { writeTargetOf, type WriteOperation } from '../writes/operation';
import { createWriteProcessor } from '../writes/processor';
import { withDeferredCreates } from '../services/journal/deferred';
import { writeHandler, type Execution } from './shared/write-handler';
import { getService } from '../utils/get-service';

const ACTIONS = { add: 'create', update: 'update', remove: 'delete' } as const;

/** One operation, its resource found and its grant checked: ready to run in the transaction. */
type Step = { operation: AtomicOperation; access: ResourceAccess; target: WriteTarget };

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

const prepareSteps = async (request: ApiRequest, operations: AtomicOperation[]): Promise<Step[]> => {
  const accessOf = accessResolver(request);
  const locales = await getService('locales').get();
  const steps: Step[] = [];
  for (const operation of operations) {
    try {
      const access = await accessOf(operation).catch((error: unknown) => {
        throw resourceNotFound(error, operation);
      });
      steps.push({ operation, access, target: writeTargetOf(request.key, access, operation.query, locales) });
    } catch (error) {
      throw error instanceof ApiError ? underOperation(error, operation.index) : error;
    }
  }
  return steps;
};

// ---------------------------------------------------------------------------------------------------------
// Inside the transaction: the operations in order, through the write-operation processor
// ---------------------------------------------------------------------------------------------------------

/** The operation as the processor takes it: its resource, locale and record judged already. */
const writeOperationOf = ({ operation, access, target }: Step): WriteOperation => ({
  op: operation.op,
  access,
  target,
  ref: operation.record,
  data: operation.data,
  lid: operation.lid,
  types: operation.types,
  precondition: null,
});

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
 * are the read-backs of plain adds (writes/read-backs.ts).
 */
const runSteps = (request: ApiRequest, steps: Step[]): Promise<Result[]> =>
  withDeferredCreates(strapi, async () => {
    const processor = createWriteProcessor(request, { localIds: true, batchReadBacks: true });
    const limitMs = pluginConfig(strapi).atomicTimeLimitMs;
    const deadline = Date.now() + limitMs;
    for (const step of steps) {
      assertWithinTimeLimit(deadline, limitMs);
      // Lets the requests that arrived meanwhile run between two operations: an operation's work is a chain
      // of promises that never waits for I/O on SQLite, and 100 of them kept every other request waiting
      // for the whole request (issue 34).
      await yieldToOthers();
      try {
        await processor.process(writeOperationOf(step));
      } catch (error) {
        throw error instanceof ApiError ? underOperation(error, step.operation.index) : error;
      }
    }
    const results = (await processor.finish()).map(({ data }): Result => (data === null ? {} : { data }));
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
    execute: async (): Promise<ApiResponse> => ({
      kind: 'document',
      status: 200,
      // The applied extension is named by the media type (`ext=` of Content-Type), not by `jsonapi.ext`:
      // `atomic:results` is the one member the contract adds beyond JSON:API's schema here (its preamble).
      document: { jsonapi: { version: '1.1' }, [RESULTS_MEMBER]: await runSteps(request, steps) },
    }),
  };
};

const atomic = writeHandler(prepareOperations, { idempotent: true });

export const runOperations: Handler = async (request) => {
  const response = await atomic(request);
  // The results use the extension, so their media type names it (stored answers and replays alike);
  // errors are plain JSON:API documents.
  if (response.status !== 200 || response.kind !== 'serialized') return response;
  return { ...response, type: ATOMIC_MEDIA_TYPE };
};
