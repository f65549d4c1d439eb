/**
 * What operators run: the start command with bad settings, and the key command line. The start and one
 * key creation run as the operator runs them (a process of their own: exit status, output streams);
 * the key command's other cases run in this process (helpers/scripts.ts), since what they decide and
 * print does not depend on the process around them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countRows, createTestDatabase, type TestDatabase } from '../helpers/database';
import { STRAPI_BIN, runNode } from '../helpers/processes';
import { runKeyCommand } from '../helpers/scripts';

describe('invalid database settings stop the start with one clear line', () => {
  test.each([
    [{ DATABASE_CLIENT: 'oracle' }, "Invalid database settings: DATABASE_CLIENT must be one of sqlite, postgres, mysql, got 'oracle'."],
    [
      { DATABASE_CLIENT: 'mysql' },
      'Invalid database settings: DATABASE_CLIENT=mysql needs DATABASE_NAME with DATABASE_HOST, DATABASE_PORT, DATABASE_USERNAME and DATABASE_PASSWORD.',
    ],
    [
      { DATABASE_CLIENT: 'postgres', DATABASE_URL: 'http://db/x' },
      'Invalid database settings: DATABASE_URL must start with postgres:// or postgresql://',
    ],
    [
      { DATABASE_CLIENT: 'postgres', DATABASE_NAME: 'x', DATABASE_PORT: 'abc' },
      "Invalid database settings: DATABASE_PORT must be a whole number, got 'abc'.",
    ],
  ])('%j', async (env, message) => {
    const result = await runNode([STRAPI_BIN, 'start'], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(message)]);
  });
});

describe('npm run key', () => {
  let database: TestDatabase;
  let dir: string;
  const key = (...args: string[]) => runKeyCommand(args, database.env);
  const keyInOwnProcess = (...args: string[]) => runNode(['scripts/run.js', 'key', ...args], database.env);
  const writeJson = (name: string, value: unknown) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
    return file;
  };
  const countKeys = () => countRows(database, 'public_api_keys');

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-grants-'));
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('create prints the key alone on the last line, and it is listed', async () => {
    const grants = writeJson('ok.json', {
      resources: { 'native:events': { actions: ['read'], read: ['title', 'startsAt'], write: [] } },
      commands: [],
      origins: ['https://shop.example'],
    });
    const created = await keyInOwnProcess('create', '--name', 'Shop', '--grants', grants, '--expires', '30d');
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^pdk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32,}$/);
    const keyId = lines.at(-1)!.split('_')[1]!;
    const listed = await key('list');
    expect(listed.stdout).toContain(keyId);
    expect(listed.stdout).toContain('Shop');
    expect(listed.stdout).not.toContain(lines.at(-1)!);

    const regenerated = await key('regenerate', keyId);
    expect(regenerated.code).toBe(0);
    const newKey = regenerated.stdout.trim().split('\n').at(-1)!;
    expect(newKey).toMatch(new RegExp(`^pdk_${keyId}_`));
    expect(newKey).not.toBe(lines.at(-1));

    const revoked = await key('revoke', `pdk_${keyId}`);
    expect(revoked.code).toBe(0);
    expect((await key('list')).stdout).toMatch(/revoked/);
  });

  test('create refuses a name another key has (trimmed, in any case), as the admin does, and writes nothing', async () => {
    expect((await key('create', '--name', 'Kiosk twin', '--all')).code).toBe(0);
    const before = await countKeys();
    const refused = await key('create', '--name', ' KIOSK twin ', '--all');
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe("A key named 'Kiosk twin' exists already: give this key another name.");
    expect(await countKeys()).toBe(before);
  });

  test('a grants file may carry the rate limit and the shared-cache policy of the key', async () => {
    const grants = writeJson('cacheable.json', {
      resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } },
      limits: { requests: 50, window: 10 },
      cache: { sharedMaxAge: 60 },
    });
    const created = await key('create', '--name', 'Cacheable', '--grants', grants);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('limit:     50 cost units per 10 s');
    expect(created.stdout).toContain('cache:     shared, 60 s');
  });

  test('a preview key comes from the grants file or from --preview; other keys are not preview keys', async () => {
    const fromFile = await key(
      'create',
      '--name',
      'Preview site',
      '--grants',
      writeJson('preview.json', { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } }, preview: true }),
    );
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain('preview:   yes, may read drafts (status=draft)');
    const fromFlag = await key('create', '--name', 'Preview all', '--all', '--preview');
    expect(fromFlag.code).toBe(0);
    expect(fromFlag.stdout).toContain('preview:   yes');
    const plain = await key('create', '--name', 'Plain', '--all');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('preview:   no');
  });

  test('--all grants every resource that exists now', async () => {
    const created = await key('create', '--name', 'Everything', '--all');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('native:buildings, native:events, native:festivals, native:jobs, native:products');
  });

  test.each([
    [['create'], /needs --name/],
    [['create', '--name', 'x'], /exactly one of --grants FILE or --all/],
    [['create', '--name', 'x', '--all', '--grants', 'f.json'], /exactly one of/],
    [['create', '--name', 'x', '--grants', '/nonexistent/grants.json'], /Cannot read the grants file/],
    [['create', '--name', 'x', '--all', '--expires', 'tomorrow'], /neither a date/],
    [['create', '--name', 'x', '--all', '--expires', '2001-01-01'], /must be in the future/],
    [['create', '--name', 'x', '--all', '--bogus'], /Unknown option '--bogus'/],
    [['revoke'], /exactly one key id/],
    [['frobnicate'], /Unknown command 'frobnicate'/],
    [['revoke', 'ZZZZZZZZZZZZ'], /No key 'ZZZZZZZZZZZZ'/],
  ])('%j is refused with a message and writes nothing', async (args, message) => {
    const before = await countKeys();
    const result = await key(...args);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(await countKeys()).toBe(before);
  });

  test.each([
    ['not json', '{ nope', /not valid JSON/],
    ['unknown resource', { resources: { 'native:spaceships': { actions: ['read'] } } }, /Unknown resource 'native:spaceships'/],
    [
      'unknown field',
      { resources: { 'native:events': { actions: ['read'], read: ['title', 'hidden'] } } },
      /Unknown field of native:events: 'hidden'/,
    ],
    ['unknown action', { resources: { 'native:events': { actions: ['launch'] } } }, /actions/],
    ['unknown command', { resources: {}, commands: ['launch'] }, /Unknown command: 'launch'/],
    ['bad origin', { resources: {}, origins: ['shop.example/path'] }, /scheme:\/\/host/],
    [
      'bad cache policy',
      { resources: {}, cache: { sharedMaxAge: 0 } },
      /cache\.sharedMaxAge: The shared cache max age is a whole number of seconds/,
    ],
    ['a preview flag that is not a boolean', { resources: {}, preview: 'yes' }, /Preview is on or off/],
  ])('a grants file with %s is refused and writes nothing', async (_name, content, message) => {
    const before = await countKeys();
    const result = await key('create', '--name', 'x', '--grants', writeJson('bad.json', content));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(await countKeys()).toBe(before);
  });
});
