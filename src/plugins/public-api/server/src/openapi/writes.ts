/**
 * The write operations of a resource as CONTRACT.md section 7 describes them: POST, PATCH and DELETE
 * for the actions the key holds, their request bodies (`<Resource>CreateWritableAttributes`,
 * `<Resource>UpdateWritableAttributes`), Idempotency-Key, Location, and the error statuses.
 *
 * Everything the document says about writes lives in this module, so that it can follow the write
 * handlers as they land without touching the rest of the builder. Request schemas say what is
 * accepted, including the shapes reads send (a reference or asset object read can be written back).
 */
import { takesLocale } from '../grants/projection';
import type { ErrorStatus } from '../http/errors';
import { IDEMPOTENCY_KEY_PATTERN } from '../http/idempotency';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
import type { SchemaKit } from '../fields/codec';
import { codecOf } from '../fields/table';
import type { Field, Resource } from '../registry/types';
import type { Components } from './document-components';
import type { DocumentContext } from './context';
import { localeParameter } from './parameters';
import { SELF_LINK, attributesSchema, fieldSchema, recordDocumentSchema, schemaKit } from './records';
import { jsonApi } from './envelope';
import { errorResponses } from './errors';
import { archivedRecordMeta, fieldMeta } from './meta';
import { object } from './schema';
import type { OperationObject, ParameterObject, Ref, RequestBodyObject, ResponseObject, Schema } from './types';

/**
 * Statuses a write's handler answers with besides its success (contract sections 4, 7, 8, 12); the edge's
 * and a body's are added by errorResponses (http/statuses.ts).
 */
export const CREATE_ERRORS: readonly ErrorStatus[] = [400, 403, 404, 409, 422];
export const UPDATE_ERRORS: readonly ErrorStatus[] = [400, 403, 404, 409, 422];
/** A DELETE takes no body (400 when it has one) and no Idempotency-Key; the content type's rules may still refuse it. */
export const DELETE_ERRORS: readonly ErrorStatus[] = [400, 403, 404, 409, 422];

/** Request bodies: JSON:API's media type or plain JSON (contract section 7). */
export const REQUEST_MEDIA_TYPES = [JSONAPI_MEDIA_TYPE, 'application/json'] as const;

export const idempotencyKey = (components: Components): Ref =>
  components.parameter('IdempotencyKey', () => ({
    name: 'Idempotency-Key',
    in: 'header',
    description:
      'A fresh unique value (e.g. a UUID) per logical operation, reused for its retries: 1 to 255 printable ASCII characters, bare or in double quotes (`"abc"` and `abc` are one key), sent once. A retry with the same request replays the stored response with `Idempotent-Replayed: true`; the same key with a different request is 422; a retry while the first is still running is 409. Kept for 24 hours.',
    schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
  }));

export const replayedHeader = (components: Components): Ref =>
  components.header('Idempotent-Replayed', () => ({
    description: 'Present, `true`, when the response is a replay of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  }));

const locationHeader = (components: Components): Ref =>
  components.header('Location', () => ({
    description: 'The URL of the created record.',
    schema: { type: 'string', format: 'uri' },
  }));

/**
 * A writable field's value, with the content type's own rules (required, min/max, length, regex, options).
 * `kit`: the schemas its type refers to (atomic operations add lid references to relation inputs).
 */
export const writeFieldSchema = (
  context: DocumentContext,
  resource: Resource,
  field: Field,
  action: 'create' | 'update',
  kit: SchemaKit = schemaKit(context, resource),
): Schema => fieldSchema(codecOf(field).writeSchema(field, kit, { isSlug: field.key === resource.slugAttribute, action }), field);

/** Fields a create must carry: required by the content type, without a default, and not the slug. */
const requiredOnCreate = (resource: Resource, field: Field): boolean =>
  field.required && field.attribute.default === undefined && field.key !== resource.slugAttribute;

/**
 * `<Resource>CreateWritableAttributes` / `<Resource>UpdateWritableAttributes`, or with `atomic` the same
 * fields for an atomic operation, whose relations also take lid references
 * (`<Resource>CreateAtomicAttributes`, `<Resource>UpdateAtomicAttributes`, openapi/atomic-operations.ts).
 */
export const writableAttributes = (
  context: DocumentContext,
  resource: Resource,
  action: 'Create' | 'Update',
  atomic?: { kit: SchemaKit },
): Ref =>
  context.components.schema(`${context.nameOf(resource)}${action}${atomic ? 'AtomicAttributes' : 'WritableAttributes'}`, () => {
    const writable = context.projectionOf(resource).writable;
    const properties = Object.fromEntries(
      writable.map((field) => [
        field.key,
        writeFieldSchema(context, resource, field, action === 'Create' ? 'create' : 'update', atomic?.kit),
      ]),
    );
    const required = action === 'Create' ? writable.filter((field) => requiredOnCreate(resource, field)).map((field) => field.key) : [];
    return object(properties, required, {
      description:
        action === 'Create'
          ? `The fields of ${resource.id} this key may write when creating; any other attribute is refused with 422.`
          : `The fields of ${resource.id} this key may change; only the fields sent change, any other attribute is refused with 422.`,
    });
  });

const requestBody = (context: DocumentContext, resource: Resource, action: 'Create' | 'Update'): RequestBodyObject => {
  const schema = context.components.schema(`${context.nameOf(resource)}${action}Request`, () =>
    object(
      {
        data: object(
          {
            type: { type: 'string', const: resource.slug, description: 'The resource slug; anything else is 409.' },
            ...(action === 'Update'
              ? { id: { type: 'string', description: "The record's id; when present it must be the record of the path (else 409)." } }
              : {}),
            attributes: writableAttributes(context, resource, action),
          },
          ['type', 'attributes'],
        ),
      },
      ['data'],
    ),
  );
  return {
    description: 'At most 1 MiB of JSON.',
    required: true,
    content: Object.fromEntries(REQUEST_MEDIA_TYPES.map((type) => [type, { schema }])),
  };
};

const recordResponse = (
  context: DocumentContext,
  resource: Resource,
  description: string,
  headers?: ResponseObject['headers'],
): ResponseObject => ({
  description,
  ...(headers ? { headers } : {}),
  content: { [JSONAPI_MEDIA_TYPE]: { schema: recordDocumentSchema(context, resource) } },
});

/** An archived record's last state: as reads showed it, with no publication date any more. */
const archivedResponse = (context: DocumentContext, resource: Resource): ResponseObject => {
  const { components } = context;
  const meta = archivedRecordMeta(components);
  return {
    description: 'The record is archived (unpublished): its final state. It disappears from reads.',
    content: {
      [JSONAPI_MEDIA_TYPE]: {
        schema: object({
          jsonapi: jsonApi(components),
          links: object({ self: SELF_LINK }),
          meta: object({
            resource: object({
              name: { type: 'string', const: resource.name },
              slug: { type: 'string', const: resource.slug },
              mode: { type: 'string', const: resource.mode },
            }),
            fields: { type: 'array', items: fieldMeta(components) },
          }),
          data: object({
            type: { type: 'string', const: resource.slug },
            id: { type: 'string' },
            attributes: attributesSchema(context, resource),
            meta,
          }),
        }),
      },
    },
  };
};

export type WriteOperations = {
  /** On the resource path: POST for collections, PATCH for singletons. */
  resource: { post?: OperationObject; patch?: OperationObject };
  /** On the record path of a collection. */
  record: { patch?: OperationObject; delete?: OperationObject };
};

/** The write operations the key's grant allows on a resource. */
export const writeOperations = (context: DocumentContext, resource: Resource, tag: string): WriteOperations => {
  const { components } = context;
  const name = context.nameOf(resource);
  const actions = context.projectionOf(resource).grant.actions;
  // Written into the components only when an operation takes them; `locale` picks the version written.
  const locale = (): (ParameterObject | Ref)[] => (takesLocale(context.projectionOf(resource)) ? [localeParameter(context)] : []);
  const idempotent = (): (ParameterObject | Ref)[] => [idempotencyKey(components), ...locale()];
  const result: WriteOperations = { resource: {}, record: {} };

  const update = (operationId: string, summary: string): OperationObject => ({
    operationId,
    summary,
    description: 'Only the fields sent change.',
    tags: [tag],
    parameters: idempotent(),
    requestBody: requestBody(context, resource, 'Update'),
    responses: {
      '200': recordResponse(context, resource, 'The record after the change.', { 'Idempotent-Replayed': replayedHeader(components) }),
      ...errorResponses(components, UPDATE_ERRORS, { body: true }),
    },
  });

  if (resource.mode === 'singleton') {
    if (actions.includes('update')) result.resource.patch = update(`update${name}`, `Change ${resource.name}`);
    return result;
  }
  if (actions.includes('create')) {
    result.resource.post = {
      operationId: `create${name}Record`,
      summary: `Create a record of ${resource.name}`,
      description: 'The record is published. A missing slug is generated; a duplicate slug is 409.',
      tags: [tag],
      parameters: idempotent(),
      requestBody: requestBody(context, resource, 'Create'),
      responses: {
        '201': recordResponse(context, resource, 'The created record.', {
          Location: locationHeader(components),
          'Idempotent-Replayed': replayedHeader(components),
        }),
        ...errorResponses(components, CREATE_ERRORS, { body: true }),
      },
    };
  }
  if (actions.includes('update')) result.record.patch = update(`update${name}Record`, `Change a record of ${resource.name}`);
  if (actions.includes('delete')) {
    const success: Record<string, ResponseObject> =
      resource.deleteMode === 'archive'
        ? { '200': archivedResponse(context, resource) }
        : { '204': { description: 'The record is removed.' } };
    const parameters = locale();
    result.record.delete = {
      operationId: `delete${name}Record`,
      summary: resource.deleteMode === 'archive' ? `Archive a record of ${resource.name}` : `Remove a record of ${resource.name}`,
      tags: [tag],
      ...(parameters.length ? { parameters } : {}),
      responses: { ...success, ...errorResponses(components, DELETE_ERRORS) },
    };
  }
  return result;
};
