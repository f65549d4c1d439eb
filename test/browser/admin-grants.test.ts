/**
 * The grant matrix and the admin's second round (issue 19) in a real browser: the "shop frontend" key in
 * a counted handful of clicks, what each warning means and its fix, templates and copying, every defect
 * of the issue, the editors' views (labels, the Page list's website, personal data), and axe-core on every
 * page and state: no critical or serious violation. Screenshots go to docs/screenshots.
 */
import type { Locator, Page } from 'playwright-core';
import { expectAccessible } from '../helpers/axe';
import { closeDialogWithEscape, launchBrowser, logIn, screenshot, startAdminApp, type AdminApp, type Browser } from '../helpers/browser';

let app: AdminApp;
let browser: Browser;
let page: Page;

/** Console errors that are not the plugin's (see admin.test.ts). */
const NOT_THE_PLUGIN = [
  /\/favicon\.ico\b/,
  /api\.github\.com\/repos\/strapi\/strapi\/releases/,
  /\/admin\/ai-feature-config\b/,
  /\/i18n\/ai-localization-jobs\//,
];
const provoked: RegExp[] = [];
const pageErrors = () => {
  const errors = browser.errors.filter((error) => ![...NOT_THE_PLUGIN, ...provoked].some((pattern) => pattern.test(error)));
  browser.errors.length = 0;
  provoked.length = 0;
  return errors;
};

const settings = (path: string) => `${app.baseUrl}/admin/settings/public-api/${path}`;
const keys = () => app.strapi.plugin('public-api').service('keys');
const websites = () => app.strapi.plugin('public-api').service('websites');

const v2 = async (path: string, key: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${app.baseUrl}/api/v2${path}`, { headers: { Authorization: `Bearer ${key}`, ...headers } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { data: unknown; included?: unknown[] } };
};

/** What has the focus: an input as "input <its value>", anything else by its accessible label or text. */
const focused = () =>
  page.evaluate(
    '(() => { const e = document.activeElement; if (!e) return ""; if (e.tagName === "INPUT") return "input " + e.value; return e.getAttribute("aria-label") ?? (e.textContent ?? "").trim(); })()',
  ) as Promise<string>;

/** The element with the focus: its data-testid, else its role and accessible label or text ("body" for none). */
const focusedElement = () =>
  page.evaluate(
    '(() => { const e = document.activeElement; if (!e || e === document.body) return "body"; return e.getAttribute("data-testid") ?? (e.getAttribute("role") ?? e.tagName.toLowerCase()) + " " + (e.getAttribute("aria-label") ?? (e.textContent ?? "").trim()); })()',
  ) as Promise<string>;

/** A control's accessible description, as its aria-describedby elements say it. */
const descriptionOf = (locator: Locator) =>
  locator.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent?.trim() ?? '')
      .filter(Boolean)
      .join(' '),
  );

/** The settings pages' fields of a resource, opened in place. */
const openFields = async (name: string, id: string): Promise<Locator> => {
  const fields = page.getByTestId(`fields-${id}`);
  if (!(await fields.count())) await page.getByRole('button', { name: `Fields of ${name}`, exact: true }).click();
  await fields.waitFor();
  return fields;
};

beforeAll(async () => {
  app = await startAdminApp();
  const event = await app.strapi.documents('api::event.event').create({
    data: { title: 'Harbour concert', summary: 'Brass on the quay', startsAt: '2030-07-01T19:00:00.000Z', category: 'concert' },
    status: 'published',
  });
  await app.strapi.documents('api::product.product').create({
    data: { name: 'Concert ticket', sku: 'TICKET-1', price: 25, currency: 'EUR', event: event.documentId },
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

test('the keys list (empty) says when to use Strapi’s API Tokens instead, and links to them', async () => {
  await page.goto(settings('keys'));
  const note = page.getByTestId('api-tokens-note');
  await note.getByText('For Strapi’s own REST and GraphQL APIs (/api), use', { exact: false }).waitFor();
  await expectAccessible(page, 'keys list, empty');
  const link = note.getByRole('link', { name: 'Strapi’s API Tokens' });
  await expect(link.getAttribute('href')).resolves.toBe('/admin/settings/api-tokens');
  await link.click();
  await page.getByRole('heading', { name: 'API Tokens', level: 1 }).waitFor();
});

test('the "shop frontend" key in at most 10 clicks: products with all fields, the events they link to, one origin', async () => {
  await page.goto(settings('keys'));
  let clicks = 0;
  const click = async (locator: Locator) => {
    clicks += 1;
    await locator.click();
  };
  await click(page.getByRole('link', { name: 'Create a key' }).first());
  // Every click a person makes counts, the one into the Name field too.
  await click(page.getByLabel('Name'));
  await page.keyboard.type('Shop frontend');

  // Read alone makes every field readable; the product's link to its event is named as not served yet.
  await click(page.getByRole('checkbox', { name: 'Read Products', exact: true }));
  const products = page.getByTestId('grant-native:products');
  const warnings = page.getByTestId('grant-warnings');
  const linkWarning = warnings.getByText('Products: “Event” links to Events, which this key is not granted, so the API leaves it out.');
  await linkWarning.waitFor();
  // The summary counts what the API will serve: the link is not among them while Events is not granted.
  const total = Number(((await products.getByText(/of \d+ readable/).textContent()) ?? '').match(/of (\d+)/)![1]);
  await products.getByText(`${total - 1} of ${total} readable`).waitFor();
  await expectAccessible(page, 'create page, with a warning');
  await screenshot(page, 'key-grant-warning', { whole: false });

  // The one-click fix: the key reads Events (without Events' own links to what it does not read).
  await click(warnings.getByRole('button', { name: 'Let the key read Events' }));
  await linkWarning.waitFor({ state: 'detached' });
  await products.getByText(`All ${total} readable`).waitFor();
  expect(await warnings.getByTestId('grant-warning').count()).toBe(0);

  // "Add an origin" puts the focus in the new row: typing lands there.
  await click(page.getByRole('button', { name: 'Add an origin' }));
  await page.keyboard.type('https://shop.example');
  await expect(page.getByLabel('Origin 1').inputValue()).resolves.toBe('https://shop.example');
  await page.getByTestId('preview-index').getByText('native:events').waitFor();
  await screenshot(page, 'key-grant-matrix');

  await click(page.getByRole('button', { name: 'Create the key' }));
  await page.waitForURL(/\/keys\/\d+$/);
  expect(clicks).toBeLessThanOrEqual(10);
  expect(clicks).toBe(6);

  const plaintext = (await page.getByTestId('plaintext-key').textContent()) ?? '';
  const id = Number(page.url().split('/').pop());
  const stored = (await keys().findOne(id)).grants;
  expect(stored.origins).toEqual(['https://shop.example']);
  expect(stored.resources['native:products'].actions).toEqual(['read']);
  expect(stored.resources['native:products'].read).toContain('event');
  expect(stored.resources['native:events'].read).not.toContain('venue');

  // What the API serves: every product field with data, the event included, from the origin.
  const answer = await v2('/products?include=event', plaintext, { Origin: 'https://shop.example' });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  const [product] = answer.body.data as { attributes: Record<string, unknown> }[];
  // Every product field, and the event it links to expanded in place, without the event's own link to a venue.
  expect(product!.attributes).toEqual(
    expect.objectContaining({
      name: 'Concert ticket',
      sku: 'TICKET-1',
      event: expect.objectContaining({ type: 'events', attributes: expect.objectContaining({ title: 'Harbour concert' }) }),
    }),
  );
  expect(product!.attributes.event).not.toHaveProperty('attributes.venue');
  await expectAccessible(page, 'edit page, right after creation (key shown once)');
});

test('templates and "copy grants from another key" replace the grants in the form, and keep its origins', async () => {
  await page.goto(settings('keys/create'));
  await page.getByLabel('Name').fill('Newsletter box');
  await page.getByRole('button', { name: 'Add an origin' }).click();
  await page.keyboard.type('https://news.example');
  const toolbar = page.getByTestId('grant-toolbar');

  // Each template says what it grants without a hover: a visible line that is also the button's description.
  for (const [name, id, description] of [
    ['Read-only site', 'read-only-site', 'Reads every resource with all fields, except personal data; no writes, no commands.'],
    ['Full access', 'full-access', 'Every action on every resource, every field, every command.'],
    // One form per command the registry reports: the plugin names none of this application's commands.
    ['Form: job-application', 'form-job-application', 'Only the job-application command; reads nothing.'],
    ['Form: newsletter-signup', 'form-newsletter-signup', 'Only the newsletter-signup command; reads nothing.'],
  ] as const) {
    const button = toolbar.getByRole('button', { name, exact: true });
    await expect(descriptionOf(button)).resolves.toBe(description);
    await expect(button.getAttribute('title')).resolves.toBeNull();
    await button.focus();
    const hint = toolbar.getByTestId(`template-hint-${id}`);
    await expect(hint.isVisible()).resolves.toBe(true);
    await expect(hint.textContent()).resolves.toBe(description);
    // One line: no taller than the button beside it.
    const [hintBox, buttonBox] = [await hint.boundingBox(), await button.boundingBox()];
    expect(hintBox!.height).toBeLessThanOrEqual(buttonBox!.height);
  }
  // The picture without the focus ring the last button kept.
  await toolbar.evaluate((element) => {
    element.scrollIntoView({ block: 'center' });
    (document.activeElement as HTMLElement | null)?.blur();
  });
  await screenshot(page, 'key-grant-templates', { whole: false });

  await toolbar.getByRole('button', { name: 'Full access' }).click();
  await expect(page.getByRole('checkbox', { name: 'Delete Events', exact: true }).getAttribute('aria-checked')).resolves.toBe('true');
  await expect(page.getByRole('checkbox', { name: 'newsletter-signup' }).getAttribute('aria-checked')).resolves.toBe('true');

  await toolbar.getByRole('button', { name: 'Read-only site' }).click();
  await expect(page.getByRole('checkbox', { name: 'Delete Events', exact: true }).getAttribute('aria-checked')).resolves.toBe('false');
  await expect(page.getByRole('checkbox', { name: 'Read Jobs', exact: true }).getAttribute('aria-checked')).resolves.toBe('true');

  await toolbar.getByRole('combobox', { name: 'Copy grants from another key' }).click();
  await page.getByRole('option', { name: 'Shop frontend' }).click();
  await expect(page.getByRole('checkbox', { name: 'Read Jobs', exact: true }).getAttribute('aria-checked')).resolves.toBe('false');
  await expect(page.getByRole('checkbox', { name: 'Read Products', exact: true }).getAttribute('aria-checked')).resolves.toBe('true');

  await toolbar.getByRole('button', { name: 'Form: newsletter-signup' }).click();
  await expect(page.getByRole('checkbox', { name: 'Read Products', exact: true }).getAttribute('aria-checked')).resolves.toBe('false');
  await expect(page.getByRole('checkbox', { name: 'newsletter-signup' }).getAttribute('aria-checked')).resolves.toBe('true');
  await expect(page.getByLabel('Origin 1').inputValue()).resolves.toBe('https://news.example');
  await expectAccessible(page, 'create page, from a template');

  await page.getByRole('button', { name: 'Create the key' }).click();
  await page.waitForURL(/\/keys\/\d+$/);
  const stored = (await keys().findOne(Number(page.url().split('/').pop()))).grants;
  expect(stored).toEqual({ resources: {}, commands: ['newsletter-signup'], origins: ['https://news.example'] });
});

test('Read with no field left and a blank origin row are named, and a blank row is never dropped unseen', async () => {
  await page.goto(settings('keys/create'));
  await page.getByLabel('Name').fill('Careful key');
  await page.getByRole('checkbox', { name: 'Read Buildings', exact: true }).click();
  const fields = await openFields('Buildings', 'native:buildings');
  await fields.getByRole('checkbox', { name: 'All fields of Buildings readable' }).click();
  const warnings = page.getByTestId('grant-warnings');
  await warnings.getByText('Buildings: Read with no readable field serves records with no attributes.').waitFor();
  await expectAccessible(page, 'create page, fields open, read with no field');
  await warnings.getByRole('button', { name: 'Read all fields of Buildings' }).click();
  await warnings.getByText('Buildings: Read with no readable field', { exact: false }).waitFor({ state: 'detached' });
  // Every field is readable again (the summary leaves out a link to a resource the key does not read).
  await page
    .getByTestId('grant-native:buildings')
    .getByText(/^(All \d+|[1-9]\d* of \d+) readable$/)
    .waitFor();

  await page.getByRole('button', { name: 'Add an origin' }).click();
  await page.keyboard.type('https://careful.example');
  await page.getByRole('button', { name: 'Add an origin' }).click();
  await page.getByRole('button', { name: 'Create the key' }).click();
  await page.getByText('Type an origin, or remove this row.').waitFor();
  expect(page.url()).toMatch(/\/keys\/create$/);
  await expectAccessible(page, 'create page, blank origin refused');
  await page.getByRole('button', { name: 'Remove origin 2' }).click();
  await page.getByText('Type an origin, or remove this row.').waitFor({ state: 'detached' });
  // The removed row's button is gone: the focus moves to the row before it, then to "Add an origin", never to the page.
  await expect(focused()).resolves.toBe('input https://careful.example');
  await page.getByRole('button', { name: 'Remove origin 1' }).focus();
  await page.keyboard.press('Enter');
  await expect(focused()).resolves.toBe('Add an origin');
  await page.keyboard.press('Enter');
  await page.keyboard.type('https://again.example');
  await expect(page.getByLabel('Origin 1').inputValue()).resolves.toBe('https://again.example');
});

test('the server’s messages: a stale name error goes as the name is typed; a past expiry is refused in the server’s words', async () => {
  await page.goto(settings('keys/create'));
  provoked.push(/status of 400 .*\/public-api\/keys\)/);
  await page.getByRole('button', { name: 'Create the key' }).click();
  const nameError = page.getByText('A key needs a name of 1 to 120 characters.');
  await nameError.waitFor();
  await page.getByLabel('Name').fill('Past key');
  await nameError.waitFor({ state: 'detached' });

  await page.getByRole('combobox', { name: 'Expiration' }).click();
  await page.getByRole('option', { name: 'On a date…' }).click();
  const date = page.getByRole('combobox', { name: 'Expires on' });
  // Typed, then committed by leaving the field (the date picker's own rule).
  await date.fill('01/15/2026');
  await page.getByLabel('Description').click();
  await expect(date.inputValue()).resolves.toBe('01/15/2026');
  provoked.push(/status of 400 .*\/public-api\/keys\)/);
  await page.getByRole('button', { name: 'Create the key' }).click();
  await page.getByText('The expiry must be in the future.').waitFor();
  // The date stays as chosen (not silently replaced), with the server's message under it.
  await expect(date.inputValue()).resolves.toBe('01/15/2026');
  expect(page.url()).toMatch(/\/keys\/create$/);
  await expectAccessible(page, 'create page, server validation errors');
  await screenshot(page, 'key-expiry-refused', { whole: false });
});

test('an existing expiry is kept as it is, with one statement about it (no "Currently" next to "end of this day")', async () => {
  const expiresAt = new Date(Date.UTC(2027, 1, 22, 2, 31)).toISOString();
  const { key } = await keys().create({ name: 'Ninety days', expiresAt, grants: {} });
  await page.goto(settings(`keys/${key.id}`));
  const expiry = page.getByRole('combobox', { name: 'Expiration' });
  await expect(expiry.textContent()).resolves.toContain('Keep: expires Feb 22, 2027, 2:31 AM');
  const body = (await page.locator('main').textContent()) ?? '';
  expect(body).not.toContain('Currently');
  expect(body).not.toContain('until the end of this day');
  // Keeping it is no change: Save stays disabled.
  await expect(page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).resolves.toBe(true);
  await expectAccessible(page, 'edit page, a key with an expiry');
});

test('/keys/9999 shows the server’s "No key \'9999\'." instead of a generic error', async () => {
  provoked.push(/status of 404 .*\/public-api\/keys\/9999\)/);
  await page.goto(settings('keys/9999'));
  await page.getByText("No key '9999'.").waitFor();
  await expectAccessible(page, 'a key that does not exist');
  await screenshot(page, 'key-not-found', { whole: false });
});

test('a revoked key is shown read-only: every field disabled, no Save', async () => {
  const { key } = await keys().create({
    name: 'Old partner',
    grants: { resources: { 'native:events': { actions: ['read'], read: ['title'] } }, origins: ['https://old.example'] },
  });
  await keys().revoke(key.id);
  await page.goto(settings(`keys/${key.id}`));
  await page.getByTestId('revoked-notice').getByText('This key is revoked', { exact: false }).waitFor();
  await expect(page.getByLabel('Name').isDisabled()).resolves.toBe(true);
  await expect(page.getByLabel('Description').isDisabled()).resolves.toBe(true);
  await expect(page.getByRole('checkbox', { name: 'Read Events', exact: true }).isDisabled()).resolves.toBe(true);
  await expect(page.getByLabel('Origin 1').isDisabled()).resolves.toBe(true);
  expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Full access' }).count()).toBe(0);
  await expectAccessible(page, 'edit page, revoked key');

  // Its Webhooks page says its endpoints are sent nothing, and takes no new one (a revoked key cannot come back).
  await page.getByRole('tab', { name: 'Webhooks', exact: true }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
  await page.getByText('This key is revoked: its endpoints are sent no event, and no endpoint can be added.').waitFor();
  expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
  await expectAccessible(page, 'webhooks page, revoked key');

  provoked.push(/status of 404 .*\/public-api\/keys\/9999\)/);
  await page.goto(settings('keys/9999/webhooks'));
  await page.getByText("No key '9999'.").waitFor();
});

test('the key page’s other states: the preview’s tabs and the regenerate, revoke and delete confirmations', async () => {
  const { key } = await keys().create({
    name: 'Checked in every state',
    grants: { resources: { 'native:events': { actions: ['read'], read: ['title'] } } },
  });
  await page.goto(settings(`keys/${key.id}`));
  const preview = page.getByTestId('section-preview');
  await preview.getByTestId('preview-index').getByText('native:events').waitFor();
  await preview.getByRole('tab', { name: 'OpenAPI document' }).click();
  await preview.getByTestId('openapi-view').or(preview.getByTestId('openapi-unavailable')).waitFor();
  await expectAccessible(page, 'edit page, OpenAPI preview');
  await preview.getByRole('tab', { name: 'Example request' }).click();
  await preview.getByTestId('curl-example').waitFor();
  await expectAccessible(page, 'edit page, example request');
  for (const [button, confirm] of [
    ['regenerate-key', 'Regenerate the key'],
    ['revoke-key', 'Revoke the key'],
    ['delete-key', 'Delete the key'],
  ] as const) {
    await page.getByTestId(button).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('button', { name: confirm }).waitFor();
    await expectAccessible(page, `edit page, ${button} confirmation`);
    await closeDialogWithEscape(page);
  }
  // Nothing was confirmed: the key is as it was.
  await expect(keys().findOne(key.id)).resolves.toEqual(expect.objectContaining({ revoked: false, name: 'Checked in every state' }));
});

test('the focus never falls to the page: on the new key after creating and regenerating, on the notice after revoking', async () => {
  await page.goto(settings('keys/create'));
  await page.getByLabel('Name').fill('Focus kept');
  await page.getByRole('checkbox', { name: 'Read Events', exact: true }).click();
  // By keyboard: Enter on the create button, whose page then goes.
  await page.getByRole('button', { name: 'Create the key' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/keys\/\d+$/);
  const shown = page.getByTestId('plaintext-key');
  const created = (await shown.textContent()) ?? '';
  await waitForFocus('copy-key');
  await expectAccessible(page, 'edit page, right after creation, focus on Copy key');

  // Regenerate: the dialog closes on the new key's copy button, not on Regenerate.
  await page.getByTestId('regenerate-key').focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('alertdialog');
  await dialog.getByRole('button', { name: 'Regenerate the key' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.waitForFunction((before) => document.querySelector('[data-testid="plaintext-key"]')?.textContent !== before, created);
  await waitForFocus('copy-key');

  // A cancelled revoke leaves the focus where Radix puts it: back on the Revoke button.
  await page.getByTestId('revoke-key').focus();
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Revoke the key' }).waitFor();
  await closeDialogWithEscape(page);
  await waitForFocus('revoke-key');

  // Revoked: the Revoke button is gone; the focus is on the revoked notice, which has a name.
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Revoke the key' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByTestId('revoked-notice').waitFor();
  expect(await page.getByTestId('revoke-key').count()).toBe(0);
  await waitForFocus('revoked-notice');
  const notice = page.getByRole('group', { name: 'This key is revoked' });
  await expect(notice.getAttribute('tabindex')).resolves.toBe('-1');
  await expect(notice.textContent()).resolves.toContain('every request with it is refused');
  await expectAccessible(page, 'edit page, just revoked, focus on the notice');
});

test('deleting a key from the list hands the focus to the key now in its row, or to the last row', async () => {
  const made = [];
  for (const name of ['Focus A', 'Focus B', 'Zzz focus last']) made.push((await keys().create({ name, grants: {} })).key);
  try {
    await page.goto(settings('keys'));
    const table = page.getByTestId('keys-table');
    await table.getByRole('link', { name: 'Zzz focus last' }).waitFor();
    const deleteVia = async (name: string) => {
      await page.getByRole('button', { name: `Delete ${name}` }).click();
      const dialog = page.getByRole('alertdialog');
      await dialog.getByRole('button', { name: 'Delete the key' }).click();
      await dialog.waitFor({ state: 'detached' });
      await table.getByRole('link', { name }).waitFor({ state: 'detached' });
    };
    const focusIs = async (expected: string) => {
      await page
        .waitForFunction((text) => (document.activeElement?.textContent ?? '').trim() === text, expected, { timeout: 5_000 })
        .catch(() => undefined);
      expect(await focused()).toBe(expected);
    };
    // The list is in name order: Focus B takes Focus A's row.
    await deleteVia('Focus A');
    await focusIs('Focus B');
    await expectAccessible(page, 'keys list, a key just deleted');
    // The last row gone: the focus goes to the row that is last now.
    await deleteVia('Zzz focus last');
    const last = ((await table.locator('tbody tr').last().locator('td').first().getByRole('link').textContent()) ?? '').trim();
    await focusIs(last);
  } finally {
    for (const key of made)
      await keys()
        .remove(key.id)
        .catch(() => undefined);
  }
});

/** Waits until the element with the focus is the one with this data-testid (the focus moves after a render). */
const waitForFocus = async (testId: string) => {
  await page
    .waitForFunction((id) => document.activeElement?.getAttribute('data-testid') === id, testId, { timeout: 5_000 })
    .catch(() => undefined);
  expect(await focusedElement()).toBe(testId);
};

/** Where the keys table's cells and delete buttons lie against the viewport, and whether the table scrolls. */
const keysTableLayout = async () =>
  (await page.getByTestId('keys-table').evaluate(`(() => {
    const table = document.querySelector('[data-testid="keys-table"]');
    const box = (element) => element.getBoundingClientRect();
    const rows = [...table.querySelectorAll('tbody tr')].map((row) => {
      const cells = [...row.querySelectorAll('td')];
      const name = cells[0];
      return {
        nameOverflows: [...name.querySelectorAll('*')].some((el) => box(el).right > box(cells[1]).left + 1),
        deleteRight: box(row.querySelector('button[aria-label^="Delete"], td:last-child button') ?? cells[cells.length - 1]).right,
      };
    });
    return { rows, tableRight: box(table).right, viewport: window.innerWidth, scrollable: table.parentElement.scrollWidth > table.parentElement.clientWidth };
  })()`)) as { rows: { nameOverflows: boolean; deleteRight: number }[]; tableRight: number; viewport: number; scrollable: boolean };

test('the keys list at 1440 px and 1280 px: long names and descriptions stay in their column, delete buttons in view', async () => {
  await keys().create({
    name: 'Demo key with every grant for the festival website and the mobile app of the harbour',
    description:
      'Created by npm run demo: every resource, every action, every field, every command. Replace it with keys of narrower grants before going live; this description is long on purpose.',
    grants: {},
  });
  await page.goto(settings('keys'));
  const table = page.getByTestId('keys-table');
  await table.getByRole('link', { name: /^Demo key with every grant/ }).waitFor();
  expect(await table.locator('tbody tr').count()).toBeGreaterThanOrEqual(2);
  expect(page.viewportSize()!.width).toBe(1440);
  const check = async (width: number) => {
    const { rows, tableRight, viewport, scrollable } = await keysTableLayout();
    expect({ width, viewport }).toEqual({ width, viewport: width });
    expect(rows.filter((row) => row.nameOverflows)).toEqual([]);
    // At 1280 px the table used to scroll sideways inside its card, its delete buttons out of view.
    expect({ width, scrollable }).toEqual({ width, scrollable: false });
    expect(tableRight).toBeLessThanOrEqual(viewport);
    for (const row of rows) expect(row.deleteRight).toBeLessThanOrEqual(viewport);
  };
  await check(1440);
  await expectAccessible(page, 'keys list');
  await screenshot(page, 'keys-list-layout');
  const viewport = page.viewportSize()!;
  await page.setViewportSize({ width: 1280, height: viewport.height });
  try {
    await page.waitForTimeout(200);
    await check(1280);
    await expectAccessible(page, 'keys list at 1280 px');
  } finally {
    await page.setViewportSize(viewport);
  }
});

test('websites: Save only after a change, no slug error for an empty name, and a warning where personal data is published', async () => {
  await page.goto(settings('websites/create'));
  provoked.push(/status of 400 .*\/public-api\/websites\)/);
  await page.getByRole('button', { name: 'Add the website' }).click();
  const nameError = page.getByText('A website needs a name of 1 to 120 characters.');
  await nameError.waitFor();
  expect(await page.getByText('No slug can be made', { exact: false }).count()).toBe(0);
  await expectAccessible(page, 'website create page, validation error');
  // The message goes as soon as a name is typed (it stayed under the filled name).
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Careers');
  await nameError.waitFor({ state: 'detached' });

  // "Add a publication" puts the focus on the new publication's content type, not on the button.
  await page.getByRole('button', { name: 'Add a publication' }).click();
  const publication = page.getByTestId('publication-0');
  await expect(
    page.evaluate(
      '(() => { const e = document.activeElement; return e?.getAttribute("role") + " in " + e?.closest("[data-testid^=publication-]")?.getAttribute("data-testid"); })()',
    ),
  ).resolves.toBe('combobox in publication-0');
  await publication.getByRole('combobox', { name: 'Content type' }).click();
  await page.getByRole('option', { name: 'Job application', exact: true }).click();
  await publication.getByText('Job application records hold personal data', { exact: false }).waitFor();
  await expectAccessible(page, 'website create page, personal data warning');
  await publication.scrollIntoViewIfNeeded();
  await screenshot(page, 'website-personal-data', { whole: false });
  await page.getByRole('button', { name: 'Remove publication 1' }).click();
  await expect(focused()).resolves.toBe('Add a publication');

  const site = await websites().create({
    name: 'Old Town',
    publications: [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }],
  });
  await page.goto(settings(`websites/${site.id}`));
  const save = page.getByRole('button', { name: 'Save', exact: true });
  await page.getByRole('heading', { name: 'Old Town', level: 1 }).waitFor();
  await expect(save.isDisabled()).resolves.toBe(true);
  const name = page.getByRole('textbox', { name: 'Name', exact: true });
  await name.fill('Old Town Guide');
  await expect(save.isDisabled()).resolves.toBe(false);
  await name.fill('Old Town');
  await expect(save.isDisabled()).resolves.toBe(true);
  await expectAccessible(page, 'website edit page');
  // A duplicate collection slug is named under the second one, and goes once that slug is changed.
  await page.getByRole('button', { name: 'Add a publication' }).click();
  const second = page.getByTestId('publication-1');
  await second.getByRole('combobox', { name: 'Content type' }).click();
  await page.getByRole('option', { name: 'Page', exact: true }).click();
  await second.getByLabel('Collection slug').fill('pages');
  provoked.push(/status of 400 .*\/public-api\/websites\/\d+\)/);
  await save.click();
  const duplicate = page.getByText("The collection slug 'pages' is already used by publication 1 of this website.");
  await duplicate.waitFor();
  await expectAccessible(page, 'website edit page, validation error');
  await second.getByLabel('Collection slug').fill('guides');
  await duplicate.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Remove publication 2' }).click();
  await expect(save.isDisabled()).resolves.toBe(true);

  await page.goto(settings('websites'));
  await page.getByTestId('websites-table').getByText('old-town').waitFor();
  await expectAccessible(page, 'websites list');

  provoked.push(/status of 404 .*\/public-api\/websites\/9999\)/);
  await page.goto(settings('websites/9999'));
  await page.getByText("No website '9999'.").waitFor();
  await expectAccessible(page, 'a website that does not exist');
});

test('editors: the grant editor shows the content manager’s labels, and the Page list shows each page’s website', async () => {
  // An admin renames a field in the content manager (Configure the view): the grant editor follows.
  const contentTypes = app.strapi.plugin('content-manager').service('content-types');
  const model = contentTypes.findContentType('api::event.event');
  const { uid: _uid, ...configuration } = await contentTypes.findConfiguration(model);
  configuration.metadatas.startsAt.edit.label = 'Starts at (local time)';
  await contentTypes.updateConfiguration(model, configuration);
  await page.goto(settings('keys/create'));
  const fields = await openFields('Events', 'native:events');
  await fields.getByRole('checkbox', { name: 'Starts at (local time) is readable', exact: true }).waitFor();
  // Fields nobody renamed read as words, not camelCase keys.
  expect(await fields.getByRole('checkbox', { name: 'startsAt is readable', exact: true }).count()).toBe(0);
  await expectAccessible(page, 'create page, fields of a resource open');

  const site = await websites().create({ name: 'Riverside', publications: [] });
  await app.strapi.documents('api::page.page').create({ data: { title: 'Market square', website: site.documentId } });
  await page.goto(`${app.baseUrl}/admin/content-manager/collection-types/api::page.page`);
  const row = page.getByRole('row', { name: /Market square/ });
  await row.waitFor();
  // The design system's header cells are grid cells: the header is found by its text in the table head.
  await page.locator('thead').getByText('Website', { exact: true }).waitFor();
  await row.getByText('Riverside').waitFor();
  await screenshot(page, 'page-list-website', { whole: false });
});
