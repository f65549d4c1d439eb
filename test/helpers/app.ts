/**
 * Boots the real application (compiled by the global setup) on a database of the suite's own, copied
 * from a template (the schema, or the schema with the demo content), for supertest.
 */
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { createStrapi } from '@strapi/strapi';
import request from 'supertest';
import publicApiConfig, { PLUGIN_ID } from '../../src/plugins/public-api/server/src/config';
import { createTestDatabase, type DatabaseTemplate, type TestDatabase } from './database';
import { applyTestEnv } from './env';

export const APP_ROOT = path.resolve(__dirname, '..', '..');

export type TestApp = {
  strapi: Core.Strapi;
  http: () => ReturnType<typeof request>;
  /** Waits until the key-use writes scheduled after earlier responses are in the database. */
  flushKeyUse: () => Promise<void>;
  close: () => Promise<void>;
};

export type BootOptions = {
  /** What the database starts with: the schema (default) or the demo content already seeded. */
  template?: DatabaseTemplate;
  /**
   * Settings of the public-api plugin in place of those config/plugins.ts gives (e.g. other native
   * resources): put in once Strapi has loaded the plugin's configuration, and checked by the plugin's
   * validator as Strapi checks the file's, before the plugin bootstraps.
   */
  pluginConfig?: Record<string, unknown>;
  /** Runs once every register() has run (the application's too) and before bootstrap: another application's. */
  beforeBootstrap?: (strapi: Core.Strapi) => void;
};

/** Strapi's load() in its two steps, with the test's changes between them. */
const load = async (strapi: Core.Strapi, { pluginConfig, beforeBootstrap }: BootOptions): Promise<void> => {
  if (!pluginConfig && !beforeBootstrap) {
    await strapi.load();
    return;
  }
  await strapi.register();
  if (pluginConfig) {
    // The very object the plugin reads (config/index.ts keeps it): changed in place, then checked whole.
    const config = strapi.config.get(`plugin::${PLUGIN_ID}`) as Record<string, unknown>;
    Object.assign(config, pluginConfig);
    publicApiConfig.validator(config);
  }
  beforeBootstrap?.(strapi);
  await strapi.bootstrap();
  (strapi as unknown as { isLoaded: boolean }).isLoaded = true;
};

export const bootApp = async (extraEnv: Record<string, string> = {}, options: BootOptions = {}): Promise<TestApp> => {
  applyTestEnv();
  const database: TestDatabase = await createTestDatabase(options.template ?? 'schema');
  Object.assign(process.env, database.env, extraEnv);
  const strapi = createStrapi({ appDir: APP_ROOT, distDir: path.join(APP_ROOT, 'dist') });
  try {
    await load(strapi, options);
  } catch (error) {
    // A start the test expected to fail leaves nothing behind: no open database, no copy of it.
    await strapi.destroy().catch(() => undefined);
    await database.drop();
    throw error;
  }
  strapi.server.mount();
  const server = strapi.server.httpServer;
  return {
    strapi,
    http: () => request(server),
    flushKeyUse: () => (strapi.plugin('public-api').service('last-used') as { flush: () => Promise<void> }).flush(),
    close: async () => {
      await strapi.destroy();
      await database.drop();
    },
  };
};
