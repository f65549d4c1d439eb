/**
 * A key's Webhooks page in Chromium (contract section 16, issues 18/19): reached from the key's page; adding
 * an endpoint shows its signing secret once (gone after a reload); a refused URL shows the server's message
 * under the field; editing, turning off, rotating the secret; the deliveries of a change to a record (to a
 * local receiver, with the loopback development flag) with their status and response code, and Redeliver
 * sending the same event again. axe-core finds no critical or serious violation in any of these states.
 * Screenshots go to docs/screenshots.
 */
import type { Page } from 'playwright-core';
import { expectAccessible } from '../helpers/axe';
import { launchBrowser, logIn, screenshot, startAdminApp, waitForValue, type AdminApp, type Browser } from '../helpers/browser';
import { FAST_WEBHOOKS_ENV, startReceiver, type Receiver } from '../helpers/webhooks';

let app: AdminApp;
let browser: Browser;
let page: Page;
let receiver: Receiver;
let keyId = 0;

const settings = (route: string) => `${app.baseUrl}/admin/settings/public-api/${route}`;
const HTTPS_URL = 'https://hooks.shop.example/events';

beforeAll(async () => {
  // bootApp (through startAdminApp) reads these from the environment: plain http to 127.0.0.1 allowed,
  // short retries, as the API suites of webhooks.
  Object.assign(process.env, FAST_WEBHOOKS_ENV);
  app = await startAdminApp();
  receiver = await startReceiver();
  const keys = app.strapi.plugin('public-api').service('keys') as {
    create: (input: unknown, by?: unknown) => Promise<{ key: { id: number } }>;
  };
  const created = await keys.create({
    name: 'Shop frontend',
    grants: {
      resources: {
        'native:events': { actions: ['read'], read: ['title'], write: [] },
        'native:buildings': { actions: ['read'], read: ['name'], write: [] },
      },
      commands: [],
      origins: [],
    },
  });
  keyId = created.key.id;
  browser = await launchBrowser();
  page = browser.page;
  await logIn(page, app);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await receiver?.close();
});

afterEach(() => {
  expect(browser.errors.filter((error) => error.startsWith('page:'))).toEqual([]);
  browser.errors.length = 0;
});

const endpointCard = (url: string) => page.getByTestId('webhook-endpoint').filter({ hasText: url });

/** Fills the form's URL and submits it. */
const submitUrl = async (url: string) => {
  const form = page.getByTestId('webhook-form');
  await form.getByLabel('Endpoint URL').fill(url);
  await form.getByRole('button', { name: 'Add endpoint' }).click();
};

test("the key's page opens its Webhooks tab, empty at first", async () => {
  await page.goto(settings(`keys/${keyId}`));
  await page.getByRole('tab', { name: 'Webhooks', exact: true }).click();
  await page.waitForURL(new RegExp(`/settings/public-api/keys/${keyId}/webhooks$`));
  await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
  await page.getByText('No endpoints yet.', { exact: false }).waitFor();
  await expectAccessible(page, 'webhooks page, no endpoint');
});

test('a refused URL shows the server’s message under the field', async () => {
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const form = page.getByTestId('webhook-form');
  await form.waitFor();
  await expectAccessible(page, 'webhooks page, the add form');

  await submitUrl('http://hooks.shop.example/events');
  const url = form.getByLabel('Endpoint URL');
  await form
    .getByText(
      'The URL must use https (plain http only to this machine, with PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true in development).',
    )
    .waitFor();
  await expect(url.getAttribute('aria-invalid')).resolves.toBe('true');
  // The message is the field's description, so a screen reader reads it with the field.
  const described = (await url.getAttribute('aria-describedby')) ?? '';
  const descriptions = await Promise.all(described.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()));
  expect(descriptions.join(' ')).toContain('The URL must use https');
  await expectAccessible(page, 'webhooks page, http URL refused');

  await submitUrl('https://10.1.2.3/events');
  await form.getByText("The URL's address is not public", { exact: false }).waitFor();
  await screenshot(page, 'webhooks-refused-url');
  await expectAccessible(page, 'webhooks page, private address refused');
  // Nothing was stored.
  expect(await page.getByTestId('webhook-endpoint').count()).toBe(0);
});

let firstSecret = '';

test('adding an https endpoint (events, resources) shows its secret once; a reload shows only its last four characters', async () => {
  const form = page.getByTestId('webhook-form');
  await form.getByLabel('Description').fill('Shop cache purge');
  await form.getByRole('checkbox', { name: 'record.deleted' }).click();
  await form.getByRole('checkbox', { name: 'Events', exact: true }).click();
  await submitUrl(HTTPS_URL);
  const card = endpointCard(HTTPS_URL);
  await card.waitFor();
  const secret = card.getByTestId('webhook-secret-value');
  firstSecret = ((await secret.textContent()) ?? '').trim();
  expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  await expect(card.textContent()).resolves.toContain('Shop cache purge');
  await expect(card.textContent()).resolves.toContain('record.published, record.updated, record.unpublished · Events');
  await expect(card.textContent()).resolves.toContain(`secret …${firstSecret.slice(-4)}`);
  await screenshot(page, 'webhooks-secret');
  await expectAccessible(page, 'webhooks page, the new secret');

  await page.reload();
  await card.waitFor();
  await expect(card.textContent()).resolves.toContain(`secret …${firstSecret.slice(-4)}`);
  expect(await page.getByTestId('webhook-secret').count()).toBe(0);
  expect(await page.content()).not.toContain(firstSecret);
});

test('editing changes the endpoint; Turn off and Turn on', async () => {
  const card = endpointCard(HTTPS_URL);
  await card.getByRole('button', { name: 'Edit' }).click();
  const form = card.getByTestId('webhook-form');
  await expect(form.getByLabel('Description').inputValue()).resolves.toBe('Shop cache purge');
  // A refusal in the edit form is named under its field too.
  await form.getByLabel('Endpoint URL').fill('https://192.168.0.10/events');
  await form.getByRole('button', { name: 'Save endpoint' }).click();
  await form.getByText("The URL's address is not public", { exact: false }).waitFor();
  await expectAccessible(page, 'webhooks page, edit refused');
  await form.getByLabel('Endpoint URL').fill(HTTPS_URL);
  await form.getByLabel('Description').fill('Shop cache purge (events only)');
  await form.getByRole('button', { name: 'Save endpoint' }).click();
  await form.waitFor({ state: 'detached' });
  await card.getByText('Shop cache purge (events only)').waitFor();

  await card.getByRole('button', { name: 'Turn off' }).click();
  await card.getByText('Off', { exact: true }).waitFor();
  await card.getByRole('button', { name: 'Turn on' }).waitFor();
  await expectAccessible(page, 'webhooks page, endpoint off');
  const stored = (await app.strapi.db.connection('public_api_webhook_endpoints').where({ url: HTTPS_URL }).first()) as {
    enabled: boolean | number;
    description: string;
  };
  expect(Boolean(stored.enabled)).toBe(false);
  expect(stored.description).toBe('Shop cache purge (events only)');
  await page.reload();
  await card.getByRole('button', { name: 'Turn on' }).waitFor();
});

test('Rotate secret shows the new secret once, after a confirmation', async () => {
  const card = endpointCard(HTTPS_URL);
  await card.getByRole('button', { name: 'Rotate secret' }).click();
  const dialog = page.getByRole('alertdialog');
  await dialog.getByText('For 24 hours requests carry signatures with both secrets', { exact: false }).waitFor();
  await expectAccessible(page, 'webhooks page, rotate confirmation');
  await dialog.getByRole('button', { name: 'Rotate' }).click();
  const secret = card.getByTestId('webhook-secret-value');
  await secret.waitFor();
  const rotated = ((await secret.textContent()) ?? '').trim();
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(firstSecret);
  await card.getByText('This is the only time the new secret is shown.', { exact: false }).waitFor();
  await expect(card.textContent()).resolves.toContain(`secret …${rotated.slice(-4)}`);
  await expectAccessible(page, 'webhooks page, rotated secret');
});

test('a change to a record is delivered: the list shows its status and response code; Redeliver sends it again', async () => {
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  // The receiver fails the first attempt: the delivery is retried, then delivered.
  receiver.answer([500]);
  await submitUrl(receiver.url('/hook'));
  const card = endpointCard(receiver.url('/hook'));
  await card.getByTestId('webhook-secret').waitFor();

  await app.strapi.documents('api::event.event').create({
    data: { title: 'Harbour concert', summary: 'Brass on the quay', startsAt: '2030-07-01T19:00:00.000Z', category: 'concert' },
    status: 'published',
  });
  const isPublished = (request: { path: string; body: string }) => request.path === '/hook' && request.body.includes('"record.published"');
  await receiver.waitFor(1, isPublished);

  const table = card.getByTestId('webhook-deliveries');
  const row = table.locator('tbody tr').filter({ hasText: 'record.published' });
  await waitForValue(
    async () => {
      await card.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(200);
      return (await row.count()) === 1 && ((await row.textContent()) ?? '').includes('Delivered');
    },
    true,
    15_000,
  );
  const cells = row.locator('td');
  await expect(cells.nth(2).textContent()).resolves.toBe('Delivered');
  await expect(cells.nth(3).textContent()).resolves.toBe('204');
  const published = receiver.received.filter(isPublished);
  const webhookId = published[0]!.headers['webhook-id'];
  // The first attempt was answered 500, the retry 204: two requests, one webhook-id.
  expect(published).toHaveLength(2);
  expect(published.every((request) => request.headers['webhook-id'] === webhookId)).toBe(true);
  await expect(cells.nth(5).textContent()).resolves.toBe(String(published.length));
  await expect(cells.nth(4).textContent()).resolves.toMatch(/^\d+ ms$/);
  await expect(cells.nth(1).textContent()).resolves.toMatch(/^native:events[a-z0-9]+$/);
  // Redeliver is within the card, not behind the table's horizontal scroll.
  const cardBox = await card.boundingBox();
  const redeliver = await row.getByRole('button', { name: 'Redeliver' }).boundingBox();
  expect(redeliver!.x + redeliver!.width).toBeLessThanOrEqual(cardBox!.x + cardBox!.width);
  await screenshot(page, 'webhooks-deliveries');
  await expectAccessible(page, 'webhooks page, deliveries');

  const before = published.length;
  await row.getByRole('button', { name: 'Redeliver' }).click();
  await page.getByText('The event is queued to be sent again.').waitFor();
  const again = await receiver.waitFor(before + 1, isPublished);
  expect(again[before]!.headers['webhook-id']).toBe(webhookId);
  await expectAccessible(page, 'webhooks page, redelivered');
});
