/**
 * The benchmark's own database: the demo content plus benchmark volume, an API v2 key with every grant
 * and Strapi API tokens for Strapi's own REST API on the same data.
 */
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { createStrapi } from '@strapi/strapi';
import { seedBulkEvents, seedDemo } from '../src/seed';
import { APP_ROOT } from './server';

export type BenchCredentials = { apiKey: string; readToken: string; fullToken: string };

type TokenService = { create: (attributes: Record<string, unknown>) => Promise<{ accessKey: string }> };
type KeysService = { create: (input: { name: string; grants: unknown }) => Promise<{ plaintext: string }> };
type GrantsService = { all: () => Promise<{ resources: Record<string, { actions: string[]; read: string[]; write: string[] }>; commands: string[]; origins: string[] }> };

/**
 * Every grant, except the reverse lists `buildings.events` and `festivals.events`: Strapi's
 * `populate[venue]` returns a venue's own fields, not the thousands of events that point at it, so
 * both sides of the include comparison return the same content.
 */
const benchGrants = async (strapi: Core.Strapi) => {
  const grants = await (strapi.plugin('public-api').service('grants') as GrantsService).all();
  for (const id of ['native:buildings', 'native:festivals']) {
    const grant = grants.resources[id]!;
    grant.read = grant.read.filter((field) => field !== 'events');
    grant.write = grant.write.filter((field) => field !== 'events');
  }
  return grants;
};

const tokenService = (strapi: Core.Strapi): TokenService => {
  try {
    return strapi.service('admin::api-token-content-api') as unknown as TokenService;
  } catch {
    return strapi.service('admin::api-token') as unknown as TokenService;
  }
};

export const prepareDatabase = async (events: number, log: (line: string) => void): Promise<BenchCredentials> => {
  const strapi = createStrapi({ appDir: APP_ROOT, distDir: path.join(APP_ROOT, 'dist') });
  await strapi.load();
  try {
    await seedDemo(strapi, { log: () => {} });
    const bulk = await seedBulkEvents(strapi, events, { log: () => {} });
    log(`Benchmark data: ${bulk.inserted} events inserted, ${bulk.alreadyPresent} already present (${(bulk.durationMs / 1000).toFixed(1)} s).`);
    const stamp = Date.now();
    const { plaintext } = await (strapi.plugin('public-api').service('keys') as KeysService).create({ name: `bench ${stamp}`, grants: await benchGrants(strapi) });
    const tokens = tokenService(strapi);
    const read = await tokens.create({ name: `bench read ${stamp}`, type: 'read-only', lifespan: null, description: 'benchmark' });
    const full = await tokens.create({ name: `bench full ${stamp}`, type: 'full-access', lifespan: null, description: 'benchmark' });
    return { apiKey: plaintext, readToken: read.accessKey, fullToken: full.accessKey };
  } finally {
    await strapi.destroy();
  }
};
