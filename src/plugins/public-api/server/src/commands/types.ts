/**
 * What a command is (contract section 10): a name, a description, a zod schema of its input, and a
 * handler that writes through Strapi's document service, so the application's rules apply to it as
 * they do in the admin.
 */
import type { Core } from '@strapi/strapi';
import type { z } from 'zod';
import type { FileKind } from '../uploads/file-kind';

/** What an input schema may depend on: the deployment's configuration, never the request. */
export type CommandEnvironment = {
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
};

/** What a command answers beside its name: `status`, and anything else it may disclose. */
export type CommandResult = {
  status: string;
  attributes?: Record<string, unknown>;
};

export type CommandDefinition<Schema extends z.ZodType = z.ZodType> = {
  name: string;
  description: string;
  /** The input's schema: it validates the request and is published as JSON Schema, so the two never drift. */
  input: (environment: CommandEnvironment) => Schema;
  /** File parts, by name, for commands that accept multipart/form-data. */
  files?: Readonly<Record<string, FileRule>>;
  /**
   * Checks against stored state, run on the attributes as sent (valid or not), so that their problems
   * are reported with the schema's in one answer.
   */
  check?: (attributes: Record<string, unknown>, context: CommandContext) => Promise<CommandViolation[]>;
  /** Runs the command on valid input inside the request's transaction. May throw CommandViolations. */
  run: (input: z.output<Schema>, context: CommandContext) => Promise<CommandResult>;
};

/** Thrown by `run` when the state changed between the check and the write: 422 with pointers. */
export class CommandViolations extends Error {
  readonly violations: CommandViolation[];

  constructor(violations: CommandViolation[]) {
    super(violations[0]?.message ?? 'The command input is not valid.');
    this.name = 'CommandViolations';
    this.violations = violations;
  }
}

/** Keeps each command's schema type tied to its handler while the registry holds them all alike. */
export const defineCommand = <Schema extends z.ZodType>(command: CommandDefinition<Schema>): CommandDefinition =>
  command as unknown as CommandDefinition;
