/**
 * The commands the API can execute are the application's (contract section 18): it registers each one
 * through the plugin's `commands` service (services/commands.ts, kept by commands/registry.ts), and that is
 * all it takes for grants, /commands/schema, POST /commands/{command} and the OpenAPI document to know it.
 * The machinery they share stays here: the environment a schema is built in, and the JSON Schema published.
 */
import { z } from 'zod';
import type { CommandDefinition, CommandEnvironment } from './types';

export type { CommandDefinition, CommandEnvironment } from './types';

/** What a command's input schema is built with: the plugin's zod, and the configured locales. */
export const commandEnvironment = (locales: readonly string[]): CommandEnvironment => ({ z, locales });

/** The JSON Schema (2020-12) of a command's attributes, generated from the zod schema that validates them. */
export const inputJsonSchema = (command: CommandDefinition, environment: CommandEnvironment): Record<string, unknown> =>
  z.toJSONSchema(command.input(environment), { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;

/**
 * Why a command's input cannot serve, or null: it must build, in a sample environment, an object schema
 * (a command's attributes are an object) that JSON Schema can say (no transforms to other types, no dates
 * as objects). Checked at start, so that /commands/schema and the OpenAPI document never fail on it later.
 */
export const inputSchemaProblem = (command: CommandDefinition): string | null => {
  const environment = commandEnvironment(['en']);
  let schema: unknown;
  try {
    schema = command.input(environment);
  } catch (error) {
    return `its input threw: ${(error as Error)?.message ?? String(error)}`;
  }
  if (!(schema instanceof z.ZodObject)) return "its input is not an object schema: return the plugin's z.strictObject({ ... }).";
  try {
    inputJsonSchema(command, environment);
  } catch (error) {
    return `its input cannot be published as JSON Schema: ${(error as Error)?.message ?? String(error)}`;
  }
  return null;
};
