/**
 * The commands of a key (contract sections 9 and 10): `GET /commands/schema`, which every key may call
 * (it lists the commands the key is granted, none for some keys), and `POST /commands/{command}` for each
 * granted command the registry holds. A command's zod `input` schema is the request's attributes, in
 * JSON Schema 2020-12; its request bodies are the media types the handler reads: JSON and JSON:API, and
 * multipart/form-data (the document in `data`, each file in its own part) for commands that take files.
 */
import { inputJsonSchema, type CommandDefinition, type CommandEnvironment } from '../commands';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
import { MULTIPART_MEDIA_TYPE } from '../http/multipart';
import { FILE_KINDS } from '../uploads/file-kind';
import type { Components } from './document-components';
import { pascal } from './names';
import { jsonApi } from './envelope';
import { commandInputErrorResponse, errorResponses } from './errors';
import { object } from './schema';
import { REQUEST_MEDIA_TYPES, idempotencyKey } from './writes';
import type { MediaTypeObject, OperationObject, PathItemObject, Schema } from './types';

export const COMMANDS_TAG = 'Commands';

/** The command's own zod-generated schema (the one /commands/schema serves), without its dialect member. */
const inputSchemaOf = (command: CommandDefinition, environment: CommandEnvironment): Schema => {
  const { $schema: _dialect, ...schema } = inputJsonSchema(command, environment) as Schema;
  return schema;
};

const resultDocument = (components: Components): Schema =>
  object({
    jsonapi: jsonApi(components),
    data: object({
      type: { type: 'string', const: 'command-results' },
      id: { type: 'string' },
      attributes: {
        type: 'object',
        required: ['command', 'status'],
        properties: { command: { type: 'string' }, status: { type: 'string' } },
      },
    }),
  });

/** `GET /commands/schema`: every key may call it; its list holds exactly the key's granted commands. */
export const commandListPath = (components: Components, commands: readonly CommandDefinition[], tag: string): PathItemObject => ({
  get: {
    operationId: 'listCommands',
    summary: 'The commands this key may run, with their input schemas',
    description: 'Every key may ask; a key granted no command gets an empty list.',
    tags: [tag],
    responses: {
      '200': {
        description: 'The granted commands.',
        content: {
          [JSONAPI_MEDIA_TYPE]: {
            schema: object({
              jsonapi: jsonApi(components),
              links: object({ self: { type: 'string', format: 'uri' } }),
              data: {
                type: 'array',
                ...(commands.length === 0 ? { maxItems: 0 } : {}),
                items: object(
                  {
                    type: { type: 'string', const: 'commands' },
                    id: commands.length ? { type: 'string', enum: commands.map((command) => command.name) } : { type: 'string' },
                    attributes: object({ name: { type: 'string' }, description: { type: 'string' }, inputSchema: { type: 'object' } }),
                    // Commands that take files describe their multipart parts here (JSON Schema cannot).
                    meta: { type: 'object', properties: { multipart: { type: 'object' } } },
                  },
                  ['type', 'id', 'attributes'],
                ),
              },
            }),
          },
        },
      },
      ...errorResponses(components, [400]),
    },
  },
});

const bytes = (size: number): string => (size % (1024 * 1024) === 0 ? `${size / 1024 / 1024} MiB` : `${size} bytes`);

/**
 * multipart/form-data for a command that takes files: the JSON:API document in the `data` part (a field
 * or a file part, JSON), each file in the part named after it. A file's kind is judged by its bytes.
 */
const multipartBody = (command: CommandDefinition, document: Schema): MediaTypeObject => {
  const files = Object.entries(command.files ?? {});
  const mediaTypesOf = (kinds: readonly (keyof typeof FILE_KINDS)[]) => kinds.map((kind) => FILE_KINDS[kind].mimeType);
  return {
    schema: {
      type: 'object',
      required: ['data'],
      properties: {
        data: { ...document, description: "The command's JSON:API document, as a form field or a file part." },
        ...Object.fromEntries(
          files.map(([name, rule]) => [
            name,
            {
              type: 'string',
              // `format: binary` for tools that predate OpenAPI 3.1's `contentMediaType`.
              format: 'binary',
              contentMediaType: 'application/octet-stream',
              description: `${rule.description} ${mediaTypesOf(rule.kinds).join(' or ')}, at most ${bytes(rule.maxBytes)}; optional (an empty part is no file).`,
            },
          ]),
        ),
      },
      additionalProperties: false,
    },
    encoding: {
      data: { contentType: REQUEST_MEDIA_TYPES.join(', ') },
      ...Object.fromEntries(files.map(([name, rule]) => [name, { contentType: mediaTypesOf(rule.kinds).join(', ') }])),
    },
  };
};

/** `POST /commands/{command}` for each granted command. */
export const commandPaths = (
  components: Components,
  commands: readonly CommandDefinition[],
  environment: CommandEnvironment,
): Record<string, PathItemObject> => {
  const paths: Record<string, PathItemObject> = {};
  for (const command of commands) {
    const document = object({
      data: object({ type: { type: 'string', const: command.name }, attributes: inputSchemaOf(command, environment) }),
    });
    const operation: OperationObject = {
      operationId: `run${pascal(command.name)}Command`,
      summary: command.description || `Run ${command.name}`,
      tags: [COMMANDS_TAG],
      parameters: [idempotencyKey(components)],
      requestBody: {
        description: command.files
          ? 'The command input: a JSON document, or multipart/form-data with the document and its files.'
          : 'The command input.',
        required: true,
        content: {
          ...Object.fromEntries(REQUEST_MEDIA_TYPES.map((type) => [type, { schema: document }])),
          ...(command.files ? { [MULTIPART_MEDIA_TYPE]: multipartBody(command, document) } : {}),
        },
      },
      responses: {
        '201': { description: 'The command ran.', content: { [JSONAPI_MEDIA_TYPE]: { schema: resultDocument(components) } } },
        // 503: shed when the process is at its bound of requests in flight, or (with files) of uploads.
        ...errorResponses(components, [400, 403, 409, 413, 422], { body: true }),
        '422': commandInputErrorResponse(components),
      },
    };
    paths[`/commands/${command.name}`] = { post: operation };
  }
  return paths;
};
