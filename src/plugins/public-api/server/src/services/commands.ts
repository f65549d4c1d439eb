/**
 * The commands service (contract section 18): where an application registers its commands, from its own
 * `register()`, and where the plugin finds them (grants, the schema listing, the OpenAPI document, runs).
 * Registration closes when the plugin bootstraps; from then on the list is fixed for the process.
 */
import type { Core } from '@strapi/strapi';
import { inputSchemaProblem } from '../commands';
import { CommandRegistrationError, createCommandRegistry } from '../commands/registry';
import type { z } from 'zod';
import type { CommandDefinition } from '../commands/types';

export default ({ strapi: _strapi }: { strapi: Core.Strapi }) => {
  const registry = createCommandRegistry();
  return {
    /** The one method an application calls (PublicApiCommands, public.ts). */
    register<Schema extends z.ZodType>(command: CommandDefinition<Schema>): void {
      registry.register(command);
    },

    /** At bootstrap: no more registrations, and each input schema builds and can be published, or the start stops. */
    close(): void {
      registry.close();
      for (const command of registry.all()) {
        const problem = inputSchemaProblem(command);
        if (problem) throw new CommandRegistrationError(`The public-api command '${command.name}': ${problem}`);
      }
    },

    all: (): readonly CommandDefinition[] => registry.all(),
    find: (name: string): CommandDefinition | null => registry.find(name),
    names: (): readonly string[] => registry.names(),
  };
};
