/**
 * `npm run demo`: everything a new user needs, in one command. Writes a `.env` with fresh secrets when
 * there is none, builds the admin panel when it is missing or stale, seeds the demo content
 * (idempotent), creates the demo admin user and a demo key, starts the application and prints how to
 * use it. A second run reuses what the first built and seeded. Nothing of this happens under
 * `npm run start`.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import dotenv from 'dotenv';
import { adminBuildIsCurrent, markAdminBuild } from './lib/admin-build';
import { ensureDemoKey, type DatabaseConnection, type DemoKeysService } from './lib/demo-key';
import { ensureEnvFile } from './lib/env-file';
import { checkPort, explainListenErrors } from './lib/port';
import { APP_ROOT } from './lib/strapi';

const say = (line = '') => process.stdout.write(`${line}\n`);
// Synchronous on files and pipes, so it is out before an exit that follows at once.
const complain = (line: string) => process.stderr.write(`${line}\n`);

/** The port and host Strapi will listen on (config/server.ts), as far as the environment says them. */
const listenTarget = (): { port: number; host: string } | null => {
  const port = Number(process.env.PORT ?? 1337);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return null;
  return { port, host: process.env.HOST || '0.0.0.0' };
};

const ensureAdminBuild = () => {
  if (adminBuildIsCurrent(APP_ROOT)) {
    say('Admin panel: already built.');
    return;
  }
  say('Admin panel: building (about a minute, once)...');
  execFileSync(process.execPath, [path.join(APP_ROOT, 'node_modules', '@strapi', 'strapi', 'bin', 'strapi.js'), 'build'], {
    cwd: APP_ROOT,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  markAdminBuild(APP_ROOT);
};

const ensureAdminUser = async (strapi: Core.Strapi, email: string, password: string): Promise<'created' | 'exists'> => {
  const users = strapi.db.query('admin::user');
  if (await users.findOne({ where: { email } })) return 'exists';
  const superAdmin = await (strapi.service('admin::role') as { getSuperAdmin: () => Promise<{ id: number }> }).getSuperAdmin();
  await (strapi.service('admin::user') as { create: (data: Record<string, unknown>) => Promise<unknown> }).create({
    email,
    firstname: 'Demo',
    lastname: 'Admin',
    password,
    isActive: true,
    registrationToken: null,
    roles: [superAdmin.id],
  });
  return 'created';
};

export const banner = (url: string, key: string, email: string, password: string, adminState: string) => {
  const api = `${url}/api/v2`;
  const auth = `-H "Authorization: Bearer ${key}"`;
  return [
    '',
    '────────────────────────────────────────────────────────────────────────',
    ' The Public Data API demo is running.',
    '',
    ` Admin panel:  ${url}/admin`,
    `   e-mail:     ${email}`,
    `   password:   ${password}${adminState === 'exists' ? '   (the user existed already: its password was left as it was)' : ''}`,
    '',
    ' Demo key (every resource, every action, every field):',
    `   ${key}`,
    '',
    ' Try:',
    `   curl ${auth} ${api}/`,
    `   curl ${auth} "${api}/events?limit=5&sort=-startsAt&include=venue"`,
    `   curl -g ${auth} "${api}/events?locale=de&filter[category]=concert"`,
    `   curl ${auth} ${api}/cms/city-guide/pages`,
    `   curl ${auth} ${api}/cms/culture-hub/settings`,
    '',
    ' More keys: npm run key -- create --name NAME --all   (or --grants FILE; see README)',
    ' Stop with Ctrl+C.',
    '────────────────────────────────────────────────────────────────────────',
    '',
  ].join('\n');
};

export const main = async (): Promise<number> => {
  // A PORT or HOST in an existing .env counts; variables already set win (dotenv never overrides them).
  dotenv.config({ path: path.join(APP_ROOT, '.env') });
  // Before a minute of building and seeding, not after.
  const target = listenTarget();
  const problem = target && (await checkPort(target.port, target.host));
  if (problem) {
    complain(problem);
    return 1;
  }
  if (ensureEnvFile(APP_ROOT)) say('Wrote .env with fresh random secrets.');
  // Strapi read .env when it was first loaded; read it again now that it surely exists.
  dotenv.config({ path: path.join(APP_ROOT, '.env') });
  ensureAdminBuild();

  const email = process.env.DEMO_ADMIN_EMAIL || 'admin@example.com';
  const password = process.env.DEMO_ADMIN_PASSWORD || 'Demo-Admin-2026';
  const { createStrapi } = await import('@strapi/strapi');
  const strapi = createStrapi({ appDir: APP_ROOT, distDir: path.join(APP_ROOT, 'dist') });
  await strapi.load();

  const { seedDemo, describeDemoSeed, takeCensus } = await import('../src/seed');
  say('Demo content: seeding (idempotent)...');
  const seeded = await seedDemo(strapi, { log: say });
  say(describeDemoSeed(seeded, await takeCensus(strapi))[0]);
  const adminState = await ensureAdminUser(strapi, email, password);
  // One key per database (.tmp/demo-keys/): a demo on another database keeps its own.
  const { key, file, state } = await ensureDemoKey(
    APP_ROOT,
    strapi.config.get('database.connection') as DatabaseConnection,
    strapi.plugin('public-api').service('keys') as DemoKeysService,
  );
  say(
    `Demo key: ${state === 'reused' ? 'reused' : state === 'adopted' ? 'kept from .tmp/demo-key' : 'created'}, saved for this database in ${file}.`,
  );

  const port = strapi.config.get('server.port') as number;
  // Taken meanwhile: say so before Strapi exits (its own message is lost in the exit).
  explainListenErrors(strapi.server.httpServer, port, complain);
  await strapi.listen();
  const configured = strapi.config.get('server.url') as string | undefined;
  const url = configured && /^https?:\/\//.test(configured) ? configured.replace(/\/$/, '') : `http://localhost:${port}`;
  say(banner(url, key, email, password, adminState));

  // Keep serving until stopped: createStrapi already shuts the application down on SIGINT and SIGTERM
  // (a second handler here destroyed it twice, and Ctrl+C ended in "Destroy ... has already been called").
  return new Promise<number>(() => {});
};
