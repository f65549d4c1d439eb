/**
 * The commands the API can execute. Each command is one module (a zod input schema, a handler and a
 * description); registering it here is all it takes for grants, /commands/schema, POST
 * /commands/{command} and the OpenAPI document to know it.
 */
import { z } from 'zod';
import { jobApplication } from './job-application';
import { newsletterSignup } from './newsletter-signup';
import type { CommandDefinition, CommandEnvironment } from './types';

export type { CommandDefinition, CommandEnvironment } from './types';

export const COMMANDS: readonly CommandDefinition[] = [jobApplication, newsletterSignup];

export const commandNames = (): string[] => COMMANDS.map((command) => command.name);

export const findCommand = (name: string): CommandDefinition | null => COMMANDS.find((command) => command.name === name) ?? null;

/** The JSON Schema (2020-12) of a command's attributes, generated from the zod schema that validates them. */
export const inputJsonSchema = (command: CommandDefinition, environment: CommandEnvironment): Record<string, unknown> =>
  z.toJSONSchema(command.input(environment), { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
