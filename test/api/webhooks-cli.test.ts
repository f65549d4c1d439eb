/**
 * Webhook endpoints from the command line (`npm run key`): in a grants file beside the grants, and the
 * webhooks, webhook-add, webhook-rotate and webhook-remove commands. Secrets are printed once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countRows, createTestDatabase, type TestDatabase } from '../helpers/database';
import { runKeyCommand } from '../helpers/scripts';

let database: TestDatabase;
let dir: string;
const key = (...args: string[]) => runKeyCommand(args, database.env);
const writeJson = (name: string, value: unknown) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
};

beforeAll(async () => {
  database = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-webhooks-'));
});
afterAll(async () => {
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const GRANTS = { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } }, commands: [], origins: [] };

test('a grants file with webhooks: each endpoint made, its secret printed once, the key still last', async () => {
  const file = writeJson('with-webhooks.json', {
    ...GRANTS,
    webhooks: [
      { url: 'https://hooks.example.com/a' },
      { url: 'https://hooks.example.com/b', events: ['record.deleted'], resources: ['native:events'] },
    ],
  });
  const created = await key('create', '--name', 'Site', '--grants', file);
  expect(created.code).toBe(0);
  const lines = created.stdout.trim().split('\n');
  expect(lines.at(-1)).toMatch(/^pdk_/);
  const secrets = lines.filter((line) => line.includes('signing secret (shown once): whsec_'));
  expect(secrets).toHaveLength(2);
  const keyId = lines.at(-1)!.split('_')[1]!;
  const listed = await key('webhooks', keyId);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain('https://hooks.example.com/a');
  expect(listed.stdout).toMatch(/https:\/\/hooks\.example\.com\/b {2}record\.deleted {2}native:events/);
  expect(listed.stdout).not.toContain('whsec_');

  const added = await key('webhook-add', keyId, '--url', 'https://hooks.example.com/c', '--events', 'record.published,record.updated');
  expect(added.code).toBe(0);
  const addedLines = added.stdout.trim().split('\n');
  expect(addedLines.at(-1)).toMatch(/^whsec_/);
  const endpointId = addedLines[0]!.split(' ')[0]!;
  const rotated = await key('webhook-rotate', endpointId);
  expect(rotated.code).toBe(0);
  expect(rotated.stdout.trim().split('\n').at(-1)).toMatch(/^whsec_/);
  expect(rotated.stdout.trim().split('\n').at(-1)).not.toBe(addedLines.at(-1));
  expect((await key('webhook-remove', endpointId)).code).toBe(0);
  expect((await key('webhooks', keyId)).stdout).not.toContain('/c');
});

test('a refused endpoint refuses the whole file: no key, no endpoint left', async () => {
  const keysBefore = await countRows(database, 'public_api_keys');
  const endpointsBefore = await countRows(database, 'public_api_webhook_endpoints');
  const file = writeJson('bad-webhook.json', {
    ...GRANTS,
    webhooks: [{ url: 'https://hooks.example.com/ok' }, { url: 'http://10.0.0.1/x' }],
  });
  const refused = await key('create', '--name', 'Bad', '--grants', file);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('The URL must use https');
  expect(await countRows(database, 'public_api_keys')).toBe(keysBefore);
  expect(await countRows(database, 'public_api_webhook_endpoints')).toBe(endpointsBefore);
  expect((await key('create', '--name', 'Bad', '--grants', writeJson('not-list.json', { ...GRANTS, webhooks: {} }))).code).toBe(2);
  expect((await key('webhook-add', 'nokey', '--url', 'https://a.example.com')).code).toBe(1);
  expect((await key('webhook-add', 'nokey')).code).toBe(2);
});
