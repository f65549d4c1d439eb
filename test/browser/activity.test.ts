/**
 * A key's activity in the admin, in Chromium (issue 19): after real traffic the key page draws its usage
 * (requests by status class, latency, top resources, rate-limit refusals) with the window selector, an
 * empty state and an error state; the audit log page and the key page list who changed what. axe-core
 * (test/helpers/axe.ts, on the whole page) finds no critical or serious violation in these views.
 * Screenshots go to docs/screenshots.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expectAccessible } from '../helpers/axe';
import { launchBrowser, logIn, screenshot, SCREENSHOTS_DIR, startAdminApp, type AdminApp, type Browser } from '../helpers/browser';

let app: AdminApp;
let browser: Browser;
let page: Page;
let auth = '';

const adminApi = async (method: string, route: string, body?: unknown) => {
  const response = await fetch(`${app.baseUrl}/public-api${route}`, {
    method,
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data: { id: number; name: string }; meta?: { plaintext: string } } };
};

const flushUsage = async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  await (app.strapi.plugin('public-api').service('usage') as { flush: () => Promise<void> }).flush();
};

const settings = (route: string) => `${app.baseUrl}/admin/settings/public-api/${route}`;

let busyKey = 0;
let quietKey = 0;

beforeAll(async () => {
  app = await startAdminApp();
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
  const login = await fetch(`${app.baseUrl}/admin/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: app.email, password: app.password }),
  });
  auth = `Bearer ${((await login.json()) as { data: { token: string } }).data.token}`;

  // A key made, changed and used through the admin routes, as an admin would.
  const created = await adminApi('POST', '/keys', {
    name: 'Shop frontend',
    grants: { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } }, commands: [], origins: [] },
    limits: { requests: 20, window: 60 },
  });
  busyKey = created.body.data.id;
  const plaintext = created.body.meta!.plaintext;
  await adminApi('PUT', `/keys/${busyKey}`, {
    grants: {
      resources: {
        'native:events': { actions: ['read'], read: ['title', 'summary'], write: [] },
        'native:buildings': { actions: ['read'], read: ['name'], write: [] },
      },
      commands: [],
      origins: ['https://shop.example'],
    },
  });
  const website = await adminApi('POST', '/websites', {
    name: 'City guide',
    publications: [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }],
  });
  await adminApi('PUT', `/websites/${website.body.data.id}`, { name: 'City guide (new)' });
  quietKey = (await adminApi('POST', '/keys', { name: 'Quiet key', grants: {} })).body.data.id;

  // Traffic: 14 reads, 3 unknown records, 2 resources not granted... and the rate limit of 20 reached.
  const get = (route: string) =>
    fetch(`${app.baseUrl}/api/v2${route}`, { headers: { Authorization: `Bearer ${plaintext}` } }).then((res) => res.status);
  const statuses: number[] = [];
  for (let i = 0; i < 12; i += 1) statuses.push(await get('/events'));
  for (let i = 0; i < 3; i += 1) statuses.push(await get('/buildings'));
  for (let i = 0; i < 3; i += 1) statuses.push(await get(`/events/missing-${i}`));
  for (let i = 0; i < 2; i += 1) statuses.push(await get('/'));
  for (let i = 0; i < 4; i += 1) statuses.push(await get('/events'));
  expect(statuses.filter((status) => status === 429)).toHaveLength(4);
  await flushUsage();

  browser = await launchBrowser();
  page = browser.page;
  await logIn(page, app);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

afterEach(() => {
  // Uncaught errors of the page; refusals the error-state test provokes are console messages, not these.
  expect(browser.errors.filter((error) => error.startsWith('page:'))).toEqual([]);
  browser.errors.length = 0;
});

test('the key page draws its usage after traffic: totals, four charts, the window selector', async () => {
  await page.goto(settings(`keys/${busyKey}/usage`));
  const section = page.getByTestId('section-usage');
  await section.getByRole('heading', { name: 'Usage', level: 2 }).waitFor();
  await expect(section.getByTestId('usage-requests').textContent()).resolves.toBe('24');
  await expect(section.getByTestId('usage-rate-limited').textContent()).resolves.toBe('4');
  // 3 unknown records + 4 refusals of 24 requests.
  await expect(section.getByTestId('usage-error-rate').textContent()).resolves.toBe('29.2%');
  await expect(section.getByTestId('usage-p50').textContent()).resolves.toMatch(/^≤ \d+ m?s$/);
  for (const chart of ['requests', 'latency', 'resources', 'rate-limited']) {
    const figure = section.getByTestId(`usage-chart-${chart}`);
    await figure.locator('svg.recharts-surface').first().waitFor();
  }
  // Bars are drawn: the current hour's stacked classes and the top resources.
  expect(await section.getByTestId('usage-chart-requests').locator('.recharts-bar-rectangle path').count()).toBeGreaterThan(0);
  const resources = section.getByTestId('usage-chart-resources');
  for (const name of ['native:events', 'native:buildings', '(index)']) await resources.getByText(name, { exact: true }).waitFor();
  await section.scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  await section.screenshot({ path: path.join(SCREENSHOTS_DIR, 'key-usage.png') });

  const week = section.getByRole('button', { name: 'Last 7 days' });
  await week.click();
  await expect(week.getAttribute('aria-pressed')).resolves.toBe('true');
  await expect(section.getByRole('button', { name: 'Last 24 hours' }).getAttribute('aria-pressed')).resolves.toBe('false');
  await expect(section.getByTestId('usage-requests').textContent()).resolves.toBe('24');
  await section.getByRole('button', { name: 'Last 30 days' }).click();
  await expect(section.getByTestId('usage-requests').textContent()).resolves.toBe('24');

  await expectAccessible(page, 'key page, usage tab with charts');
});

test("the key page lists the key's changes with their diff", async () => {
  await page.goto(settings(`keys/${busyKey}/changes`));
  const audit = page.getByTestId('section-audit');
  const entries = audit.getByTestId('audit-entry');
  await entries.first().waitFor();
  expect(await entries.count()).toBe(2);
  await entries.nth(0).getByText('changed', { exact: true }).waitFor();
  await entries.nth(0).getByText('native:events changed: readable fields added summary').waitFor();
  await entries.nth(0).getByText('native:buildings granted: actions added read; readable fields added name').waitFor();
  await entries.nth(0).getByText('Origins: added https://shop.example').waitFor();
  await entries.nth(1).getByText('created', { exact: true }).waitFor();
  await expect(entries.nth(0).textContent()).resolves.toContain(app.email);
  await audit.scrollIntoViewIfNeeded();
  await audit.screenshot({ path: path.join(SCREENSHOTS_DIR, 'key-audit.png') });
});

test('a key without traffic shows the empty state; a failed load shows the error with a retry', async () => {
  await page.goto(settings(`keys/${quietKey}/usage`));
  await page.getByTestId('usage-empty').waitFor();
  await expect(page.getByTestId('usage-empty').textContent()).resolves.toMatch(/^No requests with this key in this window/);
  await expectAccessible(page, 'key page, no usage');

  let fail = true;
  await page.route('**/public-api/keys/*/usage*', (route) =>
    fail
      ? route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ data: null, error: { status: 500, name: 'InternalServerError', message: 'Internal Server Error' } }),
        })
      : route.continue(),
  );
  await page.getByRole('button', { name: 'Last 7 days' }).click();
  await page.getByText('Usage unavailable').waitFor();
  await expectAccessible(page, 'key page, usage failed to load');
  fail = false;
  await page.getByTestId('section-usage').getByRole('button', { name: 'Try again' }).click();
  await page.getByTestId('usage-empty').waitFor();
  await page.unroute('**/public-api/keys/*/usage*');
});

test('the audit log page lists every change, filters by kind, and is reached from the settings menu', async () => {
  await page.goto(`${app.baseUrl}/admin/settings`);
  await page.getByRole('link', { name: 'Audit log', exact: true }).click();
  await page.waitForURL(/\/settings\/public-api\/audit-log$/);
  await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
  const entries = page.getByTestId('audit-entry');
  await entries.first().waitFor();
  // Newest first: the quiet key's creation, the website's two changes, the shop key's two.
  expect(await entries.count()).toBe(5);
  await expect(entries.nth(0).getByRole('link', { name: 'Quiet key' }).getAttribute('href')).resolves.toBe(
    `/admin/settings/public-api/keys/${quietKey}`,
  );
  await entries.nth(1).getByText('Name: City guide → City guide (new)').waitFor();
  await page.getByText('Publication pages: — → api::page.page (collection)').waitFor();
  await screenshot(page, 'audit-log');
  await expectAccessible(page, 'audit log page');

  await page.getByRole('button', { name: 'Websites', exact: true }).click();
  await page.waitForURL(/kind=website/);
  await expect(page.getByRole('button', { name: 'Websites', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-entry"]').length === 2);
  for (const entry of await entries.all()) await expect(entry.textContent()).resolves.toMatch(/^(created|changed)Website/);
  await expectAccessible(page, 'audit log page, websites only');
});
