/**
 * What a command is (contract sections 10 and 18): a name, a description, a zod schema of its input, and
 * a handler that runs the application's domain logic, writing through Strapi's document service so that
 * the application's rules apply to it as they do in the admin. The application defines its commands and
 * registers them through the plugin's `commands` service (services/commands.ts); these types reach it
 * through the plugin's public module (public.ts).
 */
import type { Core } from '@strapi/strapi';
import type { z } from 'zod';
import type { FileKind } from '../uploads/file-kind';

/** What an input schema may depend on: the deployment's configuration, never the request. */
export type CommandEnvironment = {
  /**
   * The plugin's own zod, to build the schema with: the schema is the plugin's to validate and to publish
   * as JSON Schema, so it is made by the very copy that reads it (no second copy, no version skew).
   */
  z: typeof z;
  /** The locale codes configured in Strapi. */
  locales: readonly string[];
};

/** A file part the command accepts (multipart/form-data only), checked by content, never by name. */
export type FileRule = {
  description: string;
  kinds: readonly FileKind[];
  maxBytes: number;
};

/** A file the request carried, in a temporary place, its kind sniffed from its bytes. */
export type ReceivedFile = {
  path: string;
  size: number;
  kind: FileKind;
};

/** A problem with one attribute the schema cannot see (state in the database): 422 with a pointer. */
export type CommandViolation = {
  path: (string | number)[];
  message: string;
  reason: string;
};

/** An upload file row made of a received file. */
export type StoredFile = { id: number; url: string; hash: string; ext: string; provider: string };

export type CommandContext = {
  strapi: Core.Strapi;
  /** The files the request carried, by part name; absent when not sent. */
  files: Partial<Record<string, ReceivedFile>>;
  /**
   * Stores a received file through the upload plugin under a display name (without extension), in the
   * command's transaction: its bytes stay exactly when the transaction commits, even across a crash.
   */
  store: (file: ReceivedFile, name: string) => Promise<StoredFile>;
  /**
   * Takes a lock named `name` (for this command), held until the command's transaction ends: two runs that
   * take the same name at once, on any instance, run one after the other (a second signup of one address
   * finds the first's record). On SQLite, where writes are serialized anyway, it takes nothing.
   */
  lock: (name: string) => Promise<void>;
  /** The error to throw from `run` when the state changed since `check`: 422 pointing at each attribute. */
  violations: (list: CommandViolation[]) => Error;
};

/** What a command answers beside its name: `status`, and anything else it may disclose. */
export type CommandResult = {
  status: string;
  attributes?: Record<string, unknown>;
};

export type CommandDefinition<Schema extends z.ZodType = z.ZodType> = {
  /** The path segment (`POST /commands/{name}`) and the grant's name: lowercase letters, digits and dashes. */
  name: string;
  /** What the command does, for the schema listing and the OpenAPI document. */
  description: string;
  /**
   * The input's schema, an object schema of the command's attributes (`z.strictObject` refuses unknown ones):
   * it validates the request and is published as JSON Schema, so the two never drift.
   */
  input: (environment: CommandEnvironment) => Schema;
  /** File parts, by name, for commands that accept multipart/form-data. */
  files?: Readonly<Record<string, FileRule>>;
  /**
   * Checks against stored state, run on the attributes as sent (valid or not), so that their problems
   * are reported with the schema's in one answer.
   */
  check?(attributes: Record<string, unknown>, context: CommandContext): Promise<CommandViolation[]>;
  /**
   * Runs the command on valid input inside the request's transaction (an error rolls everything back). May
   * throw `context.violations([...])`. (`check` and `run` are methods so that a command of any input type is a
   * `CommandDefinition` too: the plugin holds them all alike.)
   */
  run(input: z.output<Schema>, context: CommandContext): Promise<CommandResult>;
};

/** The plugin's `commands` service as an application sees it: `strapi.plugin('public-api').service('commands')`. */
export type PublicApiCommands = {
  /**
   * Adds a command: call it from the application's `register()` (after bootstrap it throws, as does a
   * second command of one name or a malformed definition, each with one line saying what is wrong).
   */
  register: <Schema extends z.ZodType>(command: CommandDefinition<Schema>) => void;
};

/** Thrown by `run` (made by `context.violations`) when the state changed between the check and the write: 422 with pointers. */
export class CommandViolations extends Error {
  readonly violations: CommandViolation[];

  constructor(violations: CommandViolation[]) {
    super(violations[0]?.message ?? 'The command input is not valid.');
    this.name = 'CommandViolations';
    this.violations = violations;
  }
}

/**
 * A command as written, returned as it is: its `run` then knows its input's type from `input`. The same can be
 * had with types alone: `const command: CommandDefinition<ReturnType<typeof input>> = { ... }`.
 */
export const defineCommand = <Schema extends z.ZodType>(command: CommandDefinition<Schema>): CommandDefinition<Schema> => command;
