/**
 * Boots the real application (compiled by the global setup) on a database of the suite's own, copied
 * from a template (the schema, or the schema with the demo content), for supertest.
 */
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { createStrapi } from '@strapi/strapi';
import request from 'supertest';
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
};

export const bootApp = async (extraEnv: Record<string, string> = {}, { template = 'schema' }: BootOptions = {}): Promise<TestApp> => {
  applyTestEnv();
  const database: TestDatabase = await createTestDatabase(template);
  Object.assign(process.env, database.env, extraEnv);
  const strapi = createStrapi({ appDir: APP_ROOT, distDir: path.join(APP_ROOT, 'dist') });
  await strapi.load();
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
