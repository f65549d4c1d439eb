/**
 * Boots the application the command runs in, without its HTTP server, and always shuts it down. The
 * application is the caller's: its folder (the working directory for the `public-api` command) and the
 * folder its compiled code is in (the same folder for a JavaScript application).
 */
import type { Core } from '@strapi/strapi';
import { createStrapi } from '@strapi/strapi';

export type AppDirs = { appDir: string; distDir: string };

export const withStrapi = async <T>(dirs: AppDirs, fn: (strapi: Core.Strapi) => Promise<T>): Promise<T> => {
  process.env.LOG_LEVEL ??= 'error';
  const strapi = createStrapi({ appDir: dirs.appDir, distDir: dirs.distDir });
  await strapi.load();
  try {
    return await fn(strapi);
  } finally {
    await strapi.destroy();
  }
};
