/**
 * Before the fixture suites: the plugin packed, installed into a fresh copy of the fixture application and
 * built, for the Strapi version FIXTURE_STRAPI names (the locked one by default); Chromium installed for
 * the admin suite. The suites find the result through FIXTURE_APP_STATE.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { prepareFixture, stateFile } from './prepare';
import { REPO_ROOT, wantedStrapi } from './versions';

export default async () => {
  const version = wantedStrapi();
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!fs.existsSync(chromium))
    execFileSync('sh', [path.join(REPO_ROOT, 'scripts', 'install-browser.sh')], { cwd: REPO_ROOT, stdio: 'inherit' });
  const prepared = prepareFixture(version);
  process.env.FIXTURE_APP_STATE = stateFile(version);
  const steps = Object.entries(prepared.timings).map(([step, seconds]) => `${step} ${seconds.toFixed(1)} s`);
  process.stdout.write(`\nFixture application on Strapi ${version} (${prepared.appDir}): ${steps.join(', ')}\n`);
};
