/**
 * The domain rules hold on every write path: Strapi's own admin content-manager API and the document
 * service, on create and on update, and across documents for SKUs.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { bootApp, type TestApp } from '../helpers/app';

const EVENT = 'api::event.event';
const FESTIVAL = 'api::festival.festival';
const JOB = 'api::job.job';
const PRODUCT = 'api::product.product';

let app: TestApp;
let strapi: Core.Strapi;
let adminToken: string;

const ADMIN = { email: 'editor@example.com', password: 'Editor-Passw0rd!' };

const createSuperAdmin = async () => {
  const superAdmin = (await strapi.service('admin::role').getSuperAdmin()) as { id: number };
  await strapi.service('admin::user').create({
    email: ADMIN.email,
    firstname: 'Eda',
    lastname: 'Editor',
    password: ADMIN.password,
    isActive: true,
    registrationToken: null,
    roles: [superAdmin.id],
  });
};

beforeAll(async () => {
  app = await bootApp();
  strapi = app.strapi;
  await strapi.plugin('i18n').service('locales').create({ code: 'de', name: 'German (de)' });
  await createSuperAdmin();
  const login = await app.http().post('/admin/login').send(ADMIN);
  expect(login.status).toBe(200);
  adminToken = login.body.data.token;
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const admin = {
  create: (uid: string, body: Record<string, unknown>, locale = 'en') =>
    app.http().post(`/content-manager/collection-types/${uid}?locale=${locale}`).set('Authorization', `Bearer ${adminToken}`).send(body),
  update: (uid: string, documentId: string, body: Record<string, unknown>, locale = 'en') =>
    app
      .http()
      .put(`/content-manager/collection-types/${uid}/${documentId}?locale=${locale}`)
      .set('Authorization', `Bearer ${adminToken}`)
      .send(body),
};

/** The admin's 400 for a broken rule names the field, in the shape the admin puts on the field. */
const expectAdminViolation = (res: { status: number; body: { error?: unknown } }, path: string, message: string) => {
  expect(res.status).toBe(400);
  expect(res.body.error).toEqual({
    status: 400,
    name: 'ValidationError',
    message,
    // `unquoted` rides along when the message quotes a value (what the Public Data API may send instead).
    details: { errors: [expect.objectContaining({ path: [path], message, name: 'ValidationError' })] },
  });
};

/** The document service rejects with a ValidationError whose details name the field. */
const expectViolation = async (write: Promise<unknown>, path: string) => {
  const error = await write.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(errors.ValidationError);
  expect((error as errors.ValidationError).details).toEqual({
    errors: [expect.objectContaining({ path: [path], message: expect.any(String), name: 'ValidationError' })],
  });
};

const draftRows = (uid: string, documentId: string) =>
  strapi.db
    .query(uid as Parameters<typeof strapi.db.query>[0])
    .findMany({ where: { documentId, publishedAt: null }, orderBy: { locale: 'asc' } });

/**
 * Attribute values for the document service's `update`. This app has no generated content-type
 * typings, so Strapi types update's `data` as `Partial<Input<uid>>`, which then knows only `id` and
 * `documentId` and refuses any attribute written as an object literal; given as an attribute map (as
 * `eventData` is for `create`), it is accepted. The rules under test check the values at runtime.
 */
const attributes = (values: Record<string, unknown>) => values;

const eventData = (overrides: Record<string, unknown> = {}) => ({
  title: 'Jazz at the Old Mill',
  category: 'concert',
  startsAt: '2025-03-14T19:00:00.000Z',
  endsAt: '2025-03-14T22:00:00.000Z',
  price: 18,
  ...overrides,
});

describe('through the admin content-manager API', () => {
  test('an event that ends before it starts is refused on endsAt, and nothing is stored', async () => {
    const before = await strapi.db.query(EVENT).count();
    const res = await admin.create(EVENT, eventData({ endsAt: '2025-03-14T18:00:00.000Z' }));
    expectAdminViolation(res, 'endsAt', 'An event must end after it starts (2025-03-14T19:00:00.000Z).');
    expect(await strapi.db.query(EVENT).count()).toBe(before);
  });

  test('an update that only moves startsAt past the stored endsAt is refused on startsAt', async () => {
    const created = await admin.create(EVENT, eventData({ title: 'Harbour Talk' }));
    expect(created.status).toBe(201);
    const { documentId } = created.body.data;
    const res = await admin.update(EVENT, documentId, { startsAt: '2025-03-15T09:00:00.000Z' });
    expectAdminViolation(res, 'startsAt', 'An event must start before it ends (2025-03-14T22:00:00.000Z).');
    const [draft] = await draftRows(EVENT, documentId);
    expect(new Date(draft.startsAt).toISOString()).toBe('2025-03-14T19:00:00.000Z');

    const moved = await admin.update(EVENT, documentId, { startsAt: '2025-03-14T20:00:00.000Z' });
    expect(moved.status).toBe(200);
    expect(moved.body.data.startsAt).toBe('2025-03-14T20:00:00.000Z');
  });

  test('a negative event price is refused on price', async () => {
    expectAdminViolation(await admin.create(EVENT, eventData({ price: -5 })), 'price', 'A price cannot be negative.');
  });

  test('a festival that ends before its first day is refused on endsOn', async () => {
    const res = await admin.create(FESTIVAL, { name: 'Summer Nights', startsOn: '2025-07-04', endsOn: '2025-07-03' });
    expectAdminViolation(res, 'endsOn', 'A festival cannot end before its first day (2025-07-04).');
    expect((await admin.create(FESTIVAL, { name: 'One Night Only', startsOn: '2025-07-04', endsOn: '2025-07-04' })).status).toBe(201);
  });

  test('a salary range upside down is refused, on the field the editor changed', async () => {
    const res = await admin.create(JOB, { title: 'Stage Technician', department: 'operations', salaryMin: 52000, salaryMax: 48000 });
    expectAdminViolation(res, 'salaryMax', 'The maximum salary cannot be below the minimum salary (52000).');
    const created = await admin.create(JOB, { title: 'Box Office Lead', department: 'sales', salaryMin: 38000, salaryMax: 44000 });
    expect(created.status).toBe(201);
    const update = await admin.update(JOB, created.body.data.documentId, { salaryMin: 45000 });
    expectAdminViolation(update, 'salaryMin', 'The minimum salary cannot exceed the maximum salary (44000).');
  });

  test('a SKU already used by another product is refused; the same product in another locale is not', async () => {
    const first = await admin.create(PRODUCT, { name: 'Festival Tote Bag', sku: 'MRC-TOTE-01', price: 14.5, currency: 'EUR' });
    expect(first.status).toBe(201);
    const copy = await admin.create(PRODUCT, { name: 'Tote Bag (blue)', sku: 'MRC-TOTE-01', price: 14.5, currency: 'EUR' });
    expectAdminViolation(copy, 'sku', 'This SKU is already used by another product (MRC-TOTE-01).');
    expectAdminViolation(
      await admin.create(PRODUCT, { name: 'Free Sticker', sku: 'MRC-STICK-01', price: -1, currency: 'EUR' }),
      'price',
      'A price cannot be negative.',
    );

    const german = await admin.update(
      PRODUCT,
      first.body.data.documentId,
      { name: 'Festival-Stofftasche', sku: 'MRC-TOTE-01', price: 14.5, currency: 'EUR' },
      'de',
    );
    expect(german.status).toBe(200);
    expect(german.body.data).toMatchObject({ locale: 'de', sku: 'MRC-TOTE-01' });
  });
});

describe('through the document service', () => {
  const events = () => strapi.documents(EVENT);
  const products = () => strapi.documents(PRODUCT);

  test('create and update are checked, partial updates against the stored values', async () => {
    await expectViolation(events().create({ data: eventData({ endsAt: '2025-03-14T19:00:00.000Z' }) }), 'endsAt');
    const event = await events().create({ data: eventData({ title: 'Printmaking Workshop', category: 'workshop' }) });

    await expectViolation(
      events().update({ documentId: event.documentId, data: attributes({ endsAt: '2025-03-14T18:30:00.000Z' }) }),
      'endsAt',
    );
    await expectViolation(
      events().update({ documentId: event.documentId, data: attributes({ startsAt: '2025-03-14T23:00:00.000Z' }) }),
      'startsAt',
    );
    await expectViolation(events().update({ documentId: event.documentId, data: attributes({ price: '-0.50' }) }), 'price');
    const [draft] = await draftRows(EVENT, event.documentId);
    expect(draft).toMatchObject({ endsAt: event.endsAt, startsAt: event.startsAt, price: 18 });

    // Clearing the end, then moving the start, is fine: no end, nothing to order.
    await events().update({ documentId: event.documentId, data: attributes({ endsAt: null }) });
    const moved = await events().update({ documentId: event.documentId, data: attributes({ startsAt: '2025-03-16T10:00:00.000Z' }) });
    expect(moved).toMatchObject({ endsAt: null });
  });

  test('a new locale starts from the shared values of the document', async () => {
    const event = await events().create({ data: eventData({ title: 'Open Studio Night', category: 'exhibition' }), locale: 'en' });
    // de does not exist yet: Strapi copies startsAt/endsAt from en, so moving only the start is checked against en's end.
    await expectViolation(
      events().update({
        documentId: event.documentId,
        locale: 'de',
        data: attributes({ title: 'Offenes Atelier', startsAt: '2025-03-15T09:00:00.000Z' }),
      }),
      'startsAt',
    );
    expect((await draftRows(EVENT, event.documentId)).map((row: { locale: string }) => row.locale)).toEqual(['en']);
    const german = await events().update({ documentId: event.documentId, locale: 'de', data: attributes({ title: 'Offenes Atelier' }) });
    expect(german).toMatchObject({ locale: 'de', startsAt: event.startsAt, endsAt: event.endsAt });
    // Shared fields changed in one locale are checked against that locale's stored values.
    await expectViolation(
      events().update({ documentId: event.documentId, locale: 'de', data: attributes({ endsAt: '2025-03-01T00:00:00.000Z' }) }),
      'endsAt',
    );
  });

  test('festival and job rules hold on update', async () => {
    const festival = await strapi
      .documents(FESTIVAL)
      .create({ data: { name: 'Harbour Lights', startsOn: '2025-08-01', endsOn: '2025-08-03' } });
    await expectViolation(
      strapi.documents(FESTIVAL).update({ documentId: festival.documentId, data: attributes({ startsOn: '2025-08-04' }) }),
      'startsOn',
    );
    const job = await strapi.documents(JOB).create({ data: { title: 'Archivist', department: 'programming', salaryMin: 40000 } });
    await expectViolation(
      strapi.documents(JOB).update({ documentId: job.documentId, data: attributes({ salaryMax: 39999 }) }),
      'salaryMax',
    );
    expect(await strapi.documents(JOB).update({ documentId: job.documentId, data: attributes({ salaryMax: 40000 }) })).toMatchObject({
      salaryMax: 40000,
    });
  });

  test('SKUs are unique across documents, draft or published, and shared by a document’s locales', async () => {
    const poster = await products().create({
      data: { name: 'Festival Poster', sku: 'PRT-POSTER-A2', price: 12, currency: 'EUR' },
      locale: 'en',
    });
    await products().publish({ documentId: poster.documentId, locale: 'en' });
    await expectViolation(products().create({ data: { name: 'Poster', sku: 'PRT-POSTER-A2', price: 12, currency: 'EUR' } }), 'sku');

    const catalogue = await products().create({ data: { name: 'Exhibition Catalogue', sku: 'PUB-CAT-2025', price: 29, currency: 'EUR' } });
    await expectViolation(products().update({ documentId: catalogue.documentId, data: attributes({ sku: 'PRT-POSTER-A2' }) }), 'sku');

    // The poster's draft moves on to a new SKU; its published version still holds the old one.
    await products().update({ documentId: poster.documentId, data: attributes({ sku: 'PRT-POSTER-A2-V2' }) });
    await expectViolation(products().update({ documentId: catalogue.documentId, data: attributes({ sku: 'PRT-POSTER-A2' }) }), 'sku');

    // The poster's own locales never conflict with it.
    const german = await products().update({
      documentId: poster.documentId,
      locale: 'de',
      data: attributes({ name: 'Festivalplakat', sku: 'PRT-POSTER-A2-V2' }),
    });
    expect(german).toMatchObject({ locale: 'de', sku: 'PRT-POSTER-A2-V2' });
    expect(
      await products().update({ documentId: poster.documentId, locale: 'en', data: attributes({ sku: 'PRT-POSTER-A2-V2', price: 13 }) }),
    ).toMatchObject({ price: 13 });

    // A clone is another document: it cannot keep its source's SKU.
    await expectViolation(products().clone({ documentId: catalogue.documentId }), 'sku');
    const cloned = await products().clone({ documentId: catalogue.documentId, data: { sku: 'PUB-CAT-2025-EN' } });
    expect(cloned?.entries[0]).toMatchObject({ sku: 'PUB-CAT-2025-EN' });
  });
});
