/**
 * docs/api.md's local receiver, end to end, as a developer runs it (issue 33, item 11): the key command, the
 * receiver (scripts/webhook-receiver.js) and the server are processes of their own, like three terminals.
 * Without the development flag `webhook-add` to 127.0.0.1 is refused with a message naming the flag; with it
 * the endpoint is made, a write through /api/v2 is delivered, and the receiver verifies its signature.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { APP_ROOT, freePort, startApp, type RunningApp } from '../helpers/processes';
import { runKeyCommand } from '../helpers/scripts';
import { eventually } from '../helpers/webhooks';

const FLAG = { PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true' };

let database: TestDatabase;
let server: RunningApp | undefined;
let receiver: ChildProcess | undefined;
let printed = '';

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  if (receiver && receiver.exitCode === null) {
    const exited = new Promise((resolve) => receiver!.once('exit', resolve));
    receiver.kill('SIGTERM');
    await exited;
  }
  await server?.stop();
  await database?.drop();
}, 30_000);

const startReceiverProcess = async (secret: string, port: number): Promise<ChildProcess> => {
  const child = spawn(process.execPath, ['scripts/webhook-receiver.js', '--port', String(port)], {
    cwd: APP_ROOT,
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  await eventually(() => printed.includes('Listening on'), 10_000, 'the receiver to listen');
  return child;
};

test('flag off: refused, naming the flag; flag on: the endpoint is made, a write arrives and its signature holds', async () => {
  const created = await runKeyCommand(['create', '--name', 'Local receiver', '--all'], database.env);
  expect(created.code).toBe(0);
  const key = created.stdout.trim().split('\n').at(-1)!;
  const keyId = key.split('_')[1]!;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/hooks`;

  const refused = await runKeyCommand(['webhook-add', keyId, '--url', url], database.env);
  expect(refused.code).toBe(1);
  expect(refused.stderr.trim()).toBe(
    'The URL must use https; plain http to this machine is refused: for a local receiver in development, set PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true for the server and for npm run key (in .env, which both read).',
  );
  expect((await runKeyCommand(['webhooks', keyId], database.env)).stdout.trim()).toBe('No webhook endpoints.');

  const added = await runKeyCommand(['webhook-add', keyId, '--url', url, '--events', 'record.published,record.updated'], {
    ...database.env,
    ...FLAG,
  });
  expect(added.code).toBe(0);
  const secret = added.stdout.trim().split('\n').at(-1)!;
  expect(secret).toMatch(/^whsec_/);

  receiver = await startReceiverProcess(secret, port);
  // A request that is not signed with the secret is refused, and said so.
  const forged = await fetch(url, {
    method: 'POST',
    headers: { 'webhook-id': 'msg_0_0', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    body: '{}',
  });
  expect(forged.status).toBe(401);
  await eventually(() => printed.includes('REFUSED (no signature matches the secret)'), 5_000, 'the forged request to be refused');

  server = await startApp({ ...database.env, ...FLAG, PUBLIC_API_WEBHOOKS_POLL_INTERVAL_MS: '100' });
  const write = await fetch(`${server.url}/api/v2/buildings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: 'buildings', attributes: { name: 'Old Mill' } } }),
  });
  expect(write.status).toBe(201);
  const { data } = (await write.json()) as { data: { id: string } };

  const line = `verified  record.published  buildings/${data.id}  webhook-id msg_`;
  // The event's body is printed on the line after, and may arrive in a later chunk of the receiver's output:
  // wait for that line whole (its newline printed), not only for the line naming it.
  const bodyLine = () => {
    const lines = printed.split('\n');
    const at = lines.findIndex((each) => each.startsWith(line));
    return at >= 0 && at + 2 < lines.length ? lines[at + 1]! : null;
  };
  await eventually(() => bodyLine() !== null, 30_000, 'the delivery to arrive verified');
  const body = bodyLine()!;
  const event = JSON.parse(body) as { type: string; data: Record<string, unknown> & { attributes: Record<string, unknown> } };
  expect(event.type).toBe('record.published');
  expect(event.data).toMatchObject({ type: 'buildings', id: data.id, attributes: { name: 'Old Mill' } });
  expect(Object.keys(event.data).sort()).toEqual(['attributes', 'id', 'meta', 'type']);
}, 240_000);
