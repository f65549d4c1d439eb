/**
 * HTTP without a client library in between: the request target, every header (Host included) and the
 * body go out exactly as given. supertest cannot send an absolute-form target, a chosen Host, or a path
 * it would re-encode; these can.
 */
import http from 'node:http';
import net from 'node:net';
import type { TestApp } from './app';

export type RawRequest = {
  method: string;
  /** The request target as sent: origin form (`/api/v2/events?x=1`) or absolute form (`http://h/api/v2`). */
  target: string;
  /** Sent as given; `Host` defaults to the server's address unless given (an empty string sends it empty). */
  headers?: Record<string, string>;
  body?: string | Buffer;
};

export type RawResponse = { status: number; headers: http.IncomingHttpHeaders; text: string };

/** The port the app listens on (it is made to listen on one when it does not yet). */
export const portOf = async (app: TestApp): Promise<number> => {
  const server = app.strapi.server.httpServer;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as net.AddressInfo).port;
};

export const sendRequest = (port: number, request: RawRequest): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(request.headers ?? {}) };
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'host')) headers.Host = `127.0.0.1:${port}`;
    if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));
    const req = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.target, headers, setHost: false, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });

/**
 * Bytes on a socket, and everything the server sends back until it closes the connection (send
 * `Connection: close`). The socket is not half-closed first: Node aborts a request whose client ended.
 */
export const sendBytes = (port: number, bytes: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });

/**
 * Bytes on a socket, and everything the server sent before the connection closed, whether it closed cleanly or
 * was reset: a server that refuses a request before reading all of it (an over-long header section) closes
 * with unread bytes, which the kernel answers with a reset.
 */
export const sendBytesUntilClosed = (port: number, bytes: string): Promise<string> =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes, 'latin1'));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

/** A raw HTTP/1.1 response -> status, headers (lower-case names) and body. Handles Content-Length bodies. */
export const parseRawResponse = (raw: string): RawResponse => {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end).split('\r\n');
  const status = Number(head[0]!.split(' ')[1]);
  const headers: http.IncomingHttpHeaders = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, text: raw.slice(end + 4) };
};

/**
 * A request whose bytes go out slowly: `head` (request line and headers, up to the blank line) at once,
 * then each of `chunks` after `gapMs`, until they run out (the socket then stays open, silent) or the
 * server answers and closes. Resolves with everything the server sent, once it closed the connection
 * (never, when it does not: the test times out).
 */
export const sendSlowly = (port: number, head: string, chunks: (string | Buffer)[], gapMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(head, 'latin1');
      let next = 0;
      const timer = setInterval(() => {
        if (next >= chunks.length || socket.destroyed || !socket.writable) {
          clearInterval(timer);
          return;
        }
        socket.write(chunks[next]!);
        next += 1;
      }, gapMs);
      socket.on('close', () => clearInterval(timer));
    });
    const received: Buffer[] = [];
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('end', () => {
      socket.destroy();
      resolve(Buffer.concat(received).toString('utf8'));
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while a chunk is on its way: what it sent before counts.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve(Buffer.concat(received).toString('utf8'));
      else reject(error);
    });
  });
