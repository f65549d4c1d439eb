/**
 * Speaking to the write endpoints in tests: JSON bodies, every answer checked against the JSON:API
 * schema, and the database looked at directly.
 */
import type { Core } from '@strapi/strapi';
import type { TestApp } from './app';
import { expectValidJsonApi } from './jsonapi';

export type Answer = { status: number; headers: Record<string, string>; body: any; text: string };

/**
 * Lets the app's server listen on one port, so that absolute URLs in answers (links, Location, asset
 * URLs) are the same from one request to the next (supertest otherwise listens anew per request).
 */
export const listenOnce = (app: TestApp): Promise<void> =>
  new Promise((resolve) => {
    const server = app.strapi.server.httpServer;
    if (server.listening) resolve();
    else server.listen(0, '127.0.0.1', () => resolve());
  });

export const writer = (app: TestApp) => {
  const send = async (
    method: 'post' | 'patch' | 'delete' | 'get',
    path: string,
    auth: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    let req = app.http()[method](path).set('Authorization', auth);
    for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
    if (body !== undefined) {
      req = req
        .set('Content-Type', headers['Content-Type'] ?? 'application/vnd.api+json')
        .send(typeof body === 'string' ? body : JSON.stringify(body));
    }
    const res = await req;
    if (res.text) {
      expect(res.headers['content-type']).toBe('application/vnd.api+json');
      expectValidJsonApi(res.body);
    }
    return { status: res.status, headers: res.headers as Record<string, string>, body: res.body, text: res.text };
  };
  return {
    send,
    post: (path: string, auth: string, body: unknown, headers?: Record<string, string>) => send('post', path, auth, body, headers),
    patch: (path: string, auth: string, body: unknown, headers?: Record<string, string>) => send('patch', path, auth, body, headers),
    del: (path: string, auth: string, headers?: Record<string, string>) => send('delete', path, auth, undefined, headers),
    get: (path: string, auth: string) => send('get', path, auth),
  };
};

/** The path and query of an absolute URL (Location, links.self), to request it again. */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

export const resourceDocument = (type: string, attributes: Record<string, unknown>, id?: string) => ({
  data: { type, ...(id ? { id } : {}), attributes },
});

/** Every row of a content type (drafts, published, all locales), for before/after comparisons. */
export const rowsOf = async (strapi: Core.Strapi, uid: string) =>
  (await strapi.db.query(uid as Parameters<typeof strapi.db.query>[0]).findMany({ orderBy: [{ id: 'asc' }], populate: true })) as Record<
    string,
    unknown
  >[];

/** A whole table, relations and media links included, as plain rows: proves that nothing changed. */
export const tableSnapshot = async (strapi: Core.Strapi, uids: string[]) => {
  const snapshot: Record<string, unknown> = {};
  for (const uid of uids) snapshot[uid] = await rowsOf(strapi, uid);
  snapshot.files_related = await (strapi.db.connection as any)('files_related_mph').select('*').orderBy('id');
  return JSON.parse(JSON.stringify(snapshot));
};
