/**
 * Commands an application registers (contract section 18): each malformed definition, a second command
 * of one name, and a registration after bootstrap throw one line naming the command and what is wrong;
 * what was registered is kept as checked, in name order.
 */
import { z } from 'zod';
import { inputSchemaProblem } from '../../src/plugins/public-api/server/src/commands';
import {
  CommandRegistrationError,
  createCommandRegistry,
  MAX_COMMAND_FILE_BYTES,
} from '../../src/plugins/public-api/server/src/commands/registry';
import type { CommandDefinition } from '../../src/plugins/public-api/server/src/public';
import { COMMANDS } from '../../src/commands';

const ping = {
  name: 'ping',
  description: 'Answers pong.',
  input: ({ z: zod }: { z: typeof z }) => zod.strictObject({ message: zod.string().max(10).optional() }),
  run: async () => ({ status: 'pong' }),
} satisfies CommandDefinition;

const registering = (definition: unknown) => () => createCommandRegistry().register(definition);

test("this application's commands register", () => {
  const registry = createCommandRegistry();
  for (const command of COMMANDS) registry.register(command);
  registry.close();
  expect(registry.names()).toEqual(['job-application', 'newsletter-signup']);
  for (const command of registry.all()) expect(inputSchemaProblem(command)).toBeNull();
});

test.each([
  ['not an object', 'ping', "A public-api command must be an object, got 'ping'."],
  [
    'no name',
    { ...ping, name: undefined },
    'The public-api command undefined has no usable name: lowercase letters, digits and dashes, starting with a letter (at most 64).',
  ],
  [
    'a name that is no path segment',
    { ...ping, name: 'Send Mail' },
    "The public-api command 'Send Mail' has no usable name: lowercase letters, digits and dashes, starting with a letter (at most 64).",
  ],
  [
    'the name of the listing',
    { ...ping, name: 'schema' },
    "The public-api command 'schema' is reserved by /commands/schema; choose another name.",
  ],
  [
    'an unknown member',
    { ...ping, handler: ping.run },
    "The public-api command 'ping' has an unknown member 'handler' (name, description, input, files, check, run).",
  ],
  ['no description', { ...ping, description: ' ' }, "The public-api command 'ping' needs a description of 1 to 2000 characters."],
  [
    'an input that is no function',
    { ...ping, input: z.object({}) },
    "The public-api command 'ping' needs input: ({ z, locales }) => a zod object schema of its attributes.",
  ],
  ['no run', { ...ping, run: undefined }, "The public-api command 'ping' needs run: an async function of its input and context."],
  ['a check that is no function', { ...ping, check: [] }, "The public-api command 'ping' has a check that is not a function."],
  [
    'empty files',
    { ...ping, files: {} },
    "The public-api command 'ping' has files that are not an object of file parts by name (leave it out for a command without files).",
  ],
  [
    'a file part named as the document',
    { ...ping, files: { data: { description: 'x', kinds: ['pdf'], maxBytes: 10 } } },
    "The public-api command 'ping' file part 'data' is not a usable part name (letters, digits, _ and -, starting with a letter; `data` holds the document).",
  ],
  [
    'a file rule with an unknown member',
    { ...ping, files: { cv: { description: 'x', kinds: ['pdf'], maxBytes: 10, maxFiles: 2 } } },
    "The public-api command 'ping' files.cv has an unknown member 'maxFiles' (description, kinds, maxBytes).",
  ],
  [
    'a file kind the plugin cannot recognize',
    { ...ping, files: { photo: { description: 'A photo.', kinds: ['jpeg'], maxBytes: 10 } } },
    "The public-api command 'ping' files.photo.kinds must list file kinds the plugin recognizes by content: pdf, docx.",
  ],
  [
    'no file kinds',
    { ...ping, files: { cv: { description: 'x', kinds: [], maxBytes: 10 } } },
    "The public-api command 'ping' files.cv.kinds must list file kinds the plugin recognizes by content: pdf, docx.",
  ],
  [
    'an unbounded file',
    { ...ping, files: { cv: { description: 'x', kinds: ['pdf'], maxBytes: MAX_COMMAND_FILE_BYTES + 1 } } },
    `The public-api command 'ping' files.cv.maxBytes must be a whole number of bytes from 1 to ${MAX_COMMAND_FILE_BYTES} (100 MiB).`,
  ],
  [
    'a file without a description',
    { ...ping, files: { cv: { kinds: ['pdf'], maxBytes: 10 } } },
    "The public-api command 'ping' files.cv.description must be a text of 1 to 2000 characters.",
  ],
])('%s: one line', (_case, definition, message) => {
  expect(registering(definition)).toThrow(new CommandRegistrationError(message));
  expect(message).not.toContain('\n');
});

test('a second command of one name throws', () => {
  const registry = createCommandRegistry();
  registry.register(ping);
  expect(() => registry.register({ ...ping, description: 'Another.' })).toThrow("The public-api command 'ping' is registered twice.");
  expect(registry.all()).toHaveLength(1);
  expect(registry.find('ping')!.description).toBe('Answers pong.');
});

test('a registration after bootstrap throws, and changes nothing', () => {
  const registry = createCommandRegistry();
  registry.register(ping);
  registry.close();
  expect(() => registry.register({ ...ping, name: 'late' })).toThrow(
    "The public-api command 'late' was registered after the plugin's bootstrap: register commands in the application's register().",
  );
  expect(registry.names()).toEqual(['ping']);
});

test('commands are listed by name, as checked: a change to the object registered is not seen', () => {
  const registry = createCommandRegistry();
  const files = { cv: { description: 'A CV.', kinds: ['pdf' as const], maxBytes: 1024 } };
  const zeta = { ...ping, name: 'zeta', files };
  registry.register(zeta);
  registry.register({ ...ping, name: 'alpha' });
  zeta.description = 'Changed.';
  files.cv.maxBytes = 10 * MAX_COMMAND_FILE_BYTES;
  expect(registry.names()).toEqual(['alpha', 'zeta']);
  expect(registry.find('zeta')).toMatchObject({ description: 'Answers pong.', files: { cv: { maxBytes: 1024 } } });
  expect(registry.find('beta')).toBeNull();
});

test.each([
  ['an input that is not an object schema', { ...ping, input: ({ z: zod }: { z: typeof z }) => zod.string() }, /is not an object schema/],
  [
    'an input JSON Schema cannot say',
    { ...ping, input: ({ z: zod }: { z: typeof z }) => zod.strictObject({ at: zod.date() }) },
    /cannot be published as JSON Schema/,
  ],
  [
    'an input that throws',
    {
      ...ping,
      input: () => {
        throw new Error('no locales');
      },
    },
    /its input threw: no locales/,
  ],
])('%s is found at start', (_case, definition, problem) => {
  expect(inputSchemaProblem(definition as unknown as CommandDefinition)).toMatch(problem);
});
