/**
 * The key-scoped OpenAPI 3.1 document (contract section 9), built from the registry, the key's grants
 * and projections, the configured locales and the command registry. Pure: the same input gives the
 * same document, byte for byte once serialized.
 *
 * What the key cannot reach is never looked at: resources without an action, fields outside the
 * projections, relations whose target is not exposed, commands not granted. Components are written on
 * first use, so no name from outside the grants can slip in through a shared section either.
 */
import { commandEnvironment, type CommandDefinition } from '../commands';
import { allows, isExposed } from '../grants/projection';
import { projector } from '../grants/projector';
import type { KeyGrants } from '../grants/types';
import type { ErrorStatus } from '../http/errors';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
import { resourcePath } from '../registry/paths';
import type { Resource } from '../registry/types';
import { withCaching } from './caching';
import { COMMANDS_TAG, commandListPath, commandPaths } from './commands';
import { Components, sorted } from './document-components';
import type { DocumentContext } from './context';
import { allocateNames, resourceTag } from './names';
import { collectionParameters, recordParameters } from './parameters';
import { SELF_LINK, collectionDocumentSchema, recordDocumentSchema } from './records';
import { jsonApi } from './envelope';
import { errorResponses } from './errors';
import { object } from './schema';
import type { OpenApiDocument, OperationObject, ParameterObject, PathItemObject, TagObject } from './types';
import { writeOperations } from './writes';
import { OPERATIONS_TAG, operationsPath } from './atomic-operations';
import { syncPath } from './sync';

export type OpenApiInput = {
  /** `{base_url}`: the absolute URL of /api/v2. */
  baseUrl: string;
  grants: KeyGrants;
  /** Every resource that exists now (those the key has no action on are skipped). */
  resources: readonly Resource[];
  /** The configured locale codes. */
  locales: readonly string[];
  /** The command registry (those the key is not granted are skipped). */
  commands: readonly CommandDefinition[];
  /** Whether the key may read drafts (contract section 15); false when absent. */
  preview?: boolean;
};

/** The media types the document itself is served as (see http/media-types.ts). */
export const OPENAPI_MEDIA_TYPES = ['application/json', 'application/vnd.oai.openapi+json'] as const;

export const SECURITY_SCHEME = 'apiKey';
const SERVICE_TAG = 'Service';

/**
 * The statuses a read's handler answers besides the edge's (http/statuses.ts, which errorResponses adds):
 * a query it refuses (400), drafts or an action not granted (403), a resource or record that is not there (404).
 */
const READ_ERRORS: readonly ErrorStatus[] = [400, 403, 404];
/** The index and the documents take no parameter (400). */
const SERVICE_ERRORS: readonly ErrorStatus[] = [400];

/** Names of shared components and fixed operations that no resource may take. */
const RESERVED_NAMES = new Set([
  'JsonApi',
  'ErrorDocument',
  'ErrorObject',
  'RecordMeta',
  'FieldMeta',
  'Asset',
  'RelationInput',
  'AssetInput',
  'ArchivedRecordMeta',
  'ResourceIndex',
  'ResourceIndexDocument',
  'OpenApiDocument',
  'OpenApiDocumentAtOpenapi',
  'OpenApiDocumentAtOpenapiJson',
  'Commands',
  'AtomicOperationsRequest',
  'AtomicOperationsResults',
  'AtomicRelationInput',
  'AtomicRelationListChange',
  'SyncItem',
  'SyncDocument',
]);

const indexOperation = (components: Components, exposed: readonly Resource[]): OperationObject => ({
  operationId: 'getResourceIndex',
  summary: 'The resources this key may use',
  tags: [SERVICE_TAG],
  responses: {
    '200': {
      description: 'The resource index.',
      content: {
        [JSONAPI_MEDIA_TYPE]: {
          schema: components.schema('ResourceIndexDocument', () =>
            object({
              jsonapi: jsonApi(components),
              links: object({ self: SELF_LINK }),
              data: {
                type: 'array',
                ...(exposed.length === 0 ? { maxItems: 0 } : {}),
                items: object(
                  {
                    type: { type: 'string', const: 'resources' },
                    id: exposed.length ? { type: 'string', enum: exposed.map((resource) => resource.id) } : { type: 'string' },
                    attributes: object(
                      {
                        name: { type: 'string' },
                        slug: { type: 'string' },
                        mode: { type: 'string', enum: ['collection', 'singleton'] },
                        sourceType: { type: 'string', enum: ['native', 'cms'] },
                        website: { type: 'string', description: 'CMS resources only: the website slug.' },
                      },
                      ['name', 'slug', 'mode', 'sourceType'],
                    ),
                    links: object({ self: { type: 'string', format: 'uri' } }),
                  },
                  ['type', 'id', 'attributes', 'links'],
                ),
              },
            }),
          ),
        },
      },
    },
    ...errorResponses(components, SERVICE_ERRORS),
  },
});

const schemaOperation = (components: Components, operationId: string, summary: string): OperationObject => ({
  operationId,
  summary,
  description:
    'Served as `application/json`, or as `application/vnd.oai.openapi+json` when the Accept header prefers it. Generated for the calling key: two keys may see different documents.',
  tags: [SERVICE_TAG],
  responses: {
    '200': {
      description: 'The OpenAPI 3.1 document of this key.',
      content: Object.fromEntries(
        OPENAPI_MEDIA_TYPES.map((type) => [type, { schema: { type: 'object', description: 'An OpenAPI 3.1.0 document.' } }]),
      ),
    },
    ...errorResponses(components, SERVICE_ERRORS),
  },
});

const tagDescription = (resource: Resource): string =>
  resource.sourceType === 'cms'
    ? `${resource.name}, published by the website ${resource.website!.slug} as a ${resource.mode} (${resource.id}).`
    : `${resource.name}, a native ${resource.mode} (${resource.id}).`;

const identifierDescription = (resource: Resource): string =>
  resource.identifiers.length > 1 ? "The record's slug or its id (tried as a slug first)." : `The record's ${resource.identifiers[0]}.`;

const recordParameter = (resource: Resource): ParameterObject => ({
  name: 'record',
  in: 'path',
  required: true,
  description: identifierDescription(resource),
  schema: { type: 'string', minLength: 1 },
});

/** The path items of one exposed resource: reads as granted, writes as the writes module says. */
const resourcePaths = (context: DocumentContext, resource: Resource, tag: string): Record<string, PathItemObject> => {
  const name = context.nameOf(resource);
  const path = resourcePath(resource);
  const canRead = allows(context.grants, resource.id, 'read');
  const writes = writeOperations(context, resource, tag);
  const collectionPath: PathItemObject = {};
  const recordPath: PathItemObject = {};

  if (canRead && resource.mode === 'singleton') {
    collectionPath.get = {
      operationId: `get${name}`,
      summary: `Read ${resource.name}`,
      tags: [tag],
      parameters: recordParameters(context, resource),
      responses: {
        '200': {
          description: `The one record of ${resource.name}.`,
          content: { [JSONAPI_MEDIA_TYPE]: { schema: recordDocumentSchema(context, resource) } },
        },
        ...errorResponses(context.components, READ_ERRORS),
      },
    };
  } else if (canRead) {
    collectionPath.get = {
      operationId: `list${name}`,
      summary: `List ${resource.name}`,
      description: 'One page of records. Follow `links.next` until it is absent to read them all.',
      tags: [tag],
      parameters: collectionParameters(context, resource),
      responses: {
        '200': {
          description: `A page of ${resource.name}.`,
          content: { [JSONAPI_MEDIA_TYPE]: { schema: collectionDocumentSchema(context, resource) } },
        },
        ...errorResponses(context.components, READ_ERRORS),
      },
    };
    recordPath.get = {
      operationId: `get${name}Record`,
      summary: `Read a record of ${resource.name}`,
      tags: [tag],
      parameters: recordParameters(context, resource),
      responses: {
        '200': { description: 'The record.', content: { [JSONAPI_MEDIA_TYPE]: { schema: recordDocumentSchema(context, resource) } } },
        ...errorResponses(context.components, READ_ERRORS),
      },
    };
  }
  Object.assign(collectionPath, writes.resource);
  Object.assign(recordPath, writes.record);

  const paths: Record<string, PathItemObject> = {};
  if (Object.keys(collectionPath).length) paths[path] = collectionPath;
  if (Object.keys(recordPath).length) {
    paths[`${path}/{record}`] = {
      'x-service': { identifier: [...resource.identifiers] },
      parameters: [recordParameter(resource)],
      ...recordPath,
    };
  }
  return paths;
};

export const buildOpenApiDocument = (input: OpenApiInput): OpenApiDocument => {
  const { grants } = input;
  const exposed = input.resources.filter((resource) => isExposed(grants, resource.id));
  const components = new Components();
  const names = allocateNames(exposed, RESERVED_NAMES);
  const context: DocumentContext = {
    components,
    grants,
    locales: input.locales,
    nameOf: (resource) => names.get(resource.id)!,
    projectionOf: projector(grants, input.resources),
    preview: input.preview === true,
  };

  const granted = new Set(grants.commands);
  const commands = input.commands.filter((command) => granted.has(command.name));
  const tags: TagObject[] = [{ name: SERVICE_TAG, description: 'The resource index, the list of commands and this document.' }];
  // Self-description every key may call (specification, "Index and self-description").
  const paths: Record<string, PathItemObject> = {
    '/': { get: indexOperation(components, exposed) },
    '/schema': { get: schemaOperation(components, 'getOpenApiDocument', 'This OpenAPI document') },
    '/openapi': { get: schemaOperation(components, 'getOpenApiDocumentAtOpenapi', 'This OpenAPI document (at /openapi)') },
    '/openapi.json': { get: schemaOperation(components, 'getOpenApiDocumentAtOpenapiJson', 'This OpenAPI document (at /openapi.json)') },
    '/commands/schema': commandListPath(components, commands, SERVICE_TAG),
  };
  for (const resource of exposed) {
    const tag = resourceTag(resource);
    const resourceItems = resourcePaths(context, resource, tag);
    if (Object.keys(resourceItems).length === 0) continue;
    tags.push({ name: tag, description: tagDescription(resource) });
    Object.assign(paths, resourceItems);
  }
  const sync = syncPath(context, exposed, SERVICE_TAG);
  Object.assign(paths, sync);
  const atomic = operationsPath(context, exposed);
  if (Object.keys(atomic).length) {
    tags.push({ name: OPERATIONS_TAG, description: 'Several writes in one transaction (JSON:API Atomic Operations).' });
    Object.assign(paths, atomic);
  }
  if (commands.length) {
    tags.push({ name: COMMANDS_TAG, description: 'Commands this key may run.' });
    Object.assign(paths, commandPaths(components, commands, commandEnvironment(input.locales)));
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Public Data API',
      version: '2',
      description:
        'The resources, fields, filters, actions and commands of the API key this document was generated for; another key sees another document. Responses are JSON:API (`application/vnd.api+json`); errors are one error document.',
    },
    servers: [{ url: input.baseUrl, description: 'This service.' }],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags,
    paths: withCaching(components, paths),
    components: {
      schemas: sorted(components.schemas),
      parameters: sorted(components.parameters),
      responses: sorted(components.responses),
      headers: sorted(components.headers),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'pdk_<keyId>_<secret>',
          description: 'The API key, sent as `Authorization: Bearer <key>`. Never in the query string.',
        },
      },
    },
  };
};
