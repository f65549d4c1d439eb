import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { checkResponses } from '../helpers/openapi';
import { writer } from '../helpers/writes';

let app: TestApp;
let key: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  app = await checkResponses(await bootApp({}, { template: 'demo' }));
  key = await createKey(app.strapi, 'all');
}, 600_000);

afterAll(async () => {
  await app?.close();
});

test('explore', async () => {
  const res = await writer(app).get('/api/v2/cms/city-guide/pages/about-us?include=sections.events', key.auth);
  console.log(res.status, JSON.stringify(res.body, null, 1).slice(0, 12000));
});
