/**
 * What an application configures and registers (contract section 18), against the real application:
 * with no native resources only the websites' collections are served, and the index and the OpenAPI
 * document agree; a single type configured as a native resource is a singleton, read and patched at its
 * path, alone or in an atomic request; a uid that names no content type stops the start; commands can
 * be registered until the plugin bootstraps, and a command another application registers is served as
 * this application's are.
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { ensureLocale, localize, publish, website } from '../helpers/fixtures';
import { listenOnce, resourceDocument, tableSnapshot, writer } from '../helpers/writes';
import { newsletterSignup } from '../../src/commands/newsletter-signup';
import type { CommandDefinition, CommandEnvironment, PublicApiCommands } from '../../src/plugins/public-api/server/src/public';

const PAGE = 'api::page.page';
const HOME = 'api::homepage.homepage';

const commandsOf = (strapi: Core.Strapi) => strapi.plugin('public-api').service('commands') as PublicApiCommands;

const paths = async (app: TestApp, auth: string): Promise<string[]> => {
  const res = await app.http().get('/api/v2/openapi.json').set('Authorization', auth);
  expect(res.status).toBe(200);
  return Object.keys(res.body.paths);
};

describe('no native resources configured', () => {
  let app: TestApp;
  let api: ReturnType<typeof writer>;

  beforeAll(async () => {
    app = await checkResponses(await bootApp({}, { pluginConfig: { nativeResources: [] } }));
    api = writer(app);
    await listenOnce(app);
    const guide = await website(app.strapi, 'city-guide', [{ collection: 'pages', contentType: PAGE, mode: 'collection' }]);
    await publish(app.strapi, PAGE, { title: 'About', slug: 'about', website: guide.documentId });
  });
  afterAll(async () => {
    await app?.close();
  });

  test('only the websites’ collections are served; the index and the OpenAPI document say the same', async () => {
    const key = await createKey(app.strapi, { resources: { 'cms:city-guide/pages': { actions: ['read'], read: '*' } } }, { name: 'guide' });
    const index = await api.get('/api/v2/', key.auth);
    expect(index.status).toBe(200);
    expect(index.body.data.map((entry: any) => entry.id)).toEqual(['cms:city-guide/pages']);
    const documented = await paths(app, key.auth);
    expect(documented.filter((path) => path.startsWith('/cms/'))).toEqual(['/cms/city-guide/pages', '/cms/city-guide/pages/{record}']);
    // Nothing below the base but the index, the documents, the commands' list, the sync feed and the website's paths.
    expect(documented.filter((path) => !path.startsWith('/cms/')).sort()).toEqual(
      ['/', '/commands/schema', '/openapi', '/openapi.json', '/schema', '/sync'].sort(),
    );
    const page = await api.get('/api/v2/cms/city-guide/pages/about', key.auth);
    expect(page.status).toBe(200);
    expect(page.body.data.attributes.title).toBe('About');
  });

  test("the specification's modules are not resources here: a grant naming one is refused, its path is 404", async () => {
    await expect(
      createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: '*' } } }, { name: 'events' }),
    ).rejects.toThrow(/Unknown resource 'native:events'/);
    const key = await createKey(app.strapi, { resources: {} }, { name: 'nothing' });
    const res = await api.get('/api/v2/events', key.auth);
    expect(res.status).toBe(404);
    expect(res.body.errors[0].meta.reason).toBe('resource_not_found');
  });

  test('a grant stored before the resource went from the configuration reaches nothing, as a removed resource', async () => {
    const key = await createKey(
      app.strapi,
      { resources: { 'cms:city-guide/pages': { actions: ['read'], read: ['title'] } } },
      { name: 'stale' },
    );
    const stored = (await app.strapi.db.query('plugin::public-api.api-key').findOne({ where: { name: 'stale' } })) as {
      id: number;
      grants: unknown;
    };
    const grants = { ...(stored.grants as object), 'native:events': { actions: ['read'], read: ['title'], write: [] } };
    await app.strapi.db.query('plugin::public-api.api-key').update({ where: { id: stored.id }, data: { grants } });
    expect((await api.get('/api/v2/events', key.auth)).status).toBe(404);
    const index = await api.get('/api/v2/', key.auth);
    expect(index.body.data.map((entry: any) => entry.id)).toEqual(['cms:city-guide/pages']);
    expect((await paths(app, key.auth)).some((path) => path.startsWith('/events'))).toBe(false);
  });
});

describe('a single type as a native resource, and a command of another application', () => {
  let app: TestApp;
  let s: Core.Strapi;
  let api: ReturnType<typeof writer>;
  let key: { auth: string };
  const ids: Record<string, string> = {};
  const twice: string[] = [];

  /** A command as another application would write it: its own name, input and result. */
  const echoInput = ({ z }: CommandEnvironment) => z.strictObject({ words: z.array(z.string().min(1).max(20)).min(1).max(5) });
  const echo: CommandDefinition<ReturnType<typeof echoInput>> = {
    name: 'echo-words',
    description: 'Answers the words it was sent, counted.',
    input: echoInput,
    run: async (input) => ({ status: 'done', attributes: { count: input.words.length } }),
  };

  beforeAll(async () => {
    app = await checkResponses(
      await bootApp(
        {},
        {
          pluginConfig: {
            nativeResources: [
              { slug: 'events', uid: 'api::event.event', deleteMode: 'remove' },
              { slug: 'home', uid: HOME, deleteMode: 'remove' },
            ],
          },
          beforeBootstrap: (strapi) => {
            const commands = commandsOf(strapi);
            commands.register(echo);
            try {
              commands.register(newsletterSignup);
            } catch (error) {
              twice.push((error as Error).message);
            }
          },
        },
      ),
    );
    s = app.strapi;
    api = writer(app);
    await listenOnce(app);
    await ensureLocale(s, 'de', 'German');
    const jazz = await publish(s, 'api::event.event', {
      title: 'Jazz',
      slug: 'jazz',
      category: 'concert',
      startsAt: '2027-06-01T19:00:00Z',
    });
    ids.jazz = jazz.documentId;
    const home = await publish(s, HOME, { headline: 'Welcome', featuredEvents: [jazz.documentId] });
    await localize(s, HOME, home.documentId, 'de', { headline: 'Willkommen' });
    ids.home = home.documentId;
    key = await createKey(
      s,
      {
        resources: {
          'native:home': { actions: ['read', 'update'], read: '*', write: ['headline', 'featuredEvents'] },
          'native:events': { actions: ['read'], read: ['title'] },
        },
        commands: ['echo-words', 'newsletter-signup'],
      },
      { name: 'home editor' },
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  test('a second command of one name stopped its registration with one line', () => {
    expect(twice).toEqual(["The public-api command 'newsletter-signup' is registered twice."]);
  });

  test('registering once the plugin has bootstrapped throws, and the commands stay as they were', async () => {
    expect(() => commandsOf(s).register({ ...echo, name: 'late' })).toThrow(
      "The public-api command 'late' was registered after the plugin's bootstrap: register commands in the application's register().",
    );
    const listed = await api.get('/api/v2/commands/schema', key.auth);
    expect(listed.body.data.map((entry: any) => entry.id)).toEqual(['echo-words', 'newsletter-signup']);
    expect((await api.post('/api/v2/commands/late', key.auth, { data: { type: 'late', attributes: {} } })).status).toBe(404);
  });

  test("another application's command is listed, documented, validated and run", async () => {
    const ran = await api.post('/api/v2/commands/echo-words', key.auth, {
      data: { type: 'echo-words', attributes: { words: ['a', 'b'] } },
    });
    expect(ran.status).toBe(201);
    expect(ran.body.data.attributes).toEqual({ command: 'echo-words', status: 'done', count: 2 });
    const refused = await api.post('/api/v2/commands/echo-words', key.auth, { data: { type: 'echo-words', attributes: { words: [] } } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source).toEqual({ pointer: '/data/attributes/words' });
    expect(await paths(app, key.auth)).toEqual(expect.arrayContaining(['/commands/echo-words', '/commands/newsletter-signup']));
  });

  test('the index lists the single type as a singleton at /home, and the OpenAPI document has its read and its PATCH', async () => {
    const index = await api.get('/api/v2/', key.auth);
    const home = index.body.data.find((entry: any) => entry.id === 'native:home');
    expect(home).toMatchObject({ type: 'resources', id: 'native:home', attributes: { mode: 'singleton', sourceType: 'native' } });
    expect(home.links.self).toMatch(/\/api\/v2\/home$/);
    const res = await app.http().get('/api/v2/openapi.json').set('Authorization', key.auth);
    expect(Object.keys(res.body.paths['/home'])).toEqual(expect.arrayContaining(['get', 'patch']));
    expect(res.body.paths['/home'].post).toBeUndefined();
    expect(res.body.paths['/home/{record}']).toBeUndefined();
  });

  test('GET reads its one record, per locale; nothing is below it; it is never created or deleted', async () => {
    const en = await api.get('/api/v2/home', key.auth);
    expect(en.status).toBe(200);
    expect(en.body.data).toMatchObject({
      type: 'home',
      id: ids.home,
      attributes: { headline: 'Welcome', featuredEvents: [{ id: ids.jazz, slug: 'jazz', collection: 'events' }] },
    });
    expect(en.body.links.self).toMatch(/\/api\/v2\/home$/);
    const de = await api.get('/api/v2/home?locale=de', key.auth);
    expect(de.body.data.attributes.headline).toBe('Willkommen');
    expect((await api.get(`/api/v2/home/${ids.home}`, key.auth)).status).toBe(404);
    const post = await api.post('/api/v2/home', key.auth, resourceDocument('home', { headline: 'Another' }));
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, PATCH, OPTIONS');
    await expect(
      createKey(s, { resources: { 'native:home': { actions: ['read', 'delete'], read: '*' } } }, { name: 'home remover' }),
    ).rejects.toThrow(/native:home is a singleton: it supports read and update only, not delete/);
  });

  test('PATCH changes its one record in the locale asked for; fields the key may not write are refused', async () => {
    const before = await tableSnapshot(s, [HOME]);
    const refused = await api.patch('/api/v2/home', key.auth, resourceDocument('home', { intro: [] }));
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source).toEqual({ pointer: '/data/attributes/intro' });
    expect(await tableSnapshot(s, [HOME])).toEqual(before);
    const de = await api.patch('/api/v2/home?locale=de', key.auth, resourceDocument('home', { headline: 'Herzlich willkommen' }));
    expect(de.status).toBe(200);
    expect(de.body.links.self).toMatch(/\/api\/v2\/home\?locale=de$/);
    expect(de.body.data.attributes.headline).toBe('Herzlich willkommen');
    expect((await api.get('/api/v2/home', key.auth)).body.data.attributes.headline).toBe('Welcome');
  });

  test('the sync feed carries its one record, as it carries a website singleton’s', async () => {
    const res = await api.get('/api/v2/sync?limit=100&locale=en', key.auth);
    expect(res.status).toBe(200);
    expect(res.body.links.next).toBeUndefined();
    const home = res.body.data.filter((item: any) => item.meta.resource === 'native:home');
    expect(home).toEqual([expect.objectContaining({ type: 'home', id: ids.home })]);
    expect(home[0].attributes.headline).toEqual(expect.any(String));
  });

  test('an atomic request updates it as a single PATCH does', async () => {
    const res = await app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', key.auth)
      .set('Content-Type', 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"')
      .set('Accept', 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"')
      .send(
        JSON.stringify({
          'atomic:operations': [{ op: 'update', ref: { type: 'home' }, data: { type: 'home', attributes: { headline: 'Hello' } } }],
        }),
      );
    expect(res.status).toBe(200);
    expect(res.body['atomic:results'][0].data.attributes.headline).toBe('Hello');
    expect((await api.get('/api/v2/home', key.auth)).body.data.attributes.headline).toBe('Hello');
  });
});

test('a native resource whose uid names no content type stops the start with one line', async () => {
  await expect(
    bootApp({}, { pluginConfig: { nativeResources: [{ slug: 'articles', uid: 'api::article.article', deleteMode: 'remove' }] } }),
  ).rejects.toThrow(
    new Error("The public-api plugin's nativeResources[0] ('articles') names content type api::article.article, which does not exist."),
  );
});

test('the configuration is checked as Strapi checks the file: a reserved slug stops the start', async () => {
  await expect(
    bootApp({}, { pluginConfig: { nativeResources: [{ slug: 'operations', uid: 'api::event.event', deleteMode: 'remove' }] } }),
  ).rejects.toThrow(/nativeResources\[0\]\.slug 'operations' is reserved by the API's own paths/);
});
