/**
 * Boots the application the command runs in, without its HTTP server, and always shuts it down. The
 * application is the caller's: its folder (the working directory for the `public-api` command) and the
 * folder its built code is in (the same folder for a JavaScript application). Strapi is the one that
 * application installed, loaded only once the command's arguments are checked (a usage error answers at once).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Core } from '@strapi/strapi';

export type AppDirs = { appDir: string; distDir: string };

type StrapiPackage = typeof import('@strapi/strapi');

export const withStrapi = async <T>(dirs: AppDirs, fn: (strapi: Core.Strapi) => Promise<T>): Promise<T> => {
  process.env.LOG_LEVEL ??= 'error';
  const { createStrapi } = createRequire(path.join(dirs.appDir, 'package.json'))('@strapi/strapi') as StrapiPackage;
  const strapi = createStrapi({ appDir: dirs.appDir, distDir: dirs.distDir });
  await strapi.load();
  try {
    return await fn(strapi);
  } finally {
    await strapi.destroy();
  }
};
