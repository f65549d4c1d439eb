/**
 * The benchmark's own environment and database: a SQLite file under bench/.data and a variant cache
 * directory of the run's own, Strapi booted in-process to prepare them, and the content every run needs
 * (the demo content plus benchmark volume, an API v2 key with every grant and Strapi API tokens for
 * Strapi's own REST API on the same data).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import dotenv from 'dotenv';
import { ensureEnvFile } from '../scripts/lib/env-file';
import { seedBulkEvents, seedDemo } from '../src/seed';
import { APP_ROOT } from './server';

export const DATA_DIR = path.join(APP_ROOT, 'bench', '.data');

export type BenchEnv = {
  DATABASE_CLIENT: string;
  DATABASE_FILENAME: string;
  PUBLIC_API_ASSET_CACHE_DIR: string;
  PUBLIC_API_RATE_LIMIT_REQUESTS: string;
  PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT_REQUESTS: string;
};

/**
 * The settings of one run, for `startServer` and, set on this process as well, for the in-process
 * preparation: the SQLite file `bench/.data/<database>` and a variant cache directory of this run's own
 * (bench/.data/asset-cache-<pid>; the caller removes it when done). Loads `.env`, writing one first if
 * there is none.
 */
export const benchEnvironment = (database: string): BenchEnv => {
  ensureEnvFile(APP_ROOT);
  dotenv.config({ path: path.join(APP_ROOT, '.env') });
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const env: BenchEnv = {
    DATABASE_CLIENT: 'sqlite',
    DATABASE_FILENAME: path.join(DATA_DIR, database),
    PUBLIC_API_ASSET_CACHE_DIR: path.join(DATA_DIR, `asset-cache-${process.pid}`),
    // The load generator is one key: at the default 600 requests a minute most of a row would be 429s.
    // The counter is still kept (in the database, as by default), so its cost stays in the figures.
    PUBLIC_API_RATE_LIMIT_REQUESTS: '1000000',
    // The floor rows send requests without a key: at the default 30 a minute per address, the floor would
    // measure 429s (cheaper than a 401: no counter written) and every later row from this address would
    // be refused. Raised like the key's; failed authentications are still counted.
    PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT_REQUESTS: '1000000',
  };
  Object.assign(process.env, env, { LOG_LEVEL: 'error' });
  return env;
};

/** Boots Strapi in this process on the run's database (see `benchEnvironment`), runs `work`, stops it. */
export { withStrapi } from '../scripts/lib/strapi';

export type BenchCredentials = { apiKey: string; readToken: string; fullToken: string };

type TokenService = { create: (attributes: Record<string, unknown>) => Promise<{ accessKey: string }> };
type KeysService = {
  create: (input: { name: string; grants: unknown; limits?: { requests: number; window: number } }) => Promise<{ plaintext: string }>;
};
type GrantsService = {
  all: () => Promise<{
    resources: Record<string, { actions: string[]; read: string[]; write: string[] }>;
    commands: string[];
    origins: string[];
  }>;
};
type Grants = Awaited<ReturnType<GrantsService['all']>>;

/** A new API v2 key (with its own rate limit when `limits` is given); returns its plaintext. */
export const createApiKey = async (
  strapi: Core.Strapi,
  name: string,
  grants: Grants | 'all',
  limits?: { requests: number; window: number },
): Promise<string> => (await (strapi.plugin('public-api').service('keys') as KeysService).create({ name, grants, limits })).plaintext;

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

/** The demo content, `events` benchmark events (those missing are inserted) and fresh credentials. */
export const prepareDatabase = async (strapi: Core.Strapi, events: number, log: (line: string) => void): Promise<BenchCredentials> => {
  await seedDemo(strapi, { log: () => {} });
  const bulk = await seedBulkEvents(strapi, events, { log: () => {} });
  log(
    `Benchmark data: ${bulk.inserted} events inserted, ${bulk.alreadyPresent} already present (${(bulk.durationMs / 1000).toFixed(1)} s).`,
  );
  const stamp = Date.now();
  const apiKey = await createApiKey(strapi, `bench ${stamp}`, await benchGrants(strapi));
  const tokens = tokenService(strapi);
  const read = await tokens.create({ name: `bench read ${stamp}`, type: 'read-only', lifespan: null, description: 'benchmark' });
  const full = await tokens.create({ name: `bench full ${stamp}`, type: 'full-access', lifespan: null, description: 'benchmark' });
  return { apiKey, readToken: read.accessKey, fullToken: full.accessKey };
};
