/**
 * This application's commands (contract section 10), registered with the public-api plugin from the
 * application's register() (src/index.ts): the plugin serves, grants, validates and documents them; each
 * module here holds its domain logic.
 */
import type { CommandDefinition, PublicApiCommands } from '../plugins/public-api/server/src/public';
import { jobApplication } from './job-application';
import { newsletterSignup } from './newsletter-signup';

export const COMMANDS: readonly CommandDefinition[] = [jobApplication, newsletterSignup];

export const registerCommands = (commands: PublicApiCommands): void => {
  for (const command of COMMANDS) commands.register(command);
};
