/**
 * The demo's saved key on a real application (issue 33, item 13): kept per database, reused while it
 * works, never read from or written to another database's file; the one file of before is adopted only
 * when its key works on this database. The keys are the plugin's own, checked over HTTP.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import {
  LEGACY_DEMO_KEY_FILE,
  demoKeyFile,
  ensureDemoKey,
  type DatabaseConnection,
  type DemoKeysService,
} from '../../scripts/lib/demo-key';
import { bootApp, type TestApp } from '../helpers/app';

let app: TestApp;
let strapi: Core.Strapi;
let root: string;

beforeAll(async () => {
  app = await bootApp();
  strapi = app.strapi;
}, 60_000);

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-demo-key-'));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const keys = () => strapi.plugin('public-api').service('keys') as DemoKeysService;
const thisDatabase = () => strapi.config.get('database.connection') as DatabaseConnection;
/** Another database the demo may have run on: on SQLite a PostgreSQL one, and the other way round. */
const otherDatabase = (): DatabaseConnection =>
  thisDatabase().client === 'sqlite'
    ? { client: 'postgres', connection: { connectionString: 'postgres://postgres@127.0.0.1:5432/pda_demo', schema: 'public' } }
    : { client: 'sqlite', connection: { filename: path.join(root, 'data.db') } };

const readsIndex = async (key: string) => (await app.http().get('/api/v2/').set('Authorization', `Bearer ${key}`)).status;
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
};
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

test("the key is kept in this database's file, reused on the next run, and answers", async () => {
  const first = await ensureDemoKey(root, thisDatabase(), keys());
  expect(first.state).toBe('created');
  expect(first.file).toBe(demoKeyFile(thisDatabase()));
  expect(first.file).toContain(thisDatabase().client);
  expect(read(first.file)).toBe(`${first.key}\n`);
  expect(fs.statSync(path.join(root, first.file)).mode & 0o777).toBe(0o600);
  expect(await readsIndex(first.key)).toBe(200);

  const second = await ensureDemoKey(root, thisDatabase(), keys());
  expect(second).toEqual({ key: first.key, file: first.file, state: 'reused' });
});

test("another database's key file is neither read nor replaced", async () => {
  const other = await ensureDemoKey(root, otherDatabase(), keys());
  // Created through this application's keys service, so it works here: the file says which database it is for.
  const ours = await ensureDemoKey(root, thisDatabase(), keys());
  expect(ours.state).toBe('created');
  expect(ours.file).not.toBe(other.file);
  expect(ours.key).not.toBe(other.key);
  expect(read(other.file)).toBe(`${other.key}\n`);
  expect(read(ours.file)).toBe(`${ours.key}\n`);
});

test('a key that no longer works (revoked, or of a database since rebuilt) is replaced in its own file', async () => {
  const file = demoKeyFile(thisDatabase());
  write(file, 'pdk_AAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB\n');
  const made = await ensureDemoKey(root, thisDatabase(), keys());
  expect(made.state).toBe('created');
  expect(read(file)).toBe(`${made.key}\n`);
  expect(await readsIndex(made.key)).toBe(200);
});

test('the one file of before: adopted when its key works here, left alone when it does not', async () => {
  const earlier = await ensureDemoKey(root, otherDatabase(), keys());
  write(LEGACY_DEMO_KEY_FILE, `${earlier.key}\n`);
  const adopted = await ensureDemoKey(root, thisDatabase(), keys());
  expect(adopted).toEqual({ key: earlier.key, file: demoKeyFile(thisDatabase()), state: 'adopted' });
  expect(read(adopted.file)).toBe(`${earlier.key}\n`);
  // Still there for the database it may belong to.
  expect(read(LEGACY_DEMO_KEY_FILE)).toBe(`${earlier.key}\n`);

  fs.rmSync(path.join(root, adopted.file));
  write(LEGACY_DEMO_KEY_FILE, 'pdk_CCCCCCCCCCCC_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD\n');
  const made = await ensureDemoKey(root, thisDatabase(), keys());
  expect(made.state).toBe('created');
  expect(read(LEGACY_DEMO_KEY_FILE)).toBe('pdk_CCCCCCCCCCCC_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD\n');
});
