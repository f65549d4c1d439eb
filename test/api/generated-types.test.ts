/**
 * types/generated/ (committed) is what Strapi generates from this application's content types and
 * components (issue 35). `strapi develop` writes those types and then compiles the application with them
 * (@strapi/typescript-utils), so the document service is typed per content type there: `publish` exists only
 * for content types with draft and publish. Without the files, `npm run typecheck` and the test suite's
 * compile saw every content type as a plain string and passed code that `npm run develop` refused. With them
 * committed and current, every compile this project runs (typecheck, the global setup's `tsc -p
 * tsconfig.json`) is the one develop runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_ROOT, runNode } from '../helpers/processes';

const ARTIFACTS = ['contentTypes.d.ts', 'components.d.ts'];

/**
 * What `strapi develop` and `strapi ts:generate-types` run: the application registered (no database), then
 * the generators, here writing into `out`. In a child process: the generators format with prettier through
 * a dynamic import, which Jest's module sandbox refuses.
 */
const GENERATE = `
const { createStrapi } = require('@strapi/strapi');
const { generators } = require('@strapi/typescript-utils');
const [appDir, out] = process.argv.slice(1);
(async () => {
  const strapi = await createStrapi({ appDir, distDir: appDir + '/dist' }).register();
  const reports = await generators.generate({
    strapi, pwd: out, logger: { silent: true }, artifacts: { contentTypes: true, components: true },
  });
  await strapi.destroy();
  if (Object.keys(reports).length !== 2) throw new Error('the type generation failed');
})().then(() => process.exit(0), (error) => { console.error(error); process.exit(1); });
`;

let out: string;

beforeAll(() => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-types-'));
});

afterAll(() => {
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

test('types/generated holds what Strapi generates from the content types and components, as develop does', async () => {
  const result = await runNode(['-e', GENERATE, APP_ROOT, out], {}, 180_000);
  expect([result.code, result.stderr]).toEqual([0, '']);
  for (const file of ARTIFACTS) {
    const generated = fs.readFileSync(path.join(out, 'types', 'generated', file), 'utf8');
    const committed = fs.readFileSync(path.join(APP_ROOT, 'types', 'generated', file), 'utf8');
    // On a difference: `npm run strapi -- ts:generate-types` (or `npm run develop`), and commit types/generated/.
    expect([file, committed === generated]).toEqual([file, true]);
  }
});

test('the generated types take part in the application compile: the root tsconfig includes them', () => {
  const config = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'tsconfig.json'), 'utf8')) as { include: string[]; exclude: string[] };
  expect(config.include).toContain('./**/*.ts');
  expect(config.exclude.filter((pattern) => pattern.startsWith('types'))).toEqual([]);
});
