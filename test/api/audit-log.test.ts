/**
 * The audit log (issue 19): every admin change to a key or website is recorded with who made it and a
 * readable diff, in the change's own transaction (no entry for a refused change; no change without its
 * entry); the plaintext key and its hash never appear in it; the admin route pages newest first by keyset
 * and needs the read permission.
 */
import type { Knex } from 'knex';
import { bootApp, type TestApp } from '../helpers/app';
import { adminWith, allActionsBut, superAdmin, type AdminSession } from '../helpers/admin';
import type { AuditEntry } from '../../src/plugins/public-api/shared/contracts/audit';

let app: TestApp;
let admin: AdminSession;
let adminUser: { id: number; email: string };

beforeAll(async () => {
  app = await bootApp();
  admin = await superAdmin(app);
  const me = await app.http().get('/admin/users/me').set('Authorization', admin.auth);
  adminUser = { id: me.body.data.id, email: me.body.data.email };
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const api = (session: AdminSession = admin) => ({
  get: (path: string) => app.http().get(`/public-api${path}`).set('Authorization', session.auth),
  post: (path: string, body?: object) =>
    app
      .http()
      .post(`/public-api${path}`)
      .set('Authorization', session.auth)
      .send(body ?? {}),
  put: (path: string, body: object) => app.http().put(`/public-api${path}`).set('Authorization', session.auth).send(body),
  del: (path: string) => app.http().delete(`/public-api${path}`).set('Authorization', session.auth),
});

const knex = () => app.strapi.db.connection as unknown as Knex;

/** Every entry of one subject, oldest first. */
const entriesOf = async (type: 'key' | 'website', id: number): Promise<AuditEntry[]> => {
  const res = await api().get(`/audit-log?subjectType=${type}&subjectId=${id}&limit=100`);
  expect(res.status).toBe(200);
  return [...(res.body.data as AuditEntry[])].reverse();
};

const PAGES = { collection: 'pages', contentType: 'api::page.page', mode: 'collection' };
const SETTINGS = { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' };
const none = { added: [], removed: [] };

describe('keys', () => {
  test('created, changed, regenerated, revoked, deleted: each recorded with its actor and diff; no secret anywhere', async () => {
    const created = await api().post('/keys', {
      name: 'Shop frontend',
      grants: { resources: { 'native:events': { actions: ['read'], read: ['title', 'summary'], write: [] } }, commands: [], origins: [] },
    });
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    const plaintexts: string[] = [created.body.meta.plaintext];

    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const changed = await api().put(`/keys/${id}`, {
      name: 'Shop frontend (prod)',
      expiresAt,
      cache: { sharedMaxAge: 60 },
      preview: true,
      grants: {
        resources: {
          'native:events': { actions: ['read'], read: ['title', 'startsAt'], write: [] },
          'native:products': { actions: ['read'], read: ['name'], write: [] },
        },
        commands: ['newsletter-signup'],
        origins: ['https://shop.example'],
      },
    });
    expect(changed.status).toBe(200);
    // Saved again with nothing different: not a change.
    expect((await api().put(`/keys/${id}`, { name: 'Shop frontend (prod)' })).status).toBe(200);
    // Refused: nothing changed, nothing recorded.
    expect((await api().put(`/keys/${id}`, { name: '' })).status).toBe(400);
    const regenerated = await api().post(`/keys/${id}/regenerate`);
    expect(regenerated.status).toBe(200);
    plaintexts.push(regenerated.body.meta.plaintext);
    expect((await api().post(`/keys/${id}/revoke`)).status).toBe(200);
    // The stored hash of the key's last secret (the row goes with the delete below).
    const { secret_hash: secretHash } = (await knex()('public_api_keys').where({ id }).first('secret_hash')) as { secret_hash: string };
    expect(secretHash).toMatch(/^[0-9a-f]{32,}$/i);
    expect((await api().del(`/keys/${id}`)).status).toBe(200);

    const entries = await entriesOf('key', id);
    const actor = { id: adminUser.id, name: expect.stringContaining('Test'), email: adminUser.email };
    expect(entries.map((entry) => entry.action)).toEqual(['created', 'changed', 'regenerated', 'revoked', 'deleted']);
    for (const entry of entries) {
      expect(entry.actor).toEqual(actor);
      expect(entry.subject).toMatchObject({ type: 'key', id });
      expect(Date.parse(entry.at)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(entries[0]!.subject.name).toBe('Shop frontend');
    expect(entries[0]!.changes).toEqual([
      { kind: 'value', field: 'name', from: null, to: 'Shop frontend' },
      { kind: 'value', field: 'preview', from: null, to: false },
      { kind: 'value', field: 'revoked', from: null, to: false },
      {
        kind: 'resource',
        resource: 'native:events',
        status: 'added',
        actions: { added: ['read'], removed: [] },
        read: { added: ['title', 'summary'], removed: [] },
        write: none,
      },
    ]);
    expect(entries[1]!.changes).toEqual([
      { kind: 'value', field: 'name', from: 'Shop frontend', to: 'Shop frontend (prod)' },
      { kind: 'value', field: 'expiresAt', from: null, to: expiresAt },
      { kind: 'value', field: 'cache', from: null, to: { sharedMaxAge: 60 } },
      { kind: 'value', field: 'preview', from: false, to: true },
      {
        kind: 'resource',
        resource: 'native:events',
        status: 'changed',
        actions: none,
        read: { added: ['startsAt'], removed: ['summary'] },
        write: none,
      },
      {
        kind: 'resource',
        resource: 'native:products',
        status: 'added',
        actions: { added: ['read'], removed: [] },
        read: { added: ['name'], removed: [] },
        write: none,
      },
      { kind: 'list', field: 'commands', added: ['newsletter-signup'], removed: [] },
      { kind: 'list', field: 'origins', added: ['https://shop.example'], removed: [] },
    ]);
    expect(entries[2]!.changes).toEqual([]);
    expect(entries[3]!.changes).toEqual([{ kind: 'value', field: 'revoked', from: false, to: true }]);
    expect(entries[4]!.changes).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'resource', resource: 'native:products', status: 'removed' })]),
    );

    // The stored rows, searched as text: no plaintext, no secret part of one, no stored hash.
    const stored = JSON.stringify(await knex()('public_api_audit_log').select('*'));
    for (const plaintext of plaintexts) {
      expect(stored).not.toContain(plaintext);
      expect(stored).not.toContain(plaintext.split('_')[2]);
    }
    expect(stored).not.toContain(secretHash);
    // Nor in what the admin route answers.
    expect(JSON.stringify(entries)).not.toContain(secretHash);
  });

  test('a change whose entry cannot be written is undone with it', async () => {
    const created = await api().post('/keys', { name: 'Rollback', grants: {} });
    const { id } = created.body.data;
    const audit = app.strapi.plugin('public-api').service('audit-log') as { record: (...args: unknown[]) => Promise<void> };
    const record = audit.record;
    audit.record = async () => {
      throw new Error('the audit table is unreachable');
    };
    try {
      const res = await api().put(`/keys/${id}`, { name: 'Renamed' });
      expect(res.status).toBe(500);
    } finally {
      audit.record = record;
    }
    expect((await api().get(`/keys/${id}`)).body.data.name).toBe('Rollback');
    expect((await entriesOf('key', id)).map((entry) => entry.action)).toEqual(['created']);
  });
});

describe('websites', () => {
  test('created, changed, deleted; the keys whose grants followed get entries of their own', async () => {
    const website = await api().post('/websites', { name: 'Audited', publications: [PAGES, SETTINGS] });
    expect(website.status).toBe(201);
    const { id } = website.body.data;
    const key = await api().post('/keys', {
      name: 'On the website',
      grants: { resources: { 'cms:audited/pages': { actions: ['read'], read: ['title'], write: [] } }, commands: [], origins: [] },
    });
    const keyId = key.body.data.id;
    expect((await api().put(`/websites/${id}`, { name: 'Audited site', slug: 'audited-site', publications: [PAGES] })).status).toBe(200);
    expect((await api().put(`/websites/${id}`, { name: 'Audited site' })).status).toBe(200);
    expect((await api().put(`/websites/${id}`, { slug: 'Not A Slug' })).status).toBe(400);
    expect((await api().del(`/websites/${id}`)).status).toBe(200);

    const entries = await entriesOf('website', id);
    expect(entries.map((entry) => entry.action)).toEqual(['created', 'changed', 'deleted']);
    expect(entries[0]!.changes).toEqual([
      { kind: 'value', field: 'name', from: null, to: 'Audited' },
      { kind: 'value', field: 'slug', from: null, to: 'audited' },
      { kind: 'publication', collection: 'pages', status: 'added', from: null, to: { contentType: 'api::page.page', mode: 'collection' } },
      {
        kind: 'publication',
        collection: 'settings',
        status: 'added',
        from: null,
        to: { contentType: 'api::setting.setting', mode: 'singleton' },
      },
    ]);
    expect(entries[1]!.changes).toEqual([
      { kind: 'value', field: 'name', from: 'Audited', to: 'Audited site' },
      { kind: 'value', field: 'slug', from: 'audited', to: 'audited-site' },
      {
        kind: 'publication',
        collection: 'settings',
        status: 'removed',
        from: { contentType: 'api::setting.setting', mode: 'singleton' },
        to: null,
      },
    ]);

    const keyEntries = await entriesOf('key', keyId);
    expect(keyEntries.map((entry) => [entry.action, entry.cause])).toEqual([
      ['created', null],
      ['changed', "Website 'audited' changed"],
      ['changed', "Website 'audited-site' deleted"],
    ]);
    expect(keyEntries[1]!.changes).toEqual([
      {
        kind: 'resource',
        resource: 'cms:audited-site/pages',
        status: 'added',
        actions: { added: ['read'], removed: [] },
        read: { added: ['title'], removed: [] },
        write: none,
      },
      {
        kind: 'resource',
        resource: 'cms:audited/pages',
        status: 'removed',
        actions: { added: [], removed: ['read'] },
        read: { added: [], removed: ['title'] },
        write: none,
      },
    ]);
  });
});

describe('the admin route', () => {
  test('newest first, keyset-paged without gaps or repeats; filters; refusals; the read permission', async () => {
    for (let i = 0; i < 5; i += 1) await api().post('/keys', { name: `Paged ${i}`, grants: {} });
    const seen: number[] = [];
    let before: number | null = null;
    do {
      const res = await api().get(`/audit-log?limit=2${before ? `&before=${before}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((entry: AuditEntry) => entry.id));
      before = res.body.meta.next;
    } while (before !== null);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    expect(new Set(seen).size).toBe(seen.length);
    const total = Number((await knex()('public_api_audit_log').count({ n: '*' }))[0]!.n);
    expect(seen).toHaveLength(total);

    const websitesOnly = await api().get('/audit-log?subjectType=website');
    expect(websitesOnly.body.data.every((entry: AuditEntry) => entry.subject.type === 'website')).toBe(true);

    for (const query of ['subjectType=user', 'limit=0', 'limit=101', 'before=abc', 'subjectId=-1', 'secret=1']) {
      const res = await api().get(`/audit-log?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.name).toBe('ValidationError');
    }
    expect((await api(await adminWith(app, ['read'])).get('/audit-log')).status).toBe(200);
    expect((await api(await adminWith(app, allActionsBut('read'))).get('/audit-log')).status).toBe(403);
    expect((await app.http().get('/public-api/audit-log')).status).toBe(401);
  });
});
