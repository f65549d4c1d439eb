/**
 * The commands an application registered (contract section 18), checked as they come: a malformed
 * definition, a second command of one name, or one registered once the plugin has bootstrapped (the
 * grants, the schema listing and the OpenAPI document are built from this list then) throws one line
 * naming the command and what is wrong, and the start stops. Pure.
 */
import { FILE_KINDS, type FileKind } from '../uploads/file-kind';
import { quoted } from '../utils/quoted';
import type { CommandDefinition } from './types';

/** A name is a path segment (`/commands/{name}`) and a grant: as a resource slug. */
const COMMAND_NAME = /^[a-z][a-z0-9-]{0,62}[a-z0-9]$|^[a-z]$/;

/** `GET /commands/schema` is the listing: a command of that name could never be run. */
const RESERVED_COMMAND_NAMES: readonly string[] = ['schema'];

/** A file part's name is a multipart field name, beside the document's own part, `data`. */
const FILE_PART_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * The largest file a command may accept: a multipart body is held in memory while it is received (the
 * uploads in flight bound how many at once), so a rule above this would be a way to exhaust it.
 */
export const MAX_COMMAND_FILE_BYTES = 100 * 1024 * 1024;

const MAX_DESCRIPTION_LENGTH = 2_000;

const DEFINITION_MEMBERS = ['name', 'description', 'input', 'files', 'check', 'run'];
const FILE_RULE_MEMBERS = ['description', 'kinds', 'maxBytes'];

export class CommandRegistrationError extends Error {
  override name = 'CommandRegistrationError';
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max;

const unknownMember = (value: Record<string, unknown>, known: readonly string[]): string | undefined =>
  Object.keys(value).find((member) => !known.includes(member));

const fileRuleProblem = (part: string, rule: unknown): string | null => {
  if (!FILE_PART_NAME.test(part) || part === 'data') {
    return `file part '${part}' is not a usable part name (letters, digits, _ and -, starting with a letter; \`data\` holds the document).`;
  }
  if (!isRecord(rule)) return `files.${part} must be an object { description, kinds, maxBytes }.`;
  const unknown = unknownMember(rule, FILE_RULE_MEMBERS);
  if (unknown !== undefined) return `files.${part} has an unknown member '${unknown}' (description, kinds, maxBytes).`;
  if (!isText(rule.description, MAX_DESCRIPTION_LENGTH))
    return `files.${part}.description must be a text of 1 to ${MAX_DESCRIPTION_LENGTH} characters.`;
  const kinds = Object.keys(FILE_KINDS) as FileKind[];
  if (!Array.isArray(rule.kinds) || rule.kinds.length === 0 || rule.kinds.some((kind) => !kinds.includes(kind as FileKind))) {
    return `files.${part}.kinds must list file kinds the plugin recognizes by content: ${kinds.join(', ')}.`;
  }
  const { maxBytes } = rule;
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_COMMAND_FILE_BYTES) {
    return `files.${part}.maxBytes must be a whole number of bytes from 1 to ${MAX_COMMAND_FILE_BYTES} (100 MiB).`;
  }
  return null;
};

/** The first thing wrong with a definition, without its name (the caller says whose it is), or null. */
const definitionProblem = (definition: Record<string, unknown>): string | null => {
  const unknown = unknownMember(definition, DEFINITION_MEMBERS);
  if (unknown !== undefined) return `has an unknown member '${unknown}' (${DEFINITION_MEMBERS.join(', ')}).`;
  if (!isText(definition.description, MAX_DESCRIPTION_LENGTH)) return `needs a description of 1 to ${MAX_DESCRIPTION_LENGTH} characters.`;
  if (typeof definition.input !== 'function') return 'needs input: ({ z, locales }) => a zod object schema of its attributes.';
  if (typeof definition.run !== 'function') return 'needs run: an async function of its input and context.';
  if (definition.check !== undefined && typeof definition.check !== 'function') return 'has a check that is not a function.';
  if (definition.files !== undefined) {
    if (!isRecord(definition.files) || Object.keys(definition.files).length === 0) {
      return 'has files that are not an object of file parts by name (leave it out for a command without files).';
    }
    for (const [part, rule] of Object.entries(definition.files)) {
      const problem = fileRuleProblem(part, rule);
      if (problem) return problem;
    }
  }
  return null;
};

export type CommandRegistry = {
  register: (definition: unknown) => void;
  /** Ends registration: the plugin bootstraps, and what is registered now is what the API serves. */
  close: () => void;
  /** The commands, by name. */
  all: () => readonly CommandDefinition[];
  find: (name: string) => CommandDefinition | null;
  names: () => readonly string[];
};

export const createCommandRegistry = (): CommandRegistry => {
  const byName = new Map<string, CommandDefinition>();
  let closed = false;
  let sorted: readonly CommandDefinition[] | null = null;
  let names: readonly string[] | null = null;
  const all = () => (sorted ??= [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  return {
    register(definition) {
      const name = isRecord(definition) ? definition.name : undefined;
      const command = `The public-api command ${quoted(name)}`;
      if (closed) {
        throw new CommandRegistrationError(
          `${command} was registered after the plugin's bootstrap: register commands in the application's register().`,
        );
      }
      if (!isRecord(definition)) throw new CommandRegistrationError(`A public-api command must be an object, got ${quoted(definition)}.`);
      if (typeof name !== 'string' || !COMMAND_NAME.test(name)) {
        throw new CommandRegistrationError(
          `${command} has no usable name: lowercase letters, digits and dashes, starting with a letter (at most 64).`,
        );
      }
      if (RESERVED_COMMAND_NAMES.includes(name))
        throw new CommandRegistrationError(`${command} is reserved by /commands/${name}; choose another name.`);
      if (byName.has(name)) throw new CommandRegistrationError(`${command} is registered twice.`);
      const problem = definitionProblem(definition);
      if (problem) throw new CommandRegistrationError(`${command} ${problem}`);
      // A copy, frozen: what was checked is what runs, whatever the application does to its object later.
      const files = definition.files as CommandDefinition['files'];
      byName.set(
        name,
        Object.freeze({
          ...(definition as unknown as CommandDefinition),
          ...(files
            ? {
                files: Object.freeze(
                  Object.fromEntries(
                    Object.entries(files).map(([part, rule]) => [part, Object.freeze({ ...rule, kinds: Object.freeze([...rule.kinds]) })]),
                  ),
                ),
              }
            : {}),
        }),
      );
      sorted = null;
      names = null;
    },
    close() {
      closed = true;
    },
    all,
    find: (name) => byName.get(name) ?? null,
    names: () => (names ??= all().map((command) => command.name)),
  };
};
