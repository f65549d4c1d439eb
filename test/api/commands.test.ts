/**
 * Commands (contract sections 9 and 10): the key's command list with generated input schemas, the two
 * commands with every refusal, multipart CVs sniffed by content, Idempotency-Key, and what editors see.
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import type { Core } from '@strapi/strapi';
import { z } from 'zod';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { ensureLocale, publish } from '../helpers/fixtures';
import { minimalDocx, minimalPdf } from '../helpers/files';
import { listenOnce, tableSnapshot, writer, type Answer } from '../helpers/writes';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { superAdmin } from '../helpers/admin';
import { COMMANDS } from '../../src/commands';

const JOB = 'api::job.job';
const APPLICATION = 'api::job-application.job-application';
const SUBSCRIPTION = 'api::newsletter-subscription.newsletter-subscription';
const FILE = 'plugin::upload.file';
const UIDS = [APPLICATION, SUBSCRIPTION, FILE];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let all: { auth: string };
let jobsOnly: { auth: string };
let none: { auth: string };
const jobs: Record<string, string> = {};

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  app = await bootApp();
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  await ensureLocale(s, 'de', 'German');
  const job = (slug: string, extra: Record<string, unknown> = {}) =>
    publish(s, JOB, { title: slug, slug, department: 'engineering', employmentType: 'full-time', ...extra });
  jobs.open = (await job('open', { closesOn: day(30) })).documentId;
  jobs.undated = (await job('undated')).documentId;
  jobs.today = (await job('closes-today', { closesOn: day(0) })).documentId;
  jobs.closed = (await job('closed', { closesOn: day(-1) })).documentId;
  jobs.draft = (
    await s.documents(JOB).create({ data: { title: 'draft', slug: 'draft', department: 'design', employmentType: 'contract' } as never })
  ).documentId;
  jobs.archived = (await job('archived')).documentId;
  await s.documents(JOB).unpublish({ documentId: jobs.archived });
  all = await createKey(s, { commands: '*' });
  jobsOnly = await createKey(s, { commands: ['job-application'] });
  none = await createKey(s, { resources: {} });
});
afterAll(async () => {
  await app?.close();
});

const expectErrors = (res: Answer, status: number, errors: Record<string, unknown>[]) => {
  expect(res.status).toBe(status);
  expect(res.body.errors).toEqual(errors.map((error) => expect.objectContaining({ status: String(status), ...error })));
};

const application = (attributes: Record<string, unknown>) => ({ data: { type: 'job-application', attributes } });
const signup = (attributes: Record<string, unknown>) => ({ data: { type: 'newsletter-signup', attributes } });
const VALID = { job: 'open', name: 'Ada Lovelace', email: 'ada@example.com', consent: true };

/** A multipart request: the document in `data`, files as parts. */
const multipart = async (
  path: string,
  auth: string,
  parts: {
    data?: unknown;
    files?: { name: string; content: Buffer; filename: string; contentType: string }[];
    fields?: Record<string, string>;
  },
  headers: Record<string, string> = {},
): Promise<Answer> => {
  let req = app.http().post(path).set('Authorization', auth);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  if (parts.data !== undefined) req = req.field('data', typeof parts.data === 'string' ? parts.data : JSON.stringify(parts.data));
  for (const [name, value] of Object.entries(parts.fields ?? {})) req = req.field(name, value);
  for (const file of parts.files ?? [])
    req = req.attach(file.name, file.content, { filename: file.filename, contentType: file.contentType });
  const res = await req;
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  expectValidJsonApi(res.body);
  return { status: res.status, headers: res.headers as Record<string, string>, body: res.body, text: res.text };
};

const cvPart = (content: Buffer, filename = 'cv.pdf', contentType = 'application/pdf') => ({ name: 'cv', content, filename, contentType });

const applications = async () =>
  (await s.db.query(APPLICATION).findMany({ orderBy: { id: 'asc' }, populate: { cv: true, job: true } })) as any[];

describe('GET /commands/schema', () => {
  test('lists the granted commands with the JSON Schema of their zod input', async () => {
    const res = await api.get('/api/v2/commands/schema', all.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.map((entry: any) => entry.id)).toEqual(['job-application', 'newsletter-signup']);
    const locales = ((await s.plugin('i18n').service('locales').find()) as { code: string }[]).map((row) => row.code).sort();
    for (const entry of res.body.data) {
      const command = COMMANDS.find((candidate) => candidate.name === entry.id)!;
      expect(entry).toMatchObject({ type: 'commands', attributes: { name: command.name, description: command.description } });
      expect(entry.attributes.inputSchema).toEqual(z.toJSONSchema(command.input({ z, locales }), { target: 'draft-2020-12', io: 'input' }));
      expect(entry.attributes.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(entry.attributes.inputSchema.additionalProperties).toBe(false);
    }
    const [jobApplication, newsletter] = res.body.data;
    expect(jobApplication.attributes.inputSchema.required).toEqual(['job', 'name', 'email', 'consent']);
    expect(jobApplication.attributes.inputSchema.properties.consent).toMatchObject({ const: true });
    expect(jobApplication.meta).toEqual({
      multipart: {
        documentPart: 'data',
        files: {
          cv: {
            description: expect.any(String),
            mediaTypes: ['application/pdf', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
            maxBytes: 10 * 1024 * 1024,
          },
        },
      },
    });
    expect(newsletter.attributes.inputSchema.properties.locale.enum).toEqual(['de', 'en']);
    expect(newsletter.meta).toBeUndefined();
  });

  test('only what the key is granted', async () => {
    expect((await api.get('/api/v2/commands/schema', jobsOnly.auth)).body.data.map((entry: any) => entry.id)).toEqual(['job-application']);
    const empty = await api.get('/api/v2/commands/schema', none.auth);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
  });

  test('takes no query parameters, no other method, and a key', async () => {
    expectErrors(await api.get('/api/v2/commands/schema?x=1', all.auth), 400, [{ source: { parameter: 'x' } }]);
    const post = await api.post('/api/v2/commands/schema', all.auth, {});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect((await app.http().get('/api/v2/commands/schema')).status).toBe(401);
  });
});

describe('which command, which key', () => {
  test('an unknown command is 404 for every key; a known one not granted is 403, before its body is read', async () => {
    for (const key of [all, none]) {
      expectErrors(await api.post('/api/v2/commands/nope', key.auth, application(VALID)), 404, [
        { code: 'not_found', meta: { reason: 'command_not_found' } },
      ]);
    }
    const before = await tableSnapshot(s, UIDS);
    const refused = [
      await api.post('/api/v2/commands/newsletter-signup', jobsOnly.auth, signup({ email: 'x@example.com', consent: true })),
      await api.post('/api/v2/commands/newsletter-signup', jobsOnly.auth, 'not json', { 'Content-Type': 'text/plain' }),
      await api.post('/api/v2/commands/job-application', none.auth, application({})),
    ];
    for (const res of refused)
      expectErrors(res, 403, [
        { code: 'forbidden', detail: 'This key may not run this command.', meta: { reason: 'command_not_granted' } },
      ]);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
    expect((await app.http().post('/api/v2/commands/newsletter-signup').send({})).status).toBe(401);
    expect((await app.http().get('/api/v2/commands/newsletter-signup').set('Authorization', all.auth)).status).toBe(405);
  });
});

describe('job-application', () => {
  test('201 with a command result; the application is stored, linked to its job', async () => {
    const res = await api.post(
      '/api/v2/commands/job-application',
      all.auth,
      application({ ...VALID, email: '  ada@example.com ', phone: '+44 20 7946 0000', coverLetter: 'Dear team' }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      jsonapi: { version: '1.1' },
      data: { type: 'command-results', id: expect.stringMatching(UUID), attributes: { command: 'job-application', status: 'accepted' } },
    });
    const [stored] = (await applications()).slice(-1);
    expect(stored).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      coverLetter: 'Dear team',
      consent: true,
      cv: null,
    });
    expect(stored.job.documentId).toBe(jobs.open);
  });

  test.each([
    ['by id', () => jobs.undated],
    ['without a closing date', () => 'undated'],
    ['on its closing day', () => 'closes-today'],
  ])('a job %s takes applications', async (_label, job) => {
    const res = await api.post('/api/v2/commands/job-application', all.auth, application({ ...VALID, job: job() }));
    expect(res.status).toBe(201);
  });

  test.each([
    ['closed', 'job_closed'],
    ['draft', 'job_not_found'],
    ['archived', 'job_not_found'],
    ['no-such-job', 'job_not_found'],
  ])('a %s job: 422 pointing at the job, nothing stored', async (job, reason) => {
    const before = await tableSnapshot(s, UIDS);
    const res = await api.post('/api/v2/commands/job-application', all.auth, application({ ...VALID, job: jobs[job] ?? job }));
    expectErrors(res, 422, [{ code: 'unprocessable_entity', source: { pointer: '/data/attributes/job' }, meta: { reason } }]);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('every invalid attribute at once, in document order', async () => {
    const before = await tableSnapshot(s, UIDS);
    const res = await api.post(
      '/api/v2/commands/job-application',
      all.auth,
      application({ job: 'closed', name: '', email: 'not-an-email', phone: 'call me', consent: false, cv: 'x', salary: 1 }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.map((error: any) => [error.source.pointer, error.meta.reason])).toEqual([
      ['/data/attributes/consent', 'validation_failed'],
      ['/data/attributes/cv', 'attribute_unknown'],
      ['/data/attributes/email', 'validation_failed'],
      ['/data/attributes/job', 'job_closed'],
      ['/data/attributes/name', 'validation_failed'],
      ['/data/attributes/phone', 'validation_failed'],
      ['/data/attributes/salary', 'attribute_unknown'],
    ]);
    const missing = await api.post('/api/v2/commands/job-application', all.auth, application({}));
    expect(missing.body.errors.map((error: any) => [error.source.pointer, error.meta.reason])).toEqual(
      ['consent', 'email', 'job', 'name'].map((name) => [`/data/attributes/${name}`, 'attribute_required']),
    );
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('refusals of the body as for writes: 415, 413, 400, 409', async () => {
    const before = await tableSnapshot(s, UIDS);
    const path = '/api/v2/commands/job-application';
    expectErrors(await api.post(path, all.auth, JSON.stringify(application(VALID)), { 'Content-Type': 'text/plain' }), 415, [
      { source: { header: 'Content-Type' } },
    ]);
    expectErrors(
      await api.post(path, all.auth, { data: { type: 'job-application', attributes: { ...VALID, coverLetter: 'x'.repeat(1024 * 1024) } } }),
      413,
      [{ meta: { reason: 'body_too_large' } }],
    );
    expectErrors(await api.post(path, all.auth, '{"data":'), 400, [{ meta: { reason: 'body_malformed' } }]);
    expectErrors(await api.post(path, all.auth, { data: [] }), 400, [{ source: { pointer: '/data' } }]);
    expectErrors(await api.post(path, all.auth, { data: { type: 'newsletter-signup', attributes: VALID } }), 409, [
      { source: { pointer: '/data/type' }, meta: { reason: 'type_mismatch' } },
    ]);
    expectErrors(await api.post(path, all.auth, { data: { type: 'job-application', id: 'x', attributes: VALID } }), 403, [
      { source: { pointer: '/data/id' }, meta: { reason: 'client_id_not_supported' } },
    ]);
    expectErrors(await api.post(`${path}?locale=en`, all.auth, application(VALID)), 400, [{ source: { parameter: 'locale' } }]);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });
});

describe('job-application with a CV (multipart/form-data)', () => {
  const path = '/api/v2/commands/job-application';

  test('a real PDF is stored through the upload plugin and linked, whatever its name and declared type', async () => {
    const pdf = minimalPdf();
    const res = await multipart(path, all.auth, {
      data: application({ ...VALID, name: 'Grace Hopper' }),
      files: [cvPart(pdf, 'resume.exe', 'application/octet-stream')],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toEqual({ command: 'job-application', status: 'accepted' });
    const [stored] = (await applications()).slice(-1);
    expect(stored.name).toBe('Grace Hopper');
    expect(stored.cv).toMatchObject({ mime: 'application/pdf', ext: '.pdf', name: 'CV Grace Hopper.pdf' });
    expect(Math.round(stored.cv.size * 1024)).toBeGreaterThanOrEqual(pdf.length - 1);
    expect(stored.job.documentId).toBe(jobs.open);
  });

  test('a DOCX is recognized by its parts; the document may also come as a file part', async () => {
    let req = app.http().post(path).set('Authorization', all.auth);
    req = req.attach('data', Buffer.from(JSON.stringify(application({ ...VALID, name: 'Docx Applicant' }))), {
      filename: 'data.json',
      contentType: 'application/json',
    });
    req = req.attach('cv', minimalDocx(), { filename: 'cv.pdf', contentType: 'application/pdf' });
    const res = await req;
    expect(res.status).toBe(201);
    const [stored] = (await applications()).slice(-1);
    expect(stored.cv).toMatchObject({ mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', ext: '.docx' });
  });

  test.each([
    ['text that claims to be a PDF', Buffer.from('This is not a PDF at all, just text.\n'), 'cv.pdf', 'application/pdf'],
    [
      'a ZIP that is not a Word document',
      Buffer.alloc(0),
      'cv.docx',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ],
    ['a PNG named .pdf', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'cv.pdf', 'application/pdf'],
  ])('%s: 422 pointing at the CV, nothing stored', async (_label, content, filename, contentType) => {
    const { zip } = await import('../helpers/files');
    const bytes = content.length ? content : zip({ '[Content_Types].xml': '<Types/>', 'xl/workbook.xml': '<workbook/>' });
    const before = await tableSnapshot(s, UIDS);
    const res = await multipart(path, all.auth, { data: application(VALID), files: [cvPart(bytes, filename, contentType)] });
    expectErrors(res, 422, [{ source: { pointer: '/data/attributes/cv' }, meta: { reason: 'file_type_not_accepted' } }]);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('the CV problem is reported with the attributes’ problems', async () => {
    const res = await multipart(path, all.auth, { data: application({ ...VALID, consent: false }), files: [cvPart(Buffer.from('nope'))] });
    expect(res.body.errors.map((error: any) => error.source.pointer)).toEqual(['/data/attributes/consent', '/data/attributes/cv']);
  });

  test('at most 10 MiB: exactly 10 MiB is accepted, one byte more is 413', async () => {
    const limit = 10 * 1024 * 1024;
    const pdf = minimalPdf();
    const padded = (size: number) => Buffer.concat([pdf, Buffer.alloc(size - pdf.length, 0x20)]);
    expect((await multipart(path, all.auth, { data: application(VALID), files: [cvPart(padded(limit))] })).status).toBe(201);
    const before = await tableSnapshot(s, UIDS);
    const res = await multipart(path, all.auth, { data: application(VALID), files: [cvPart(padded(limit + 1))] });
    expectErrors(res, 413, [{ code: 'payload_too_large', meta: { reason: 'file_too_large' } }]);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('an empty file part is no CV', async () => {
    const res = await multipart(path, all.auth, { data: application(VALID), files: [cvPart(Buffer.alloc(0), '')] });
    expect(res.status).toBe(201);
    expect((await applications()).slice(-1)[0].cv).toBeNull();
  });

  test('malformed forms are 400, forms to commands without files 415', async () => {
    const before = await tableSnapshot(s, UIDS);
    expectErrors(await multipart(path, all.auth, { files: [cvPart(minimalPdf())] }), 400, [
      { meta: { reason: 'multipart_document_missing' } },
    ]);
    expectErrors(await multipart(path, all.auth, { data: application(VALID), fields: { photo: 'x' } }), 400, [
      { meta: { reason: 'multipart_part_unknown' } },
    ]);
    expectErrors(await multipart(path, all.auth, { data: application(VALID), fields: { cv: 'x' } }), 400, [
      { meta: { reason: 'multipart_part_not_file' } },
    ]);
    expectErrors(await multipart(path, all.auth, { data: application(VALID), files: [cvPart(minimalPdf()), cvPart(minimalPdf())] }), 400, [
      { meta: { reason: 'multipart_part_repeated' } },
    ]);
    expectErrors(await multipart(path, all.auth, { data: '{"data":' }), 400, [{ meta: { reason: 'body_malformed' } }]);
    expectErrors(await api.post(path, all.auth, '--x\r\nnothing', { 'Content-Type': 'multipart/form-data' }), 400, [
      { meta: { reason: 'multipart_malformed' } },
    ]);
    expectErrors(
      await multipart('/api/v2/commands/newsletter-signup', all.auth, { data: signup({ email: 'a@b.co', consent: true }) }),
      415,
      [{ source: { header: 'Content-Type' } }],
    );
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('Idempotency-Key: the same form replays, another file is another request', async () => {
    const count = (await applications()).length;
    const headers = { 'Idempotency-Key': 'cv-once' };
    const first = await multipart(path, all.auth, { data: application(VALID), files: [cvPart(minimalPdf('one'))] }, headers);
    const again = await multipart(
      path,
      all.auth,
      { data: application(VALID), files: [cvPart(minimalPdf('one'), 'other-name.pdf')] },
      headers,
    );
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const other = await multipart(path, all.auth, { data: application(VALID), files: [cvPart(minimalPdf('two'))] }, headers);
    expectErrors(other, 422, [{ source: { header: 'Idempotency-Key' }, meta: { reason: 'idempotency_key_reused' } }]);
    expect((await applications()).length).toBe(count + 1);
  });

  test('an application rolled back after the command ran (its Idempotency-Key claim lost) leaves no CV behind', async () => {
    const uploads = nodePath.join(s.dirs.static.public, 'uploads');
    const leftovers = () => fs.readdirSync(uploads).filter((name) => /^CV_Lost_Claim/i.test(name));
    const idempotency = s.plugin('public-api').service('idempotency') as { complete: (...args: unknown[]) => Promise<boolean> };
    const complete = idempotency.complete;
    // As if another instance had taken the claim over while the command ran.
    idempotency.complete = async () => false;
    const count = (await applications()).length;
    try {
      const res = await multipart(
        path,
        all.auth,
        { data: application({ ...VALID, name: 'Lost Claim' }), files: [cvPart(minimalPdf())] },
        { 'Idempotency-Key': 'cv-lost' },
      );
      expectErrors(res, 409, [{ source: { header: 'Idempotency-Key' }, meta: { reason: 'idempotency_superseded' } }]);
    } finally {
      idempotency.complete = complete;
    }
    expect((await applications()).length).toBe(count);
    expect(await s.db.query('plugin::upload.file').count({ where: { name: 'CV Lost Claim.pdf' } })).toBe(0);
    // The rollback's clean-up runs right after the rollback; give it a moment.
    for (let i = 0; i < 50 && leftovers().length; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(leftovers()).toEqual([]);
  });

  test('editors see the application with its CV in the admin, on its job', async () => {
    await multipart(path, all.auth, { data: application({ ...VALID, name: 'Seen In Admin' }), files: [cvPart(minimalPdf())] });
    const admin = await superAdmin(app);
    const [stored] = (await applications()).slice(-1);
    const res = await app
      .http()
      .get(`/content-manager/collection-types/${APPLICATION}/${stored.documentId}`)
      .set('Authorization', admin.auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Seen In Admin', cv: { mime: 'application/pdf' } });
    const relation = await app
      .http()
      .get(`/content-manager/relations/${APPLICATION}/${stored.documentId}/job`)
      .set('Authorization', admin.auth);
    expect(relation.status).toBe(200);
    expect(relation.body.results.map((job: any) => job.documentId)).toEqual([jobs.open]);
    const fromJob = await app
      .http()
      .get(`/content-manager/relations/${JOB}/${jobs.open}/applications?pageSize=100`)
      .set('Authorization', admin.auth);
    expect(fromJob.status).toBe(200);
    expect(fromJob.body.results.map((entry: any) => entry.documentId)).toContain(stored.documentId);
  });
});

describe('newsletter-signup', () => {
  const path = '/api/v2/commands/newsletter-signup';
  const subscriptions = async () => (await s.db.query(SUBSCRIPTION).findMany({ orderBy: { id: 'asc' } })) as any[];
  const withoutId = (body: any) => ({ ...body, data: { ...body.data, id: '<id>' } });

  test('stores the normalized email; a second signup creates nothing, changes nothing and answers the same', async () => {
    const first = await api.post(
      path,
      all.auth,
      signup({ email: '  Lin@Example.COM ', name: 'Lin', locale: 'de', topics: ['jobs', 'events', 'jobs'], consent: true }),
    );
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      jsonapi: { version: '1.1' },
      data: { type: 'command-results', id: expect.stringMatching(UUID), attributes: { command: 'newsletter-signup', status: 'accepted' } },
    });
    const stored = await subscriptions();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ email: 'lin@example.com', name: 'Lin', language: 'de', topics: ['jobs', 'events'], consent: true });

    const second = await api.post(path, all.auth, signup({ email: 'lin@example.com', name: 'Someone Else', consent: true }));
    expect(second.status).toBe(first.status);
    expect(second.headers['location']).toBeUndefined();
    expect(withoutId(second.body)).toEqual(withoutId(first.body));
    expect(second.body.data.id).not.toBe(first.body.data.id);
    expect(await subscriptions()).toEqual(stored);
  });

  test('an address subscribed by an editor (any case) gets the answer a new one gets', async () => {
    await s.documents(SUBSCRIPTION).create({ data: { email: 'Editor.Added@example.com', consent: true } as never });
    const count = (await subscriptions()).length;
    const existing = await api.post(path, all.auth, signup({ email: 'editor.added@example.com', consent: true }));
    const fresh = await api.post(path, all.auth, signup({ email: 'brand.new@example.com', consent: true }));
    expect(existing.status).toBe(201);
    expect(withoutId(existing.body)).toEqual(withoutId(fresh.body));
    expect(Object.keys(existing.headers).sort()).toEqual(Object.keys(fresh.headers).sort());
    expect((await subscriptions()).length).toBe(count + 1);
  });

  test('signups of one address at the same time create one record and all answer alike', async () => {
    const email = 'same.time@example.com';
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.post(path, all.auth, signup({ email: i % 2 ? email.toUpperCase() : email, consent: true }))),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((res) => JSON.stringify(withoutId(res.body)))).size).toBe(1);
    expect((await subscriptions()).filter((row) => row.email.toLowerCase() === email)).toHaveLength(1);
  });

  test('every invalid attribute at once', async () => {
    const before = await tableSnapshot(s, UIDS);
    const res = await api.post(path, all.auth, signup({ email: 'nope', locale: 'fr', topics: ['ok', 3, ''], consent: 'yes' }));
    expect(res.status).toBe(422);
    expect(res.body.errors.map((error: any) => error.source.pointer)).toEqual([
      '/data/attributes/consent',
      '/data/attributes/email',
      '/data/attributes/locale',
      '/data/attributes/topics/1',
      '/data/attributes/topics/2',
    ]);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('Idempotency-Key: byte-for-byte replay, another body is 422', async () => {
    const headers = { 'Idempotency-Key': '"signup-1"' };
    const first = await api.post(path, all.auth, signup({ email: 'idem@example.com', consent: true }), headers);
    const again = await api.post(path, all.auth, signup({ email: 'idem@example.com', consent: true }), headers);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expectErrors(await api.post(path, all.auth, signup({ email: 'other@example.com', consent: true }), headers), 422, [
      { meta: { reason: 'idempotency_key_reused' } },
    ]);
    // A refusal before the handler is not stored: the key is still free for a corrected request.
    expect((await api.post(path, all.auth, 'x', { ...headers, 'Idempotency-Key': 'fresh', 'Content-Type': 'text/plain' })).status).toBe(
      415,
    );
    expect(
      (await api.post(path, all.auth, signup({ email: 'fresh@example.com', consent: true }), { 'Idempotency-Key': 'fresh' })).status,
    ).toBe(201);
  });
});
