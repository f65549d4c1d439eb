/**
 * An admin may grant, publish or preview only what they may do themselves in the Content Manager
 * (contract section 18, issue 33 item 1). Real admin users and roles, logged in through /admin/login:
 * the plugin's own permissions no longer get around the Content Manager's, on any admin route that can
 * widen what a key reads or writes, or hand over what it reads (its secret, a webhook).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { adminWith, contentManagerFields, superAdmin, type AdminSession, type ContentManagerPermission } from '../helpers/admin';

let app: TestApp;
let root: AdminSession;

const APPLICATIONS = 'api::job-application.job-application';
const EVENTS = 'api::event.event';
const PAGES = { collection: 'pages', contentType: 'api::page.page', mode: 'collection' };
const APPLICANTS = { collection: 'applicants', contentType: APPLICATIONS, mode: 'collection' };
const REFUSAL = 'You may grant, publish or preview only what you may do yourself in the Content Manager.';
const PREVIEW_REFUSAL =
  "preview: A preview key reads the drafts of native:events, and you may not read 'title', 'slug', 'sort' of api::event.event in the Content Manager.";

type Issue = { path: string[]; message: string };
type Response = {
  status: number;
  body: { data?: unknown; error?: { name: string; message: string; details?: { reason?: string; errors?: Issue[] } } };
};

const as = (session: AdminSession) => ({
  get: (path: string) => app.http().get(`/public-api${path}`).set('Authorization', session.auth),
  post: (path: string, body: object = {}) => app.http().post(`/public-api${path}`).set('Authorization', session.auth).send(body),
  put: (path: string, body: object) => app.http().put(`/public-api${path}`).set('Authorization', session.auth).send(body),
});

/** A 403 from the Content Manager check, with its issues as `path: message` lines. */
const refusal = (res: Response) => {
  expect(res.status).toBe(403);
  expect(res.body.error).toEqual(
    expect.objectContaining({ name: 'PolicyError', details: expect.objectContaining({ reason: 'content_manager_permissions' }) }),
  );
  return (res.body.error!.details!.errors ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

const readAll = (subject: string, extra: Partial<ContentManagerPermission> = {}): ContentManagerPermission => ({
  action: 'read',
  subject,
  ...extra,
});

const APPLICANT_GRANTS = { resources: { 'cms:hr/applicants': { actions: ['read'], read: ['name', 'email'] } } };
const EVENT_GRANTS = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };

let applicantsKeyId: number;

beforeAll(async () => {
  app = await bootApp();
  root = await superAdmin(app);
  await app.strapi.documents(APPLICATIONS).create({ data: { name: 'Ada Applicant', email: 'ada@applicant.example', consent: true } });
  const website = await as(root).post('/websites', { name: 'HR', slug: 'hr', publications: [APPLICANTS] });
  expect(website.status).toBe(201);
  const key = await as(root).post('/keys', { name: 'Applicants (root)', grants: APPLICANT_GRANTS });
  expect(key.status).toBe(201);
  applicantsKeyId = key.body.data.id;
});
afterAll(async () => {
  await app?.close();
});

describe('the bypasses of issue 33 are closed', () => {
  test('a website publication of a content type the admin may not read in the Content Manager is refused, and nothing is written', async () => {
    const attacker = await adminWith(app, ['read', 'create', 'update']);
    // The Content Manager itself refuses this admin.
    expect((await app.http().get(`/content-manager/collection-types/${APPLICATIONS}`).set('Authorization', attacker.auth)).status).toBe(
      403,
    );
    const res = await as(attacker).post('/websites', { name: 'Leak', slug: 'leak', publications: [PAGES, APPLICANTS] });
    expect(refusal(res)).toEqual([
      `publications.0.contentType: You may not read every record of api::page.page in the Content Manager, so you may not publish it.`,
      `publications.1.contentType: You may not read every record of ${APPLICATIONS} in the Content Manager, so you may not publish it.`,
    ]);
    expect(res.body.error!.message).toBe(REFUSAL);
    const websites = (await as(root).get('/websites')).body.data as { slug: string }[];
    expect(websites.map((website) => website.slug)).not.toContain('leak');
  });

  test('a key reading fields the admin may not read is refused; the same key by a super admin reads the applicants', async () => {
    const attacker = await adminWith(app, ['read', 'create', 'update']);
    const res = await as(attacker).post('/keys', { name: 'Leak', grants: APPLICANT_GRANTS });
    expect(refusal(res)).toEqual([
      `resources.cms:hr/applicants.actions: You may not read every record of ${APPLICATIONS} in the Content Manager, so you may not grant it on cms:hr/applicants.`,
      `resources.cms:hr/applicants.read: You may not read 'name', 'email' of ${APPLICATIONS} in the Content Manager, so you may not grant it on cms:hr/applicants.`,
    ]);
    const keys = (await as(root).get('/keys')).body.data as { name: string }[];
    expect(keys.map((key) => key.name)).not.toContain('Leak');

    const created = await as(root).post('/keys', { name: 'Applicants, by a super admin', grants: APPLICANT_GRANTS });
    expect(created.status).toBe(201);
    const read = await app.http().get('/api/v2/cms/hr/applicants').set('Authorization', `Bearer ${created.body.meta.plaintext}`);
    expect(read.status).toBe(200);
    expect(read.body.data.map((record: { attributes: object }) => record.attributes)).toEqual([
      { name: 'Ada Applicant', email: 'ada@applicant.example' },
    ]);
  });

  test('a preview key needs the right to read drafts in the Content Manager', async () => {
    const creator = await adminWith(app, ['create']);
    const res = await as(creator).post('/keys', { name: 'Drafts', preview: true, grants: EVENT_GRANTS });
    expect(refusal(res)).toEqual([
      'resources.native:events.actions: You may not read every record of api::event.event in the Content Manager, so you may not grant it on native:events.',
      "resources.native:events.read: You may not read 'title', 'slug', 'sort' of api::event.event in the Content Manager, so you may not grant it on native:events.",
      PREVIEW_REFUSAL,
    ]);
    // A key that already reads events: turning preview on is a widening too.
    const key = await as(root).post('/keys', { name: 'Events', grants: EVENT_GRANTS });
    const updater = await adminWith(app, ['update']);
    expect(refusal(await as(updater).put(`/keys/${key.body.data.id}`, { preview: true }))).toContain(PREVIEW_REFUSAL);
    expect((await as(root).get(`/keys/${key.body.data.id}`)).body.data.preview).toBe(false);
    // With the Content Manager's read of events (drafts included: Strapi 5 has one read for both), it may.
    const editor = await adminWith(app, ['create', 'update'], [readAll(EVENTS)]);
    expect((await as(editor).put(`/keys/${key.body.data.id}`, { preview: true })).status).toBe(200);
    expect((await as(editor).post('/keys', { name: 'Drafts', preview: true, grants: EVENT_GRANTS })).status).toBe(201);
  });

  test("copying another key's grants into a new key or an existing one is refused", async () => {
    const attacker = await adminWith(app, ['read', 'create', 'update'], [readAll(EVENTS)]);
    const copied = (await as(attacker).get(`/keys/${applicantsKeyId}`)).body.data.grants;
    expect(refusal(await as(attacker).post('/keys', { name: 'Copy', grants: copied }))).toHaveLength(2);
    const own = await as(attacker).post('/keys', { name: 'Mine', grants: EVENT_GRANTS });
    expect(own.status).toBe(201);
    const merged = { ...copied, resources: { ...copied.resources, ...EVENT_GRANTS.resources } };
    expect(refusal(await as(attacker).put(`/keys/${own.body.data.id}`, { grants: merged }))).toHaveLength(2);
    expect((await as(root).get(`/keys/${own.body.data.id}`)).body.data.grants.resources).toEqual({
      'native:events': { actions: ['read'], read: ['title'], write: [] },
    });
  });

  test('a key the admin cannot see whole may be narrowed or renamed, not widened, even with what they may read', async () => {
    const editor = await adminWith(app, ['read', 'update'], [readAll(EVENTS)]);
    const widened = { resources: { ...APPLICANT_GRANTS.resources, ...EVENT_GRANTS.resources } };
    expect(refusal(await as(editor).put(`/keys/${applicantsKeyId}`, { grants: widened }))).toEqual([
      `resources.cms:hr/applicants.actions: This key already holds what you may not do in the Content Manager (read every record of ${APPLICATIONS}): you may narrow it, not widen it.`,
      `resources.cms:hr/applicants.read: This key already holds what you may not do in the Content Manager (read 'name', 'email' of ${APPLICATIONS}): you may narrow it, not widen it.`,
    ]);
    expect((await as(editor).put(`/keys/${applicantsKeyId}`, { name: 'Applicants (renamed)' })).status).toBe(200);
    const narrowed = await as(editor).put(`/keys/${applicantsKeyId}`, {
      grants: { resources: { 'cms:hr/applicants': { actions: ['read'], read: ['name'] } } },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.data.grants.resources).toEqual({ 'cms:hr/applicants': { actions: ['read'], read: ['name'], write: [] } });
    // Put back as it was, by a super admin (unaffected).
    expect((await as(root).put(`/keys/${applicantsKeyId}`, { grants: APPLICANT_GRANTS })).status).toBe(200);
  });

  test("regenerating a key's secret, or adding or redirecting its webhooks, needs all the key does", async () => {
    const regenerator = await adminWith(app, ['regenerate']);
    const res = await as(regenerator).post(`/keys/${applicantsKeyId}/regenerate`);
    expect(res.body.error?.message).toMatch(/^This key holds what you may not do yourself in the Content Manager/);
    expect(refusal(res)).toHaveLength(2);
    expect((await as(root).post(`/keys/${applicantsKeyId}/regenerate`)).status).toBe(200);

    const updater = await adminWith(app, ['read', 'update']);
    const url = 'https://hooks.example/applicants';
    expect(refusal(await as(updater).post(`/keys/${applicantsKeyId}/webhooks`, { url }))).toHaveLength(2);
    const endpoint = await as(root).post(`/keys/${applicantsKeyId}/webhooks`, { url });
    expect(endpoint.status).toBe(201);
    const id = endpoint.body.data.id as number;
    expect(refusal(await as(updater).put(`/webhooks/${id}`, { url: 'https://elsewhere.example/hook' }))).toHaveLength(2);
    expect(refusal(await as(updater).put(`/webhooks/${id}`, { enabled: true }))).toHaveLength(2);
    // Taking away or describing needs no more than the plugin's update.
    expect((await as(updater).put(`/webhooks/${id}`, { enabled: false, description: 'off' })).status).toBe(200);
    expect((await as(updater).post(`/keys/${applicantsKeyId}/revoke`)).status).toBe(200);
  });
});

describe('an admin with the Content Manager rights', () => {
  test('publishes, grants and previews what the Content Manager lets them, field by field', async () => {
    const fields = contentManagerFields(app.strapi, APPLICATIONS).filter((field) => field !== 'email');
    const hr = await adminWith(app, ['read', 'create', 'update'], [readAll(APPLICATIONS, { fields })]);
    const website = await as(hr).post('/websites', { name: 'HR two', slug: 'hr-two', publications: [APPLICANTS] });
    expect(website.status).toBe(201);
    const grants = (read: string[]) => ({ resources: { 'cms:hr-two/applicants': { actions: ['read'], read } } });
    expect((await as(hr).post('/keys', { name: 'Names', grants: grants(['name', 'phone']) })).status).toBe(201);
    expect(refusal(await as(hr).post('/keys', { name: 'Mails', grants: grants(['name', 'email']) }))).toEqual([
      `resources.cms:hr-two/applicants.read: You may not read 'email' of ${APPLICATIONS} in the Content Manager, so you may not grant it on cms:hr-two/applicants.`,
    ]);
  });

  test('a component field needs every path inside it', async () => {
    const withoutDescription = contentManagerFields(app.strapi, EVENTS).filter((field) => field !== 'seo.metaDescription');
    const editor = await adminWith(app, ['create'], [readAll(EVENTS, { fields: withoutDescription })]);
    const grants = (read: string[]) => ({ resources: { 'native:events': { actions: ['read'], read } } });
    expect((await as(editor).post('/keys', { name: 'Titles', grants: grants(['title', 'venue']) })).status).toBe(201);
    expect(refusal(await as(editor).post('/keys', { name: 'SEO', grants: grants(['title', 'seo']) }))).toEqual([
      "resources.native:events.read: You may not read 'seo.metaDescription' of api::event.event in the Content Manager, so you may not grant it on native:events.",
    ]);
  });

  test('writes need create or update on the written fields, and publish (records written through the API are published); delete needs delete', async () => {
    const grant = (actions: string[], write: string[] = []) => ({
      resources: { 'native:events': { actions: ['read', ...actions], read: ['title'], write } },
    });
    const reader = await adminWith(app, ['create'], [readAll(EVENTS), { action: 'create', subject: EVENTS, fields: ['title'] }]);
    expect(refusal(await as(reader).post('/keys', { name: 'W', grants: grant(['create'], ['title']) }))).toEqual([
      'resources.native:events.actions: You may not publish every record of api::event.event in the Content Manager, so you may not grant it on native:events.',
    ]);
    const writer = await adminWith(
      app,
      ['create'],
      [readAll(EVENTS), { action: 'create', subject: EVENTS, fields: ['title'] }, { action: 'publish', subject: EVENTS }],
    );
    expect((await as(writer).post('/keys', { name: 'W1', grants: grant(['create'], ['title']) })).status).toBe(201);
    expect(refusal(await as(writer).post('/keys', { name: 'W2', grants: grant(['create'], ['title', 'summary']) }))).toEqual([
      "resources.native:events.write: You may not create 'summary' of api::event.event in the Content Manager, so you may not grant it on native:events.",
    ]);
    expect(refusal(await as(writer).post('/keys', { name: 'W3', grants: grant(['update', 'delete'], ['title']) }))).toEqual([
      'resources.native:events.actions: You may not update every record or delete every record of api::event.event in the Content Manager, so you may not grant it on native:events.',
      "resources.native:events.write: You may not update 'title' of api::event.event in the Content Manager, so you may not grant it on native:events.",
    ]);
  });

  test('a permission with conditions, or for only some locales, covers not every record a key reads', async () => {
    const own = await adminWith(app, ['create'], [readAll(EVENTS, { conditions: ['admin::is-creator'] })]);
    expect(refusal(await as(own).post('/keys', { name: 'Own', grants: EVENT_GRANTS }))).toHaveLength(2);
    const noLocale = await adminWith(app, ['create'], [readAll(EVENTS, { locales: [] })]);
    expect(refusal(await as(noLocale).post('/keys', { name: 'None', grants: EVENT_GRANTS }))).toHaveLength(2);
    const locales = (await app.strapi.plugin('i18n').service('locales').find()) as { code: string }[];
    const codes = locales.map((locale) => locale.code);
    expect(codes.length).toBeGreaterThan(0);
    const everyLocale = await adminWith(app, ['create'], [readAll(EVENTS, { locales: codes })]);
    expect((await as(everyLocale).post('/keys', { name: 'All', grants: EVENT_GRANTS })).status).toBe(201);
  });

  test('a website may keep a publication its admin may not read: rename it, take another away', async () => {
    const editor = await adminWith(app, ['update'], [readAll('api::page.page')]);
    const created = await as(root).post('/websites', { name: 'Mixed', slug: 'mixed', publications: [PAGES, APPLICANTS] });
    expect(created.status).toBe(201);
    const id = created.body.data.id as number;
    expect((await as(editor).put(`/websites/${id}`, { name: 'Mixed, renamed' })).status).toBe(200);
    expect((await as(editor).put(`/websites/${id}`, { publications: [APPLICANTS] })).status).toBe(200);
    expect((await as(editor).put(`/websites/${id}`, { publications: [APPLICANTS, PAGES] })).status).toBe(200);
    const moved = { ...APPLICANTS, collection: 'people' };
    expect(refusal(await as(editor).put(`/websites/${id}`, { publications: [PAGES, moved] }))).toEqual([
      `publications.1.contentType: You may not read every record of ${APPLICATIONS} in the Content Manager, so you may not publish it.`,
    ]);
  });
});

test("a publication that changes its content type takes the keys' grants on it away: they were given for the other type's fields", async () => {
  const created = await as(root).post('/websites', { name: 'Swap', slug: 'swap', publications: [PAGES] });
  expect(created.status).toBe(201);
  const key = await as(root).post('/keys', {
    name: 'Swap pages',
    grants: { resources: { 'cms:swap/pages': { actions: ['read'], read: ['title', 'summary'] } } },
  });
  expect(key.status).toBe(201);
  const events = { ...PAGES, contentType: EVENTS };
  expect((await as(root).put(`/websites/${created.body.data.id}`, { publications: [events] })).status).toBe(200);
  // Events have a title and a summary too: carried over, the grant would read them.
  expect((await as(root).get(`/keys/${key.body.data.id}`)).body.data.grants.resources).toEqual({});
});

describe("the key page's notice", () => {
  test('GET /keys/:id/access says what the key holds that the admin may not do; a super admin sees it whole', async () => {
    const reader = await adminWith(app, ['read']);
    const res = await as(reader).get(`/keys/${applicantsKeyId}/access`);
    expect(res.status).toBe(200);
    expect(res.body.data.complete).toBe(false);
    expect(res.body.data.issues.map((issue: Issue) => issue.path.join('.'))).toEqual([
      'resources.cms:hr/applicants.actions',
      'resources.cms:hr/applicants.read',
    ]);
    expect((await as(root).get(`/keys/${applicantsKeyId}/access`)).body).toEqual({ data: { complete: true, issues: [] } });
    expect((await as(reader).get('/keys/999999/access')).status).toBe(404);
    expect((await app.http().get(`/public-api/keys/${applicantsKeyId}/access`)).status).toBe(401);
  });
});
