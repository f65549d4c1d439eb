import type { Core } from '@strapi/strapi';
import { drainPool, type PoolCounts } from './database/drain';
import { closeSqliteReader } from './database/sqlite-reader';
import { getService } from './utils/get-service';

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  getService('idempotency').stopCleanup();
  await getService('webhook-dispatcher').stop();
  getService('journal').stopPruning();
  await getService('file-versions').stop();
  await getService('uploads').stop();
  await getService('last-used').flush();
  await getService('usage').stop();
  await getService('rate-limits').stop();
  await getService('readiness').stop();
  await getService('assets').settled();
  await getService('assets').closeOrigins();
  await getService('assets').closeTransforms();
  // Last: the reads Strapi starts after a write's commit must finish before it closes the pool.
  const pool = (strapi.db?.connection as unknown as { client?: { pool?: PoolCounts } } | undefined)?.client?.pool;
  if (!(await drainPool(pool))) strapi.log.warn('[public-api] shutting down with database queries still running');
  // SQLite's read-only connection (database/sqlite-reader.ts), after the reads that ran on it.
  await closeSqliteReader(strapi);
};
