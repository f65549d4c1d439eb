/**
 * Boots the application without its HTTP server for command-line scripts, and always shuts it down.
 */
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { createStrapi } from '@strapi/strapi';

// Compiled to dist/scripts/lib; the application root is three levels up.
export const APP_ROOT = path.resolve(__dirname, '..', '..', '..');

export const withStrapi = async <T>(fn: (strapi: Core.Strapi) => Promise<T>): Promise<T> => {
  process.env.LOG_LEVEL ??= 'error';
  const strapi = createStrapi({ appDir: APP_ROOT, distDir: path.join(APP_ROOT, 'dist') });
  await strapi.load();
  try {
    return await fn(strapi);
  } finally {
    await strapi.destroy();
  }
};
