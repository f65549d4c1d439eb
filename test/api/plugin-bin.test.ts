/**
 * The plugin package's own command, `public-api` (its package.json `bin`), as an operator of any Strapi
 * application runs it: in the application's folder, a process of its own, from the package's build. It
 * finds the application in its working folder (compiling it as Strapi's own commands do), so that it is
 * not tied to this repository's scripts; `npm run key` (operator-commands.test.ts) is an alias of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { countRows, createTestDatabase, type TestDatabase } from '../helpers/database';
import { APP_ROOT, runNode } from '../helpers/processes';

const PACKAGE = path.join(APP_ROOT, 'src', 'plugins', 'public-api');
const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> };
const BIN = path.join(PACKAGE, manifest.bin['public-api']!);

let database: TestDatabase;
const publicApi = (...args: string[]) => runNode([BIN, ...args], database.env, 180_000);
const countKeys = () => countRows(database, 'public_api_keys');

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

test('the package names its bin public-api, and the install links it for the application', () => {
  expect(Object.keys(manifest.bin)).toEqual(['public-api']);
  expect(fs.realpathSync(path.join(APP_ROOT, 'node_modules', '.bin', 'public-api'))).toBe(fs.realpathSync(BIN));
});

test('key create prints the key alone on the last line; the key is stored and listed by its id', async () => {
  const before = await countKeys();
  const created = await publicApi('key', 'create', '--name', 'shop', '--all');
  expect(created).toMatchObject({ code: 0 });
  const key = created.stdout.trim().split('\n').at(-1)!;
  expect(key).toMatch(/^pdk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32,}$/);
  expect(await countKeys()).toBe(before + 1);

  const listed = await publicApi('key', 'list');
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain(key.split('_')[1]);
  expect(listed.stdout).not.toContain(key);

  // A second key of the same name: the service's refusal, exit status 1, nothing written.
  const taken = await publicApi('key', 'create', '--name', 'SHOP', '--all');
  expect(taken.code).toBe(1);
  expect(taken.stderr.trim()).toBe("A key named 'shop' exists already: give this key another name.");
  expect(await countKeys()).toBe(before + 1);
});

test.each([
  [[], 2, /usage: public-api key <command>/],
  [['keys', 'list'], 2, /Unknown command 'keys'/],
  [['key', 'create', '--name', 'x'], 2, /exactly one of --grants FILE or --all/],
  [['key', 'create', '--name', 'x', '--all', '--expires', 'soon'], 2, /neither a date/],
  [['key', 'revoke', 'ZZZZZZZZZZZZ'], 1, /No key 'ZZZZZZZZZZZZ'/],
])('public-api %j exits %i with a message on standard error and writes nothing', async (args, code, message) => {
  const before = await countKeys();
  const result = await publicApi(...args);
  expect(result.code).toBe(code);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).toBe('');
  expect(await countKeys()).toBe(before);
});

test('--help prints the usage on standard output', async () => {
  const result = await publicApi('--help');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/public-api key create --name NAME/);
});
