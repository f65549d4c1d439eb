/**
 * The packed plugin in a second Strapi application (test/fixtures/blog-app, a blog), configured only by
 * that application's config/plugins.ts: it boots on SQLite (or MariaDB, TEST_DATABASE=mariadb), the bin makes a key, the key reads and writes
 * the blog's content (a dynamic zone, components, relations, a single type), the OpenAPI document passes
 * an outside validator, and the application's own command runs.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { api, createKey, loadFixture, registerAdmin, runBin, START_DEADLINE_MS, startFixture, type RunningFixture } from './fixture';

const fixture = loadFixture();
let running: RunningFixture;
let key: string;

beforeAll(async () => {
  running = await startFixture(fixture);
  key = await createKey(fixture, running, 'shop');
}, 2 * START_DEADLINE_MS);

afterAll(async () => {
  await running?.stop();
});

type Record = { type: string; id: string; attributes: { [field: string]: unknown }; meta: { [member: string]: unknown } };

const created = async (target: string, type: string, attributes: object): Promise<Record> => {
  const answer = await api(running, key, 'POST', target, { data: { type, attributes } });
  expect({ target, status: answer.status, errors: answer.body.errors }).toEqual({ target, status: 201, errors: undefined });
  return answer.body.data as Record;
};

const paragraph = (text: string) => ({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] });

test(`runs on Strapi ${fixture.version}: the bin's key reads the index of the blog's configured resources`, async () => {
  expect(key).toMatch(/^pdk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32,128}$/);
  const refused = await api(running, null, 'GET', '/');
  expect(refused.status).toBe(401);
  expect(refused.headers.get('content-type')).toMatch(/^application\/vnd\.api\+json/);

  const index = await api(running, key, 'GET', '/');
  expect(index.status).toBe(200);
  const ids = (index.body.data as Record[]).map((entry) => entry.id);
  expect(ids).toEqual(expect.arrayContaining(['native:articles', 'native:authors', 'native:categories', 'native:front-page']));
  // Only what config/plugins.ts names: the author messages (personal data) are not a resource.
  expect(ids.filter((id) => id.startsWith('native:'))).toHaveLength(4);
});

test('the bin refuses bad input with a message, a non-zero exit and no key written', async () => {
  const count = async () => Number((await running.rows('SELECT COUNT(*) AS n FROM public_api_keys'))[0]!.n);
  const keys = await count();
  const result = await runBin(fixture, ['key', 'create', '--name', 'no-grants'], running.env);
  expect(result.code).not.toBe(0);
  expect(result.stderr.trim()).not.toBe('');
  expect(await count()).toBe(keys);
});

test('writes and reads articles with their author, categories and a dynamic zone of sections', async () => {
  const author = await created('/authors', 'authors', {
    name: 'Ada Writer',
    bio: 'Writes about gardens.',
    links: [{ label: 'Website', url: 'https://ada.example' }],
  });
  const gardens = await created('/categories', 'categories', { name: 'Gardens' });
  const winter = await created('/categories', 'categories', { name: 'Winter' });
  const article = await created('/articles', 'articles', {
    title: 'Pruning roses in winter',
    excerpt: 'When and how to cut back.',
    readingMinutes: 6,
    author: author.id,
    categories: [gardens.id, { slug: winter.meta.slug }],
    sections: [
      { type: 'blog.rich-text', attributes: { body: paragraph('Cut above an outward-facing bud.') } },
      { type: 'blog.quote', attributes: { text: 'The best time is the dormant season.', attribution: 'A gardener' } },
      { type: 'blog.call-to-action', attributes: { label: 'Buy shears', url: 'https://shop.example/shears' } },
    ],
    seo: { metaTitle: 'Pruning roses', metaDescription: 'A winter job.' },
  });
  expect(article.meta.slug).toBe('pruning-roses-in-winter');

  const page = await api(running, key, 'GET', '/articles?include=author,categories');
  expect(page.status).toBe(200);
  const [read] = page.body.data as Record[];
  expect(read!.id).toBe(article.id);
  expect(read!.attributes.author).toMatchObject({ type: 'authors', id: author.id, attributes: { name: 'Ada Writer' } });
  expect((read!.attributes.categories as Record[]).map((category) => category.attributes.name)).toEqual(['Gardens', 'Winter']);
  expect(read!.attributes.sections).toEqual([
    { type: 'blog.rich-text', attributes: { body: paragraph('Cut above an outward-facing bud.') } },
    { type: 'blog.quote', attributes: { text: 'The best time is the dormant season.', attribution: 'A gardener' } },
    { type: 'blog.call-to-action', attributes: { label: 'Buy shears', url: 'https://shop.example/shears', style: 'primary' } },
  ]);
  expect(read!.attributes.seo).toEqual({ metaTitle: 'Pruning roses', metaDescription: 'A winter job.' });

  const changed = await api(running, key, 'PATCH', `/articles/${article.id}`, {
    data: { type: 'articles', id: article.id, attributes: { readingMinutes: 7, categories: { remove: [winter.id] } } },
  });
  expect(changed.status).toBe(200);
  const again = await api(running, key, 'GET', `/articles/${article.id}`);
  expect(again.body.data).toMatchObject({ attributes: { readingMinutes: 7, categories: [{ id: gardens.id }] } });

  // A bad write is a JSON:API error naming the value, and changes nothing.
  const refused = await api(running, key, 'PATCH', `/articles/${article.id}`, {
    data: {
      type: 'articles',
      id: article.id,
      attributes: { sections: [{ type: 'blog.call-to-action', attributes: { label: 'No address' } }] },
    },
  });
  expect(refused.status).toBe(422);
  expect(refused.body.errors?.[0]).toMatchObject({ source: { pointer: '/data/attributes/sections/0/attributes/url' } });
  const unchanged = await api(running, key, 'GET', `/articles/${article.id}`);
  expect((unchanged.body.data as Record).attributes.sections).toHaveLength(3);

  // Articles archive on DELETE (config/plugins.ts): the record leaves the list, the author stays.
  expect((await api(running, key, 'DELETE', `/articles/${article.id}`)).status).toBe(200);
  expect((await api(running, key, 'GET', '/articles')).body.data).toEqual([]);
  expect((await api(running, key, 'GET', `/authors/${author.id}`)).status).toBe(200);
});

test('the front page single type is a singleton: made by an editor, then written and read at its own path', async () => {
  const article = await created('/articles', 'articles', { title: 'Spring sowing' });
  // A single type's record is made in the admin; until then the API has none to change.
  expect((await api(running, key, 'GET', '/front-page')).status).toBe(404);
  const token = await registerAdmin(running, 'editor@blog.example');
  const made = await fetch(`${running.url}/content-manager/single-types/api::front-page.front-page`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ headline: 'Welcome' }),
  });
  expect(made.status).toBe(200);
  const written = await api(running, key, 'PATCH', '/front-page', {
    data: {
      type: 'front-page',
      attributes: { headline: 'The garden blog', tagline: 'Every week', featuredArticles: [article.id], seo: { metaTitle: 'Garden blog' } },
    },
  });
  expect({ status: written.status, errors: written.body.errors }).toEqual({ status: 200, errors: undefined });
  const read = await api(running, key, 'GET', '/front-page');
  expect(read.status).toBe(200);
  expect(read.body.data).toMatchObject({
    attributes: {
      headline: 'The garden blog',
      tagline: 'Every week',
      featuredArticles: [{ id: article.id }],
      seo: { metaTitle: 'Garden blog' },
    },
  });
  expect((await api(running, key, 'POST', '/front-page', { data: { type: 'front-page', attributes: {} } })).status).toBe(405);
});

test('the OpenAPI document passes an outside validator and describes the blog and its command', async () => {
  const response = await fetch(`${running.url}/api/v2/openapi.json`, { headers: { Authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  const document = (await response.json()) as { openapi: string; paths: { [path: string]: unknown } };
  expect(document.openapi).toBe('3.1.0');
  // swagger-parser validates against the OpenAPI 3.1 schema and resolves every $ref; it changes what it is given.
  await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  expect(Object.keys(document.paths)).toEqual(
    expect.arrayContaining(['/articles', '/articles/{record}', '/authors', '/categories', '/front-page', '/commands/contact-author']),
  );
  expect(JSON.stringify(document)).not.toContain('author-messages');
});

test('runs the command the application registers: contact-author stores the message, an unknown author is a 422', async () => {
  const author = await created('/authors', 'authors', { name: 'Bo Reader-Friendly' });
  const schema = await api(running, key, 'GET', '/commands/schema');
  expect((schema.body.data as Record[]).map((command) => command.id)).toContain('contact-author');

  const message = { author: author.id, name: 'Cy', email: ' CY@Example.org ', message: 'Loved the rose article.' };
  const answer = await api(running, key, 'POST', '/commands/contact-author', { data: { type: 'contact-author', attributes: message } });
  expect({ status: answer.status, errors: answer.body.errors }).toEqual({ status: 201, errors: undefined });
  expect(answer.body.data).toMatchObject({ type: 'command-results', attributes: { command: 'contact-author', status: 'accepted' } });
  expect(await running.rows('SELECT sender_name, sender_email, message FROM author_messages')).toEqual([
    { sender_name: 'Cy', sender_email: 'cy@example.org', message: 'Loved the rose article.' },
  ]);

  const unknown = await api(running, key, 'POST', '/commands/contact-author', {
    data: { type: 'contact-author', attributes: { ...message, author: 'no-such-author' } },
  });
  expect(unknown.status).toBe(422);
  expect(unknown.body.errors?.[0]).toMatchObject({ source: { pointer: '/data/attributes/author' }, meta: { reason: 'author_not_found' } });
  const invalid = await api(running, key, 'POST', '/commands/contact-author', {
    data: { type: 'contact-author', attributes: { author: author.id } },
  });
  expect(invalid.status).toBe(422);
  expect((invalid.body.errors ?? []).map((error) => (error.source as { pointer: string }).pointer)).toEqual(
    expect.arrayContaining(['/data/attributes/email', '/data/attributes/message', '/data/attributes/name']),
  );
  expect(Number((await running.rows('SELECT COUNT(*) AS n FROM author_messages'))[0]!.n)).toBe(1);
});
