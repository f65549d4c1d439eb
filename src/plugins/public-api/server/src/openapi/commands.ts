/**
 * The commands a key may run (contract section 10): `POST /commands/{command}` for each granted command
 * the registry holds, and `GET /commands/schema` listing them. A command whose definition carries a
 * zod `input` schema has it as the request's attributes, in JSON Schema 2020-12.
 */
import { inputJsonSchema, type CommandDefinition, type CommandEnvironment } from '../commands';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
import type { Components } from './components';
import { pascal } from './names';
import { errorResponses, jsonApi, object } from './shared';
import { idempotencyKey } from './writes';
import type { OperationObject, PathItemObject, Schema } from './types';

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

export const commandPaths = (
  components: Components,
  commands: readonly CommandDefinition[],
  environment: CommandEnvironment
): Record<string, PathItemObject> => {
  if (commands.length === 0) return {};
  const paths: Record<string, PathItemObject> = {
    '/commands/schema': {
      get: {
        operationId: 'listCommands',
        summary: 'The commands this key may run, with their input schemas',
        tags: [COMMANDS_TAG],
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
                    items: object(
                      {
                        type: { type: 'string', const: 'commands' },
                        id: { type: 'string', enum: commands.map((command) => command.name) },
                        attributes: object({ name: { type: 'string' }, description: { type: 'string' }, inputSchema: { type: 'object' } }),
                        // Commands that take files describe their multipart parts here (JSON Schema cannot).
                        meta: { type: 'object', properties: { multipart: { type: 'object' } } },
                      },
                      ['type', 'id', 'attributes']
                    ),
                  },
                }),
              },
            },
          },
          ...errorResponses(components, [400, 401, 403, 406, 500]),
        },
      },
    },
  };
  for (const command of commands) {
    const operation: OperationObject = {
      operationId: `run${pascal(command.name)}Command`,
      summary: command.description || `Run ${command.name}`,
      tags: [COMMANDS_TAG],
      parameters: [idempotencyKey(components)],
      requestBody: {
        description: 'The command input.',
        required: true,
        content: {
          [JSONAPI_MEDIA_TYPE]: {
            schema: object({ data: object({ type: { type: 'string', const: command.name }, attributes: inputSchemaOf(command, environment) }) }),
          },
        },
      },
      responses: {
        '201': { description: 'The command ran.', content: { [JSONAPI_MEDIA_TYPE]: { schema: resultDocument(components) } } },
        // Commands that take files bound the uploads in flight (503 over the bound).
        ...errorResponses(components, command.files ? [400, 401, 403, 406, 409, 413, 415, 422, 500, 503] : [400, 401, 403, 406, 409, 413, 415, 422, 500]),
      },
    };
    paths[`/commands/${command.name}`] = { post: operation };
  }
  return paths;
};
