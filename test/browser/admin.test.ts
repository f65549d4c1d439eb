/**
 * The admin panel in a real browser: Chromium drives the built admin served by the application on a
 * fresh database. Keys are created, granted, seen once and revoked; websites publish resources that
 * the grant editor then offers; the tags field is a list of tags. Screenshots go to docs/screenshots.
 */
import type { Page } from 'playwright-core';
import { createAdminUser, createRole } from '../helpers/admin';
import { expectAccessible } from '../helpers/axe';
import {
  closeDialogWithEscape,
  launchBrowser,
  logIn,
  screenshot,
  startAdminApp,
  waitForValue,
  type AdminApp,
  type Browser,
} from '../helpers/browser';

let app: AdminApp;
let browser: Browser;
let page: Page;

/**
 * Console errors that are not the plugin's: the application has no favicon file (Strapi's favicon
 * middleware answers 500), the test machine has no internet (Strapi's release check), and Strapi's
 * content manager asks for AI features this edition does not have (404s).
 */
const NOT_THE_PLUGIN = [
  /\/favicon\.ico\b/,
  /api\.github\.com\/repos\/strapi\/strapi\/releases/,
  /\/admin\/ai-feature-config\b/,
  /\/i18n\/ai-localization-jobs\//,
];
/** Refusals a test provokes on purpose (the browser logs every 4xx answer as an error). */
const provoked: RegExp[] = [];
const pageErrors = () => {
  const errors = browser.errors.filter((error) => ![...NOT_THE_PLUGIN, ...provoked].some((pattern) => pattern.test(error)));
  browser.errors.length = 0;
  provoked.length = 0;
  return errors;
};

const v2 = async (path: string, key: string) => {
  const response = await fetch(`${app.baseUrl}/api/v2${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as { data: unknown } };
};

/** The Cache-Control of GET /api/v2/ for this key. */
const rateLimitPolicy = async (key: string) => {
  const response = await fetch(`${app.baseUrl}/api/v2/`, { headers: { Authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.headers.get('ratelimit-policy');
};

const cacheControl = async (key: string) => {
  const response = await fetch(`${app.baseUrl}/api/v2/`, { headers: { Authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.headers.get('cache-control');
};

/** What /api/v2/schema answers a key that reads the title and summary of events (OpenAPI 3.1). */
const SAMPLE_OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'Public Data API', version: '2' },
  paths: {
    '/events': {
      get: {
        summary: 'List events',
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
          { name: 'cursor', in: 'query', schema: { type: 'string' } },
          { name: 'sort', in: 'query', schema: { type: 'string', enum: ['title', '-title', 'summary', '-summary'] } },
        ],
      },
    },
    '/events/{record}': {
      parameters: [{ name: 'record', in: 'path', required: true, schema: { type: 'string' } }],
      get: { summary: 'Read one event' },
    },
  },
  components: {
    schemas: {
      EventsRecord: {
        type: 'object',
        description: 'An event as this key reads it.',
        required: ['type', 'id', 'attributes'],
        properties: {
          type: { const: 'events' },
          id: { type: 'string' },
          attributes: { $ref: '#/components/schemas/EventsAttributes' },
          meta: { type: 'object', properties: { createdAt: { type: 'integer' } } },
        },
      },
      EventsAttributes: {
        type: 'object',
        required: ['title'],
        properties: { title: { type: 'string' }, summary: { type: ['string', 'null'] } },
      },
      Meta: { type: 'object', properties: { updatedAt: { type: 'string', format: 'date-time' } } },
    },
  },
};

const settings = (path: string) => `${app.baseUrl}/admin/settings/public-api/${path}`;

beforeAll(async () => {
  app = await startAdminApp();
  // One published event, so that reading the collection with the new key returns a record.
  await app.strapi.documents('api::event.event').create({
    data: {
      title: 'Jazz night',
      summary: 'Late sets by the river',
      startsAt: '2030-06-01T19:00:00.000Z',
      category: 'concert',
      capacity: 120,
      soldOut: false,
    },
    status: 'published',
  });
  browser = await launchBrowser();
  page = browser.page;
  await logIn(page, app);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

afterEach(() => {
  expect(pageErrors()).toEqual([]);
});

let keyId = 0;
let plaintext = '';

test('the keys page starts empty and is reached from the settings menu by keyboard', async () => {
  await page.goto(`${app.baseUrl}/admin/settings`);
  const link = page.getByRole('link', { name: 'API keys', exact: true });
  await link.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/settings\/public-api\/keys$/);
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  await page.getByText('No API keys yet.', { exact: false }).waitFor();
  await screenshot(page, 'keys-empty');
});

test('create a key granting one resource with two readable fields; it is shown once', async () => {
  await page.getByRole('link', { name: 'Create a key' }).first().click();
  await page.waitForURL(/\/keys\/create$/);
  await page.getByLabel('Name').fill('Events website');
  await page.getByLabel('Description').fill('The public events site');

  // The grant matrix by keyboard: open the resource's fields in place, tick two with the space bar.
  const trigger = page.getByRole('button', { name: 'Fields of Events' });
  await trigger.focus();
  await page.keyboard.press('Enter');
  const fields = page.getByTestId('fields-native:events');
  for (const field of ['Title', 'Summary']) {
    await fields.getByRole('checkbox', { name: `${field} is readable`, exact: true }).focus();
    await page.keyboard.press('Space');
  }
  const events = page.getByTestId('grant-native:events');
  await expect(events.getByRole('checkbox', { name: 'Read Events', exact: true }).getAttribute('aria-checked')).resolves.toBe('true');
  await events.getByText('2 of', { exact: false }).waitFor();
  // The live preview shows the index the key will get.
  await page.getByTestId('preview-index').getByText('native:events').waitFor();
  await screenshot(page, 'key-create');

  await page.getByRole('button', { name: 'Create the key' }).click();
  await page.waitForURL(/\/keys\/\d+$/);
  keyId = Number(page.url().split('/').pop());
  const shown = page.getByTestId('plaintext-key');
  plaintext = (await shown.textContent()) ?? '';
  expect(plaintext).toMatch(/^pdk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32,}$/);
  await expect(page.getByTestId('key-prefix').textContent()).resolves.toBe(`${plaintext.slice(0, 16)}_…${plaintext.slice(-4)}`);
  // The create button went with its page: the focus is on the new key's copy button, not the page.
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'copy-key', undefined, { timeout: 5_000 });
  await screenshot(page, 'key-created');

  // Copy puts the key on the clipboard.
  await page.getByRole('button', { name: 'Copy key' }).click();
  await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(plaintext);

  // Never again: not after a reload, not in the list.
  await page.reload();
  await page.getByRole('heading', { name: 'Events website', level: 1 }).waitFor();
  expect(await page.getByTestId('plaintext-key').count()).toBe(0);
  expect(await page.content()).not.toContain(plaintext.slice(16));
});

test('the key sees exactly the granted resource and fields', async () => {
  const index = await v2('/', plaintext);
  expect(index.status).toBe(200);
  expect((index.body.data as { id: string }[]).map((entry) => entry.id)).toEqual(['native:events']);

  const stored = await app.strapi.plugin('public-api').service('keys').findOne(keyId);
  expect(stored.grants.resources).toEqual({ 'native:events': { actions: ['read'], read: ['title', 'summary'], write: [] } });

  const events = await v2('/events', plaintext);
  expect(events.status).toBe(200);
  expect(events.body.data).toEqual([
    expect.objectContaining({ type: 'events', attributes: { title: 'Jazz night', summary: 'Late sets by the river' } }),
  ]);
  // Ungranted resources stay closed.
  expect((await v2('/jobs', plaintext)).status).toBe(403);
});

test('the shared cache field: a bad value is named under it; a good one applies on the next request', async () => {
  await page.goto(settings(`keys/${keyId}`));
  const field = page.getByLabel('Shared cache: max age (seconds)');
  provoked.push(/status of 400 .*\/public-api\/keys\/\d+\)/);
  await field.fill('0');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  // In the form's words (its label), not the stored member's name.
  await page.getByText('The shared cache max age is a whole number of seconds from 1 to 31536000.').waitFor();
  expect(await page.getByText('sharedMaxAge', { exact: false }).count()).toBe(0);
  await field.fill('120');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  // Saving takes a moment; the key is read again on every request, so the header follows it.
  await waitForValue(() => cacheControl(plaintext), 'public, s-maxage=120, stale-while-revalidate=120');
  await field.fill('');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitForValue(() => cacheControl(plaintext), 'private, no-cache');
});

test('the rate limit is a budget of cost units: the field and its hint say so, a bad value is named in those words, a good one applies', async () => {
  await page.goto(settings(`keys/${keyId}`));
  const units = page.getByLabel('Rate limit: cost units');
  const seconds = page.getByLabel('Rate limit: window (seconds)');
  await page.getByText('Cost units per window: a request costs 1, more for included records', { exact: false }).waitFor();
  expect(await page.getByText('Rate limit: requests', { exact: false }).count()).toBe(0);
  await expectAccessible(page, 'key page, the rate limit in cost units');
  provoked.push(/status of 400 .*\/public-api\/keys\/\d+\)/);
  await units.fill('0');
  await seconds.fill('60');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText('The number of cost units per window is a whole number from 1 to 1000000.').waitFor();
  await units.fill('50');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  // The key is read again on every request: its next answer carries the new budget.
  await waitForValue(() => rateLimitPolicy(plaintext), '"key";q=50;w=60');
  await units.fill('');
  await seconds.fill('');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  // Both empty: the server's default again.
  await waitForValue(async () => ((await rateLimitPolicy(plaintext)) ?? '').includes('q=50;'), false);
});

test('the preview renders the index, the OpenAPI document (or says it is not served yet) and an example request', async () => {
  const preview = page.getByTestId('section-preview');
  await preview.getByTestId('preview-index').getByText('native:events').waitFor();
  await preview.getByRole('tab', { name: 'OpenAPI document' }).click();
  await preview.getByTestId('openapi-view').or(preview.getByTestId('openapi-unavailable')).waitFor();
  await preview.getByRole('tab', { name: 'Example request' }).click();
  const curl = await preview.getByTestId('curl-example').textContent();
  expect(curl).toContain(`${app.baseUrl}/api/v2/events?limit=5`);
  expect(curl).toContain('Authorization: Bearer $PUBLIC_DATA_API_KEY');
  await screenshot(page, 'key-preview-curl');
});

test('an OpenAPI document, once the API serves one, is rendered as paths, methods and schema fields', async () => {
  // The preview shows the API's own /schema answer; SAMPLE_OPENAPI stands in only if there is none.
  await page.route('**/public-api/preview', async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { data: Record<string, unknown> };
    const openapi = body.data.openapi ?? { status: 200, body: SAMPLE_OPENAPI };
    await route.fulfill({ response, json: { data: { ...body.data, openapi } } });
  });
  await page.reload();
  const preview = page.getByTestId('section-preview');
  await preview.getByTestId('preview-index').waitFor();
  await preview.getByRole('tab', { name: 'OpenAPI document' }).click();
  const view = preview.getByTestId('openapi-view');
  await view.waitFor();
  await view.getByText('/events/{record}', { exact: true }).waitFor();
  // A schema's name, and the type of the fields that hold it.
  await view.getByText('EventsRecord', { exact: true }).first().waitFor();
  await view.getByText('string | null').first().waitFor();
  expect(await view.textContent()).not.toContain('{"');
  await screenshot(page, 'key-preview-openapi');
  await page.unroute('**/public-api/preview');
  await page.reload();
  await page.getByTestId('section-preview').getByTestId('preview-index').waitFor();
});

test('origins are validated on the server, and the message lands under the origin', async () => {
  const origins = page.getByTestId('section-origins');
  await origins.getByRole('button', { name: 'Add an origin' }).click();
  await origins.getByLabel('Origin 1').fill('https://shop.example/path');
  await origins.getByText(/An origin is scheme:\/\/host\[:port\] without a path/).waitFor();
  await origins.getByLabel('Origin 1').fill('https://*.example.com');
  await page.waitForFunction(() => !document.body.innerText.includes('without a path'));
  await origins.getByRole('button', { name: 'Remove origin 1' }).click();
});

test('revoking asks for confirmation, then the key gets 401 at once', async () => {
  await page.getByTestId('revoke-key').click();
  const dialog = page.getByRole('alertdialog');
  await dialog.getByText('A revoked key cannot be reactivated.', { exact: false }).waitFor();
  await screenshot(page, 'key-revoke-dialog', { whole: false });
  await dialog.getByRole('button', { name: 'Revoke the key' }).click();
  await page.getByText('This key is revoked: every request with it is refused.').waitFor();
  // The Revoke button is gone: the focus is on the revoked notice, not the page.
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'revoked-notice', undefined, { timeout: 5_000 });
  const refused = await v2('/', plaintext);
  expect(refused.status).toBe(401);
  await page.goto(settings('keys'));
  await page.getByTestId(`key-row-${keyId}`).getByText('Revoked').waitFor();
});

test('the list: search and sort by name and last use', async () => {
  for (const name of ['Mobile app', 'Partner feed']) {
    await app.strapi
      .plugin('public-api')
      .service('keys')
      .create({ name, grants: { resources: { 'native:jobs': { actions: ['read'], read: ['title'] } } } });
  }
  await page.reload();
  const names = () => page.getByTestId('keys-table').locator('tbody tr a').allTextContents();
  await waitForValue(names, ['Events website', 'Mobile app', 'Partner feed']);
  await page.getByRole('button', { name: 'Name' }).click();
  await waitForValue(names, ['Partner feed', 'Mobile app', 'Events website']);
  // Only the first key was used: it comes first, the never-used ones after it.
  await page.getByRole('button', { name: 'Last used' }).click();
  await waitForValue(names, ['Events website', 'Mobile app', 'Partner feed']);
  await screenshot(page, 'keys-list');
  await page.getByPlaceholder('Search by name').fill('mobile');
  await waitForValue(names, ['Mobile app']);
  await page.getByPlaceholder('Search by name').fill('');
});

test('a website publication, validated, appears in the grant editor', async () => {
  await page.getByRole('link', { name: 'Websites', exact: true }).click();
  await page.waitForURL(/\/public-api\/websites$/);
  await page.getByText('No websites yet.', { exact: false }).waitFor();
  await page.getByRole('link', { name: 'Add a website' }).first().click();
  await page.getByLabel('Name').fill('Harbour Festival');

  const addPublication = async (index: number, contentType: string, collection: string) => {
    await page.getByRole('button', { name: 'Add a publication' }).click();
    const publication = page.getByTestId(`publication-${index}`);
    await publication.getByRole('combobox', { name: 'Content type' }).click();
    await page.getByRole('option', { name: contentType, exact: true }).click();
    await publication.getByLabel('Collection slug').fill(collection);
  };
  await addPublication(0, 'Page', 'pages');
  await addPublication(1, 'Page', 'pages');
  provoked.push(/status of 400 .*\/public-api\/websites\)/);
  await page.getByRole('button', { name: 'Add the website' }).click();
  await page.getByText("The collection slug 'pages' is already used by publication 1 of this website.").waitFor();
  await screenshot(page, 'website-validation');

  await page.getByRole('button', { name: 'Remove publication 2' }).click();
  await page.getByRole('button', { name: 'Add the website' }).click();
  await page.waitForURL(/\/websites\/\d+$/);
  await page.getByRole('heading', { name: 'Harbour Festival', level: 1 }).waitFor();
  await screenshot(page, 'website-edit');
  await page.goto(settings('websites'));
  await page.getByTestId('websites-table').getByText('harbour-festival').waitFor();
  await screenshot(page, 'websites-list');

  // The first key is revoked by now (read-only): grant the website's pages to another one.
  await page.goto(settings('keys'));
  await page.getByRole('link', { name: 'Mobile app' }).click();
  await page.getByRole('heading', { name: 'Website: Harbour Festival' }).waitFor();
  await page.getByRole('button', { name: 'Fields of Pages' }).click();
  const pages = page.getByTestId('fields-cms:harbour-festival/pages');
  await pages.getByRole('checkbox', { name: 'All fields of Pages readable' }).click();
  await expect(pages.getByRole('checkbox', { name: 'Title is readable', exact: true }).getAttribute('aria-checked')).resolves.toBe('true');
  await screenshot(page, 'key-grants-website');
});

test('editors edit tags as a list of tags in the content manager', async () => {
  await page.goto(`${app.baseUrl}/admin/content-manager/collection-types/api::event.event/create`);
  const input = page.getByPlaceholder('Type a tag and press Enter');
  await input.fill('jazz');
  await input.press('Enter');
  await input.fill('open air, free');
  await input.press('Enter');
  for (const tag of ['jazz', 'open air', 'free']) await page.getByRole('button', { name: `Remove tag ${tag}` }).waitFor();
  // Backspace in the empty input removes the last tag; the remove buttons work from the keyboard.
  await input.press('Backspace');
  await page.getByRole('button', { name: 'Remove tag free' }).waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Remove tag jazz' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Remove tag jazz' }).waitFor({ state: 'detached' });
  await input.fill('jazz, free');
  await input.press('Enter');
  await input.evaluate((element) => element.scrollIntoView({ block: 'center' }));
  await screenshot(page, 'tags-field', { whole: false });
});

test('keyboard only: every control of the create page is reached with Tab, dialogs open with Enter and close with Escape', async () => {
  await page.goto(settings('keys/create'));
  await page.getByLabel('Name').waitFor();
  await page.getByRole('link', { name: 'Back' }).focus();
  const reached: string[] = [];
  for (let i = 0; i < 120; i += 1) {
    await page.keyboard.press('Tab');
    reached.push(
      await page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (!element) return '';
        const labelled =
          element.getAttribute('aria-label') ?? (element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : null);
        return (labelled ?? element.textContent ?? '').trim();
      }),
    );
  }
  expect(reached).toEqual(
    expect.arrayContaining([
      'Create the key',
      'Name*',
      'Description',
      'Preview drafts',
      'Read Buildings',
      'Read Events',
      'Fields of Products',
      'Add an origin',
      'Resource index',
    ]),
  );
  expect(reached.findIndex((name) => name === 'Name*')).toBeLessThan(reached.findIndex((name) => name === 'Read Events'));

  await page.goto(settings('keys'));
  await page.getByRole('link', { name: 'Mobile app' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/keys\/\d+$/);
  const revoke = page.getByTestId('revoke-key');
  await revoke.focus();
  await page.keyboard.press('Enter');
  await closeDialogWithEscape(page);
  // Nothing happened: the key is still active.
  await page.getByText('Active', { exact: true }).first().waitFor();
});

test('roles: the plugin’s actions are assigned in Settings > Roles, and a read-only role sees the pages without changing anything', async () => {
  const roleId = await createRole(app, ['read']);
  await page.goto(`${app.baseUrl}/admin/settings/roles/${roleId}`);
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByRole('button', { name: /Public Data API/ }).click();
  await page.getByRole('checkbox', { name: /Read/ }).first().waitFor();
  await screenshot(page, 'roles-permissions');

  const reader = await createAdminUser(app, roleId, 'reader');
  const readerBrowser = await launchBrowser();
  try {
    await logIn(readerBrowser.page, { ...app, email: reader });
    const readerPage = readerBrowser.page;
    await readerPage.goto(settings('keys'));
    await readerPage.getByRole('link', { name: 'Mobile app' }).waitFor();
    expect(await readerPage.getByRole('link', { name: 'Create a key' }).count()).toBe(0);
    expect(await readerPage.getByRole('button', { name: /^Delete / }).count()).toBe(0);
    await readerPage.getByRole('link', { name: 'Mobile app' }).click();
    await readerPage.getByLabel('Name').waitFor();
    await expect(readerPage.getByLabel('Name').isDisabled()).resolves.toBe(true);
    for (const action of ['Save', 'Regenerate', 'Revoke', 'Delete'])
      expect(await readerPage.getByRole('button', { name: action, exact: true }).count()).toBe(0);
    // The preview works with read alone.
    await readerPage.getByTestId('preview-index').getByText('native:jobs').waitFor();
    await readerPage.goto(settings('keys/create'));
    await readerPage.getByText(/don.t have the permissions/i).waitFor();
    expect(readerBrowser.errors.filter((error) => !NOT_THE_PLUGIN.some((pattern) => pattern.test(error)))).toEqual([]);
  } finally {
    await readerBrowser.close();
  }
});

test('the Preview drafts toggle: stored on create, names status in the OpenAPI preview, lets the key read drafts, and turns off again', async () => {
  await page.goto(settings('keys/create'));
  await page.getByLabel('Name').fill('Editors’ preview site');
  await page.getByRole('button', { name: 'Fields of Events' }).click();
  await page.getByTestId('fields-native:events').getByRole('checkbox', { name: 'Title is readable', exact: true }).click();
  const toggle = page.getByLabel('Preview drafts');
  await expect(toggle.isChecked()).resolves.toBe(false);

  // Off: the OpenAPI preview does not name `status`; on: every read of a draft-and-publish resource does.
  const preview = page.getByTestId('section-preview');
  await preview.getByTestId('preview-index').getByText('native:events').waitFor();
  await preview.getByRole('tab', { name: 'OpenAPI document' }).click();
  const view = preview.getByTestId('openapi-view');
  await view.getByText('/events/{record}', { exact: true }).waitFor();
  expect(await view.textContent()).not.toContain('status (query)');
  await toggle.check();
  await view
    .getByText(/status \(query\)/)
    .first()
    .waitFor();
  // The picture is of the details with the toggle on, without the focus ring the click left.
  await toggle.evaluate((element) => {
    element.scrollIntoView({ block: 'center' });
    (element as HTMLElement).blur();
  });
  await screenshot(page, 'key-preview-toggle', { whole: false });

  await page.getByRole('button', { name: 'Create the key' }).click();
  await page.waitForURL(/\/keys\/\d+$/);
  const previewKeyId = Number(page.url().split('/').pop());
  const previewPlaintext = (await page.getByTestId('plaintext-key').textContent()) ?? '';
  const keys = app.strapi.plugin('public-api').service('keys');
  await expect(keys.findOne(previewKeyId)).resolves.toEqual(expect.objectContaining({ preview: true }));
  await expect(v2('/events?status=draft', previewPlaintext)).resolves.toEqual(expect.objectContaining({ status: 200 }));

  // Read back in the editor: the toggle is on, and the saved key's preview names `status`.
  await page.reload();
  await page.getByRole('heading', { name: 'Editors’ preview site', level: 1 }).waitFor();
  await expect(page.getByLabel('Preview drafts').isChecked()).resolves.toBe(true);
  await preview.getByRole('tab', { name: 'OpenAPI document' }).click();
  await view
    .getByText(/status \(query\)/)
    .first()
    .waitFor();

  // Off and saved: stored false, `status` gone from the preview, and the key may no longer read drafts.
  await page.getByLabel('Preview drafts').uncheck();
  await page.waitForFunction(() => !document.querySelector('[data-testid="openapi-view"]')?.textContent?.includes('status (query)'));
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await waitForValue(async () => (await keys.findOne(previewKeyId)).preview, false);
  await waitForValue(async () => (await v2('/events?status=draft', previewPlaintext)).status, 403);
  await page.reload();
  await page.getByRole('heading', { name: 'Editors’ preview site', level: 1 }).waitFor();
  await expect(page.getByLabel('Preview drafts').isChecked()).resolves.toBe(false);
});
