/**
 * The plugin's public TypeScript API: what an application writes against to configure it and to add its
 * own commands (contract section 18; docs/api.md, "Commands an application adds"). Everything else in the
 * plugin is its own business and may change; what is named here changes only with the plugin's major version.
 *
 * ```ts
 * // src/index.ts of the application
 * register({ strapi }) {
 *   const commands = strapi.plugin('public-api').service('commands') as PublicApiCommands;
 *   commands.register(newsletterSignup);
 * }
 * ```
 */
export type {
  CommandContext,
  CommandDefinition,
  CommandEnvironment,
  CommandResult,
  CommandViolation,
  FileRule,
  PublicApiCommands,
  ReceivedFile,
  StoredFile,
} from './commands/types';
export { defineCommand } from './commands/types';
export type { FileKind } from './uploads/file-kind';
export type { NativeResourceConfig } from './config/native-resources';
export type { DeleteMode } from './registry/types';
