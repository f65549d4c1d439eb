/**
 * A fake object store for asset tests: an HTTP server on 127.0.0.1 that serves objects the way S3 does
 * (GET, one byte range with 206 and Content-Range, 416 with `bytes *\/size`, 404 for a missing key,
 * Content-Length always), and objects that misbehave on purpose (slow to answer, stalling mid-body,
 * failing, redirecting, asking for a signature). It records every request it was sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type StoredObject = {
  bytes: Buffer;
  /** Wait this long before answering the headers. */
  delayMs?: number;
  /** Send this many bytes, then nothing more (the connection stays open). */
  stallAfter?: number;
  /** Answer this status with no body instead of the object. */
  status?: number;
  /** Answer a redirect to this URL. */
  redirectTo?: string;
  /** Only a request whose query carries `signature=<this>` gets the object (others: 403, like S3). */
  signature?: string;
  /** Answer a Range with the whole object (200), as an origin that does not do ranges. */
  ignoreRange?: boolean;
  /** Content-Length announced instead of the real one (a lying origin). */
  announcedLength?: number;
};

export type RecordedRequest = { path: string; range: string | undefined; acceptEncoding: string | undefined };

export type ObjectStore = {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The absolute URL of a key (`bucket/name.png`). */
  urlOf: (key: string) => string;
  put: (key: string, object: StoredObject) => void;
  remove: (key: string) => void;
  requests: RecordedRequest[];
  close: () => Promise<void>;
};

const RANGE = /^bytes=(\d*)-(\d*)$/;

export const startObjectStore = async (): Promise<ObjectStore> => {
  const objects = new Map<string, StoredObject>();
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const key = decodeURIComponent(url.pathname.slice(1));
    requests.push({ path: `${url.pathname}${url.search}`, range: req.headers.range, acceptEncoding: req.headers['accept-encoding'] });
    const object = objects.get(key);
    const respond = () => {
      if (!object) {
        res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
        return;
      }
      if (object.redirectTo) {
        res.writeHead(302, { location: object.redirectTo }).end();
        return;
      }
      if (object.status) {
        res.writeHead(object.status, { 'content-type': 'text/plain' }).end('failure');
        return;
      }
      if (object.signature !== undefined && url.searchParams.get('signature') !== object.signature) {
        res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code></Error>');
        return;
      }
      const { bytes } = object;
      let start = 0;
      let end = bytes.length - 1;
      let status = 200;
      const match = req.headers.range && !object.ignoreRange ? RANGE.exec(req.headers.range) : null;
      if (match && (match[1] !== '' || match[2] !== '')) {
        if (match[1] === '') {
          start = Math.max(0, bytes.length - Number(match[2]));
        } else {
          start = Number(match[1]);
          end = match[2] === '' ? bytes.length - 1 : Math.min(Number(match[2]), bytes.length - 1);
        }
        if (start >= bytes.length || end < start) {
          res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
          return;
        }
        status = 206;
      }
      const body = bytes.subarray(start, end + 1);
      res.writeHead(status, {
        'content-type': 'application/octet-stream',
        'content-length': String(object.announcedLength ?? body.length),
        etag: '"fake-etag"',
        ...(status === 206 ? { 'content-range': `bytes ${start}-${end}/${bytes.length}` } : {}),
      });
      if (object.stallAfter !== undefined) {
        res.write(body.subarray(0, object.stallAfter));
        return;
      }
      res.end(body);
    };
    if (object?.delayMs) later(object.delayMs, respond);
    else respond();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    urlOf: (key) => `${origin}/${key}`,
    put: (key, object) => void objects.set(key, object),
    remove: (key) => void objects.delete(key),
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
