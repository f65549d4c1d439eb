/**
 * Command uploads while the process lives (contract section 13; issue 13, defect 17): whatever a
 * request with a CV is answered (accepted, refused at any step, rolled back, failed halfway through
 * writing the bytes), nothing of the CV stays in public/uploads without its file row, nothing stays in
 * the instance's private scratch directory, and its room under the bound is given back. Over the bound
 * (uploads or bytes in flight), 503 with Retry-After before the body is read.
 * (A crash: command-uploads-crash.test.ts.)
 */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { publish } from '../helpers/fixtures';
import { minimalDocx, minimalPdf } from '../helpers/files';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { listenOnce } from '../helpers/writes';
import { DEFAULT_UPLOAD_BYTES_IN_FLIGHT, DEFAULT_UPLOADS_IN_FLIGHT } from '../../src/plugins/public-api/server/src/config';
import { multipartBodyLimit } from '../../src/plugins/public-api/server/src/http/multipart';
import { MAX_CV_BYTES } from '../../src/commands/job-application';

const APPLICATION = 'api::job-application.job-application';
const FILE = 'plugin::upload.file';
const PATH = '/api/v2/commands/job-application';

type UploadsService = { directory: () => string; inFlight: () => { uploads: number; bytes: number } };

let app: TestApp;
let s: Core.Strapi;
let auth: string;
let port: number;
const applicants: string[] = [];

const uploads = () => s.plugin('public-api').service('uploads') as UploadsService;
const uploadsDir = () => path.join(s.dirs.static.public, 'uploads');

beforeAll(async () => {
  // One key stands for many clients here: its share of the load gate's turns (half of them by default,
  // load-gate.test.ts) would otherwise answer before the bound on uploads does.
  app = await bootApp({ PUBLIC_API_REQUESTS_PER_KEY: '16' });
  s = app.strapi;
  await listenOnce(app);
  port = (s.server.httpServer.address() as { port: number }).port;
  const job = { department: 'engineering', employmentType: 'full-time' };
  await publish(s, 'api::job.job', { title: 'Open', slug: 'open', ...job });
  await publish(s, 'api::job.job', { title: 'Closed', slug: 'closed', closesOn: '2020-01-01', ...job });
  auth = (await createKey(s, { commands: ['job-application'] })).auth;
});
afterAll(async () => {
  await app?.close();
  for (const name of applicants) for (const file of cvFiles(name)) fs.rmSync(path.join(uploadsDir(), file), { force: true });
});

const letters = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + randomInt(26))).join('');
const newApplicant = () => {
  const name = `Upload ${letters()}`;
  applicants.push(name);
  return name;
};
const cvFiles = (name: string) => fs.readdirSync(uploadsDir()).filter((file) => file.startsWith(`CV_${name.replace(/ /g, '_')}_`));
const document = (attributes: Record<string, unknown>) => JSON.stringify({ data: { type: 'job-application', attributes } });

/** Nothing of `name`'s CV without its row; nothing in the scratch directory; no room held. */
const expectNothingLeft = async (name: string) => {
  const rows = (await s.db.query(FILE).findMany({ where: { name: { $startsWith: `CV ${name}.` } } })) as { hash: string; ext: string }[];
  // A rollback's deletion runs right after the rollback, and the scratch directory goes after it.
  for (let i = 0; i < 50 && cvFiles(name).length > rows.length; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(cvFiles(name).sort()).toEqual(rows.map((row) => `${row.hash}${row.ext}`).sort());
  expect(fs.readdirSync(uploads().directory())).toEqual([]);
  expect(uploads().inFlight()).toEqual({ uploads: 0, bytes: 0 });
  return rows;
};

type Case = {
  label: string;
  status: number;
  reason?: string;
  /** A row of the CV is kept (the application was accepted). */
  kept: boolean;
  send: (name: string) => ReturnType<TestApp['http']> | Promise<unknown>;
  /** Changes made for the case, undone after it. */
  arrange?: () => () => void;
};

const valid = (name: string, extra: Record<string, unknown> = {}) =>
  document({ job: 'open', name, email: 'a@example.com', consent: true, ...extra });
const post = () => app.http().post(PATH).set('Authorization', auth);

type UploadProvider = { uploadStream: (file: { stream: NodeJS.ReadableStream; hash: string; ext: string }) => Promise<void> };

const CASES: Case[] = [
  { label: 'accepted', status: 201, kept: true, send: (name) => post().field('data', valid(name)).attach('cv', minimalPdf(), 'cv.pdf') },
  {
    label: 'accepted (DOCX)',
    status: 201,
    kept: true,
    send: (name) => post().field('data', valid(name)).attach('cv', minimalDocx(), 'cv.docx'),
  },
  {
    label: 'accepted with an Idempotency-Key',
    status: 201,
    kept: true,
    send: (name) => post().set('Idempotency-Key', `k-${name}`).field('data', valid(name)).attach('cv', minimalPdf(), 'cv.pdf'),
  },
  {
    label: 'not a PDF or DOCX',
    status: 422,
    reason: 'file_type_not_accepted',
    kept: false,
    send: (name) => post().field('data', valid(name)).attach('cv', Buffer.from('plain text'), 'cv.pdf'),
  },
  {
    label: 'invalid attributes',
    status: 422,
    reason: 'validation_failed',
    kept: false,
    send: (name) =>
      post()
        .field('data', valid(name, { email: 'nope' }))
        .attach('cv', minimalPdf(), 'cv.pdf'),
  },
  {
    label: 'a closed job',
    status: 422,
    reason: 'job_closed',
    kept: false,
    send: (name) =>
      post()
        .field('data', valid(name, { job: 'closed' }))
        .attach('cv', minimalPdf(), 'cv.pdf'),
  },
  {
    label: 'a CV one byte too large',
    status: 413,
    reason: 'file_too_large',
    kept: false,
    send: (name) =>
      post()
        .field('data', valid(name))
        .attach('cv', Buffer.concat([minimalPdf(), Buffer.alloc(MAX_CV_BYTES + 1 - minimalPdf().length, 0x20)]), 'cv.pdf'),
  },
  {
    label: 'an unknown part',
    status: 400,
    reason: 'multipart_part_unknown',
    kept: false,
    send: (name) => post().field('data', valid(name)).attach('photo', minimalPdf(), 'x.pdf'),
  },
  {
    label: 'no document',
    status: 400,
    reason: 'multipart_document_missing',
    kept: false,
    send: () => post().attach('cv', minimalPdf(), 'cv.pdf'),
  },
  {
    label: 'rolled back after the command ran (the Idempotency-Key claim lost)',
    status: 409,
    reason: 'idempotency_superseded',
    kept: false,
    arrange: () => {
      const idempotency = s.plugin('public-api').service('idempotency') as { complete: (...args: unknown[]) => Promise<boolean> };
      const complete = idempotency.complete;
      idempotency.complete = async () => false;
      return () => (idempotency.complete = complete);
    },
    send: (name) => post().set('Idempotency-Key', `lost-${name}`).field('data', valid(name)).attach('cv', minimalPdf(), 'cv.pdf'),
  },
  {
    label: 'the upload provider failing halfway through the bytes',
    status: 500,
    kept: false,
    arrange: () => {
      const provider = (s.plugin('upload') as unknown as { provider: UploadProvider }).provider;
      const uploadStream = provider.uploadStream;
      provider.uploadStream = async (file) => {
        const target = path.join(uploadsDir(), `${file.hash}${file.ext}`);
        const first = await new Promise<Buffer>((resolve) => file.stream.once('data', (chunk: Buffer) => resolve(chunk)));
        fs.writeFileSync(target, first.subarray(0, Math.max(1, first.length >> 1)));
        throw new Error('disk full');
      };
      return () => (provider.uploadStream = uploadStream);
    },
    send: (name) => post().field('data', valid(name)).attach('cv', minimalPdf(), 'cv.pdf'),
  },
];

describe.each(CASES)('$label', ({ status, reason, kept, send, arrange }) => {
  test(`${status}${reason ? ` ${reason}` : ''}: nothing of the CV stays without its row, nothing in the scratch directory`, async () => {
    const name = newApplicant();
    const undo = arrange?.();
    let res: { status: number; body: any; headers: Record<string, string> };
    try {
      res = (await send(name)) as typeof res;
    } finally {
      undo?.();
    }
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/vnd.api+json');
    expectValidJsonApi(res.body);
    if (reason) expect(res.body.errors.map((error: { meta?: { reason: string } }) => error.meta?.reason)).toContain(reason);
    const rows = await expectNothingLeft(name);
    expect(rows).toHaveLength(kept ? 1 : 0);
    expect(await s.db.query(APPLICATION).count({ where: { name } })).toBe(kept ? 1 : 0);
  });
});

describe('the bound on uploads in flight', () => {
  /** A request that declares `length` bytes of multipart body and sends only its first line, until aborted. */
  const hold = (length: number) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: PATH,
      headers: { Authorization: auth, 'Content-Type': 'multipart/form-data; boundary=held', 'Content-Length': String(length) },
    });
    req.on('error', () => undefined);
    req.write('--held\r\n');
    return req;
  };
  const until = async (condition: () => boolean) => {
    for (let i = 0; i < 250 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(condition()).toBe(true);
  };
  const expectBusy = async (req: ReturnType<typeof post>) => {
    const res = await req;
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expectValidJsonApi(res.body);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ status: '503', code: 'service_unavailable', meta: { reason: 'uploads_busy' } }),
    ]);
  };

  test(`at most ${DEFAULT_UPLOADS_IN_FLIGHT} uploads at once: the next is 503 with Retry-After before its body is read`, async () => {
    const held = Array.from({ length: DEFAULT_UPLOADS_IN_FLIGHT }, () => hold(1024));
    try {
      await until(() => uploads().inFlight().uploads === DEFAULT_UPLOADS_IN_FLIGHT);
      const name = newApplicant();
      await expectBusy(post().field('data', valid(name)).attach('cv', minimalPdf(), 'cv.pdf'));
      expect(cvFiles(name)).toEqual([]);
    } finally {
      for (const req of held) req.destroy();
    }
    // Aborted bodies give their room back.
    await until(() => uploads().inFlight().uploads === 0);
    const name = newApplicant();
    expect((await post().field('data', valid(name)).attach('cv', minimalPdf(), 'cv.pdf')).status).toBe(201);
    await expectNothingLeft(name);
  });

  test(`at most ${DEFAULT_UPLOAD_BYTES_IN_FLIGHT / 1024 / 1024} MiB in flight, counted at their declared length`, async () => {
    const largest = multipartBodyLimit(MAX_CV_BYTES);
    const fitting = Math.floor(DEFAULT_UPLOAD_BYTES_IN_FLIGHT / largest);
    expect(fitting).toBeLessThan(DEFAULT_UPLOADS_IN_FLIGHT);
    const held = Array.from({ length: fitting }, () => hold(largest));
    try {
      await until(() => uploads().inFlight().uploads === fitting);
      expect(uploads().inFlight().bytes).toBe(fitting * largest);
      // One more large body does not fit...
      const big = newApplicant();
      await expectBusy(
        post()
          .field('data', valid(big))
          .attach('cv', Buffer.concat([minimalPdf(), Buffer.alloc(MAX_CV_BYTES - minimalPdf().length - 4096, 0x20)]), 'cv.pdf'),
      );
      // ...a small one does.
      const small = newApplicant();
      expect((await post().field('data', valid(small)).attach('cv', minimalPdf(), 'cv.pdf')).status).toBe(201);
    } finally {
      for (const req of held) req.destroy();
    }
    await until(() => uploads().inFlight().uploads === 0);
    expect(uploads().inFlight().bytes).toBe(0);
  });
});
