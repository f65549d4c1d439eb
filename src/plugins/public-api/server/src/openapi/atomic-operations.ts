/**
 * POST /operations (contract section 17, JSON:API Atomic Operations) in the key's document: described
 * only for a key that may create, update or delete records of some resource, with one operation schema
 * per resource and action the key holds, and the results it answers with. Pure.
 */
import type { SchemaKit } from '../fields/codec';
import { allows } from '../grants/projection';
import type { ErrorStatus } from '../http/errors';
import { ATOMIC_MEDIA_TYPE } from '../http/media-types';
import { jsonApi } from './envelope';
import { resourcePath } from '../registry/paths';
import type { Resource } from '../registry/types';
import { MAX_OPERATIONS, OPERATIONS_MEMBER, RESULTS_MEMBER } from '../write/atomic-document';
import type { DocumentContext } from './context';
import { errorResponses } from './errors';
import { archivedRecordMeta } from './meta';
import { atomicRelationChanges, atomicRelationInput } from './inputs';
import { withComponentInputs } from './component-inputs';
import { attributesSchema, fieldSchema, recordSchema, schemaBase } from './records';
import { object } from './schema';
import type { OperationObject, PathItemObject, Ref, Schema } from './types';
import { idempotencyKey, replayedHeader, writableAttributes } from './writes';

export const OPERATIONS_TAG = 'Atomic operations';

/** What the request can answer: a refused operation's status among the single writes', and 413 beyond 100 operations or 1 MiB. */
const OPERATION_ERRORS: readonly ErrorStatus[] = [400, 403, 404, 409, 413, 422];

type Action = 'create' | 'update' | 'delete';
const WRITE_ACTIONS: readonly Action[] = ['create', 'update', 'delete'];

/** The resources a key may write, with the actions it may take on each. */
const writable = (context: DocumentContext, exposed: readonly Resource[]) =>
  exposed
    .map((resource) => ({ resource, actions: WRITE_ACTIONS.filter((action) => allows(context.grants, resource.id, action)) }))
    .filter((entry) => entry.actions.length > 0);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The `href` of an operation on this resource: its path, a record below it where named, a `locale` query. */
const hrefSchema = (resource: Resource, record: boolean): Schema => {
  const path = escapeRegExp(resourcePath(resource));
  return {
    type: 'string',
    pattern: `^${path}${record ? '/[^/?#]+' : ''}(\\?locale=[^&#]+)?$`,
    description: `The ${record ? 'record' : 'resource'}'s path below the API base (the single write's URL), \`?locale=\` optional.`,
  };
};

const typeSchema = (resource: Resource): Schema => ({ type: 'string', const: resource.slug, description: 'The resource slug.' });
const LID: Schema = {
  type: 'string',
  minLength: 1,
  description: 'A local id: later operations of this request name the record by it (`ref.lid`, `{ "lid" }` in references).',
};
const ID: Schema = { type: 'string', minLength: 1, description: "The record's id (or slug)." };

/** `ref` of update and remove: the record by id or lid; a CMS resource is named by `href` instead of a type. */
const refSchema = (resource: Resource): Schema => ({
  oneOf: [
    object({ type: typeSchema(resource), id: ID }, resource.sourceType === 'cms' ? ['id'] : ['type', 'id']),
    object({ type: typeSchema(resource), lid: LID }, ['lid']),
  ],
});

/** The schemas a field refers to, with relations that also take lid references. */
const atomicKit = (context: DocumentContext, resource: Resource): { kit: SchemaKit } => {
  const projection = () => context.projectionOf(resource);
  return {
    kit: withComponentInputs(
      context,
      projection,
      {
        ...schemaBase(context, projection),
        relationInput: () => atomicRelationInput(context.components),
        relationChanges: () => atomicRelationChanges(context.components),
      },
      'AtomicInput',
      fieldSchema,
    ),
  };
};

/** The operations the key may send for one resource. */
const operationSchemas = (context: DocumentContext, resource: Resource, actions: readonly Action[]): Schema[] => {
  const cms = resource.sourceType === 'cms';
  const schemas: Schema[] = [];
  const target = (record: boolean) => ({ href: hrefSchema(resource, record) });
  if (actions.includes('create') && resource.mode === 'collection') {
    schemas.push(
      object(
        {
          op: { type: 'string', const: 'add' },
          ...target(false),
          data: object(
            {
              type: typeSchema(resource),
              lid: LID,
              attributes: writableAttributes(context, resource, 'Create', atomicKit(context, resource)),
            },
            ['type', 'attributes'],
          ),
        },
        cms ? ['op', 'href', 'data'] : ['op', 'data'],
        { description: `Add a record to ${resource.id}.` },
      ),
    );
  }
  if (actions.includes('update')) {
    const singleton = resource.mode === 'singleton';
    schemas.push(
      object(
        {
          op: { type: 'string', const: 'update' },
          ...(singleton ? {} : { ref: refSchema(resource) }),
          ...target(!singleton),
          data: object(
            {
              type: typeSchema(resource),
              ...(singleton ? {} : { id: ID, lid: LID }),
              attributes: writableAttributes(context, resource, 'Update', atomicKit(context, resource)),
            },
            ['type', 'attributes'],
          ),
        },
        ['op', 'data'],
        {
          description: `Change a record of ${resource.id}: only the fields sent. Name the record in \`ref\`, \`data.id\` or \`href\`${cms ? ' (a CMS resource: `href`, or `ref.lid`)' : ''}.`,
        },
      ),
    );
  }
  if (actions.includes('delete') && resource.mode === 'collection') {
    schemas.push(
      object({ op: { type: 'string', const: 'remove' }, ref: refSchema(resource), ...target(true) }, ['op'], {
        description: `${resource.deleteMode === 'archive' ? 'Archive' : 'Remove'} a record of ${resource.id}, named in \`ref\` or \`href\`.`,
      }),
    );
  }
  return schemas;
};

/** `atomic:results[n]` of an operation on this resource: the record as reads show it, its archived state, or nothing. */
const resultSchemas = (context: DocumentContext, resource: Resource, actions: readonly Action[]): (Schema | Ref)[] => {
  const results: (Schema | Ref)[] = [];
  if (actions.includes('create') || actions.includes('update')) results.push(object({ data: recordSchema(context, resource) }));
  if (actions.includes('delete') && resource.deleteMode === 'archive') {
    results.push(
      object({
        data: object({
          type: typeSchema(resource),
          id: { type: 'string' },
          attributes: attributesSchema(context, resource),
          meta: archivedRecordMeta(context.components),
        }),
      }),
    );
  }
  return results;
};

/** The path item of POST /operations, or none for a key that may write nothing. */
export const operationsPath = (context: DocumentContext, exposed: readonly Resource[]): Record<string, PathItemObject> => {
  const entries = writable(context, exposed);
  if (entries.length === 0) return {};
  const { components } = context;
  const operations = entries.flatMap(({ resource, actions }) => operationSchemas(context, resource, actions));
  const results = entries.flatMap(({ resource, actions }) => resultSchemas(context, resource, actions));
  const request = components.schema('AtomicOperationsRequest', () =>
    object({
      [OPERATIONS_MEMBER]: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_OPERATIONS,
        items: { anyOf: operations },
        description:
          'The operations, run in order in one transaction: all or nothing. A relation may name a record added by an earlier operation as `{ "lid": "..." }`.',
      },
    }),
  );
  const response = components.schema('AtomicOperationsResults', () =>
    object({
      jsonapi: jsonApi(components),
      [RESULTS_MEMBER]: {
        type: 'array',
        maxItems: MAX_OPERATIONS,
        items: { anyOf: [...results, object({}, [], { description: 'A removed record.' })] },
        description: 'One result per operation, in their order.',
      },
    }),
  );
  const operation: OperationObject = {
    operationId: 'runAtomicOperations',
    summary: 'Run up to 100 writes in one transaction',
    description:
      'JSON:API Atomic Operations: `add`, `update` and `remove` on the resources this key may write, each checked as the single write is, in one transaction. The first refused operation rolls back every other; its errors point into it (`/atomic:operations/<n>/...`). CMS resources are named by `href`. Idempotency-Key covers the whole request.',
    tags: [OPERATIONS_TAG],
    parameters: [idempotencyKey(components)],
    requestBody: {
      description: `At most ${MAX_OPERATIONS} operations and 1 MiB of JSON.`,
      required: true,
      content: { [ATOMIC_MEDIA_TYPE]: { schema: request } },
    },
    responses: {
      '200': {
        description: 'Every operation ran; their results, in order.',
        headers: { 'Idempotent-Replayed': replayedHeader(components) },
        content: { [ATOMIC_MEDIA_TYPE]: { schema: response } },
      },
      ...errorResponses(components, OPERATION_ERRORS, { body: true }),
    },
  };
  return { '/operations': { post: operation } };
};
