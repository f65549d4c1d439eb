/**
 * `npm run demo` on a port that is taken (defect 20): the check before the build, the listen-time guard,
 * and the words both print. Real sockets on the loopback interface.
 */
import http from 'node:http';
import net from 'node:net';
import { checkPort, explainListenErrors, portInUseMessage, portProblem } from '../../scripts/lib/port';

const HOST = '127.0.0.1';

/** A server listening on a free loopback port, and that port. */
const occupy = async (): Promise<{ port: number; close: () => Promise<void> }> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
};

test('the message names the port and how to choose another', () => {
  for (const port of [1337, 4000, 8080]) {
    const message = portInUseMessage(port);
    expect(message).toContain(`Port ${port} is already in use`);
    expect(message).toMatch(/PORT=\d+ npm run demo/);
    expect(message).not.toContain(`PORT=${port} `);
  }
});

test('only "in use" and "not allowed" are port problems; other errors are not explained away', () => {
  expect(portProblem(Object.assign(new Error('x'), { code: 'EADDRINUSE' }), 1337)).toBe(portInUseMessage(1337));
  expect(portProblem(Object.assign(new Error('x'), { code: 'EACCES' }), 80)).toContain('Port 80 may not be used');
  expect(portProblem(Object.assign(new Error('x'), { code: 'ENOTFOUND' }), 1337)).toBeNull();
  expect(portProblem(null, 1337)).toBeNull();
});

test('checkPort: a taken port is reported, a free one is not (and is left free)', async () => {
  const taken = await occupy();
  try {
    expect(await checkPort(taken.port, HOST)).toBe(portInUseMessage(taken.port));
  } finally {
    await taken.close();
  }
  expect(await checkPort(taken.port, HOST)).toBeNull();
  // The probe closed again: the port can be listened on right after.
  const again = net.createServer();
  await new Promise<void>((resolve, reject) => {
    again.once('error', reject);
    again.listen(taken.port, HOST, resolve);
  });
  await new Promise((resolve) => again.close(resolve));
});

test('explainListenErrors: a port taken between the check and the listen is explained first', async () => {
  const taken = await occupy();
  const server = http.createServer();
  const said: string[] = [];
  const order: string[] = [];
  // Strapi's own listener, registered before ours, exits the process: ours must run before it.
  server.on('error', () => order.push('strapi'));
  explainListenErrors(server, taken.port, (message) => {
    said.push(message);
    order.push('explained');
  });
  try {
    await new Promise<void>((resolve) => {
      server.once('error', () => resolve());
      server.listen(taken.port, HOST);
    });
  } finally {
    await taken.close();
  }
  expect(said).toEqual([portInUseMessage(taken.port)]);
  expect(order).toEqual(['explained', 'strapi']);
});
