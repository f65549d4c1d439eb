/**
 * The plugin's page in the fixture application's own admin, built by `strapi build` from the packed
 * plugin: Chromium logs in as the first administrator, opens Settings > Public Data API > API keys, finds
 * the key the bin made, and axe finds nothing critical or serious there.
 */
import type { Page } from 'playwright-core';
import { ADMIN_PASSWORD } from '../helpers/admin';
import { expectAccessible } from '../helpers/axe';
import { launchBrowser, type Browser } from '../helpers/browser';
import { createKey, loadFixture, registerAdmin, START_DEADLINE_MS, startFixture, type RunningFixture } from './fixture';

const fixture = loadFixture();
const EMAIL = 'editor@blog.example';
let running: RunningFixture;
let browser: Browser;
let page: Page;

/** Not the plugin's: the fixture has no favicon, the machine no internet for Strapi's release check. */
const NOT_THE_PLUGIN = [
  /\/favicon\.(ico|png)\b/,
  /api\.github\.com\/repos\/strapi\/strapi\/releases/,
  /\/admin\/ai-feature-config\b/,
  /ai-localization-jobs/,
];

beforeAll(async () => {
  // NODE_ENV=test, as for the main application's browser suites: Strapi's admin then allows inline scripts,
  // which is how axe gets into the page (its production Content-Security-Policy refuses them).
  running = await startFixture(fixture, { NODE_ENV: 'test' });
  await createKey(fixture, running, 'shop');
  await registerAdmin(running, EMAIL);
  browser = await launchBrowser();
  page = browser.page;
}, 2 * START_DEADLINE_MS);

afterAll(async () => {
  await browser?.close();
  await running?.stop();
});

test(`the plugin's keys page opens in the fixture's admin (Strapi ${fixture.version}), lists the bin's key and is accessible`, async () => {
  await page.goto(`${running.url}/admin/auth/login`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByLabel('Password').press('Enter');
  await page.waitForURL((url) => !url.pathname.includes('/auth/'), { timeout: 60_000 });

  await page.goto(`${running.url}/admin/settings`);
  await page.getByRole('link', { name: 'API keys', exact: true }).click();
  await page.waitForURL(/\/settings\/public-api\/keys$/);
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  await page.getByText('shop', { exact: true }).first().waitFor();
  await expectAccessible(page, 'the keys page of the fixture application');
  expect(browser.errors.filter((error) => !NOT_THE_PLUGIN.some((pattern) => pattern.test(error)))).toEqual([]);
});

test("the key form's templates are the fixture's own: a form for its command, none of the main application's", async () => {
  await page.goto(`${running.url}/admin/settings/public-api/keys/create`);
  const toolbar = page.getByTestId('grant-toolbar');
  await toolbar.getByRole('button', { name: 'Form: contact-author', exact: true }).waitFor();
  await expect(toolbar.getByTestId('template-hint-form-contact-author').textContent()).resolves.toBe(
    'Only the contact-author command; reads nothing.',
  );
  const buttons = await toolbar.getByRole('button').allTextContents();
  expect(buttons.filter((name) => name.startsWith('Form: '))).toEqual(['Form: contact-author']);
  await expect(toolbar.textContent()).resolves.not.toMatch(/newsletter/i);
  await toolbar.getByRole('button', { name: 'Form: contact-author', exact: true }).click();
  await expect(page.getByRole('checkbox', { name: 'contact-author' }).getAttribute('aria-checked')).resolves.toBe('true');
  await expectAccessible(page, 'the key form of the fixture application');
});
