/**
 * The real admin, built and served by the application on a fresh database, driven by playwright-core
 * in Debian's headless `chromium` (installed by scripts/install-browser.sh).
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { APP_ROOT, bootApp, type TestApp } from './app';
import { ADMIN_PASSWORD, createAdminUser } from './admin';

/**
 * The page's `document`, for the functions this file hands to `page.evaluate` (they run in the browser).
 * Declared here, for this module only, with just the members those functions use: the test project is
 * type-checked for Node, and `/// <reference lib="dom" />` would put every DOM global in all its files.
 */
type PageElement = {
  scrollTop: number;
  readonly scrollHeight: number;
  readonly style: { readonly pointerEvents: string };
  contains(other: PageElement | null): boolean;
};
declare const document: {
  readonly scrollingElement: PageElement | null;
  readonly activeElement: PageElement | null;
  querySelector(selectors: string): PageElement | null;
  querySelectorAll(selectors: string): Iterable<PageElement>;
};

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Exactly the flags the project runs Chromium with; a fresh profile comes with every launch. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOTS_DIR = path.join(APP_ROOT, 'docs', 'screenshots');

export type AdminApp = TestApp & { baseUrl: string; email: string; password: string };

/** Boots the app with the built admin panel (dist/build) and listens on a free port. */
export const startAdminApp = async (): Promise<AdminApp> => {
  if (!fs.existsSync(path.join(APP_ROOT, 'dist', 'build', 'index.html'))) {
    throw new Error('The admin panel is not built: run `npm run build` first.');
  }
  const app = await bootApp({ SERVE_ADMIN: 'true' });
  const server = app.strapi.server.httpServer;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const superAdmin = await (
    app.strapi.service('admin::role') as unknown as { getSuperAdmin: () => Promise<{ id: number }> }
  ).getSuperAdmin();
  const email = await createAdminUser(app, superAdmin.id, 'browser');
  return {
    ...app,
    baseUrl: `http://127.0.0.1:${port}`,
    email,
    password: ADMIN_PASSWORD,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
};

export type Browser = {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  close: () => Promise<void>;
};

export const launchBrowser = async (): Promise<Browser> => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/install-browser.sh first.`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-chromium-'));
  // playwright passes the profile as --user-data-dir; the other flags are ours, verbatim.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
  };
  page.on('console', onConsole);
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  return {
    context,
    page,
    errors,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
};

/**
 * A picture of the page into docs/screenshots/<name>.png. The admin scrolls inside its own layout,
 * not the document, so a whole page is taken by growing the viewport to the content's height.
 */
export const screenshot = async (page: Page, name: string, { whole = true }: { whole?: boolean } = {}) => {
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  // Notifications would cover the page's title: close them.
  const toasts = page.locator('[data-sonner-toast] button');
  for (const close of await toasts.all()) await close.click().catch(() => undefined);
  await page
    .locator('[data-sonner-toast]')
    .first()
    .waitFor({ state: 'detached', timeout: 5_000 })
    .catch(() => undefined);
  const viewport = page.viewportSize()!;
  // No hover effect where the last click was: rest the pointer in the empty bottom-right corner.
  await page.mouse.move(viewport.width - 2, viewport.height - 2);
  // Let transitions (dialogs, accordions) settle before the picture.
  await page.waitForTimeout(500);
  if (whole) {
    await page.evaluate(() => {
      for (const element of [document.scrollingElement, ...document.querySelectorAll('*')])
        if (element && element.scrollTop) element.scrollTop = 0;
    });
    const height = await page.evaluate(() =>
      Math.max(...[...document.querySelectorAll('main, [role="main"], body *')].slice(0, 4000).map((el) => el.scrollHeight)),
    );
    await page.setViewportSize({ width: viewport.width, height: Math.min(Math.max(height, viewport.height), 6000) });
    await page.waitForTimeout(300);
  }
  await page.screenshot({ path: path.join(SCREENSHOTS_DIR, `${name}.png`) });
  if (whole) await page.setViewportSize(viewport);
};

export const logIn = async (page: Page, app: AdminApp) => {
  await page.goto(`${app.baseUrl}/admin/auth/login`);
  await page.getByLabel('Email').fill(app.email);
  await page.getByLabel('Password').fill(app.password);
  await page.getByLabel('Password').press('Enter');
  await page.waitForURL((url) => !url.pathname.includes('/auth/'), { timeout: 30_000 });
  // Strapi's own announcement banner would cover the top of every page.
  const banner = page.getByText('Introducing the new Media Library');
  await banner.waitFor({ timeout: 10_000 }).catch(() => undefined);
  if (await banner.count()) {
    // Its only button is the one that dismisses it.
    await banner.locator('xpath=ancestor::div[.//button][1]').getByRole('button').click();
    await banner.waitFor({ state: 'detached' });
  }
};

/** Waits until `read` answers `expected` (the page updates asynchronously). */
export const waitForValue = async <T>(read: () => Promise<T>, expected: T, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected)) {
    if (Date.now() > deadline) throw new Error(`Expected ${JSON.stringify(expected)}, got ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
};

/**
 * Closes the open alert dialog with Escape, as a person at the keyboard does, and waits until it is gone.
 * Radix shows the dialog a render before it knows the dialog is the topmost dismissable layer, and its
 * Escape handler ignores a layer that is not: an Escape pressed in that render is lost and the dialog stays
 * open (CI showed it; pressed at once, 2 of 40 were lost here, and the focus is already in the dialog then).
 * The render that knows sets the layer's own `pointer-events: auto` (a modal dialog turns them off around
 * it), so that style, with the focus inside, is a dialog that hears Escape: 0 of 40 lost.
 */
export const closeDialogWithEscape = async (page: Page) => {
  const dialog = page.getByRole('alertdialog');
  await dialog.waitFor();
  await page.waitForFunction(() => {
    const open = document.querySelector('[role="alertdialog"]');
    return open?.style.pointerEvents === 'auto' && open.contains(document.activeElement);
  });
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
};
