/**
 * The raw ceiling of `npm run bench` (issue 16): what a hand-written server answers for the rows the
 * bench compares, over the same database, with nothing between the socket and SQLite but node:http and
 * better-sqlite3 prepared statements. It shares no code with the plugin: its SQL and its documents are
 * written here, for the benchmark events of the bench database only, and the bench checks that its bodies
 * equal /api/v2's byte for byte before a row is measured (bench/ceiling.ts).
 *
 * What it answers (anything else: 404):
 *   GET /api/v2/                                   the resource index of the key
 *   GET /api/v2/events?filter[slug][startsWith]=bench-&limit=N   a page of benchmark events (first page)
 *   GET /api/v2/events/<slug>                      one benchmark event
 *   a 401 (the floor) for a request without a valid key
 *
 * What a hand-written server holds as constants it takes from its environment: the database file, the
 * server secret (PUBLIC_API_KEY_SECRET: keys are checked by the same HMAC, cursors signed by the same
 * derived key), the public origin its links name (the /api/v2 server's, so that documents are equal), and
 * the events' `meta` member (resource and field descriptions: the same for every request of the key;
 * RAW_EVENTS_META, taken once by the bench). The key is looked up on every request, like /api/v2 does.
 * `X-Bench-Issued-At` sets the time a cursor carries, so that a page's bytes can be compared.
 *
 *   node dist/bench/raw-server.js   (env: RAW_DATABASE, RAW_PORT, RAW_PUBLIC_ORIGIN, RAW_KEY_SECRET, RAW_EVENTS_META)
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import Database from 'better-sqlite3';

type Row = Record<string, unknown>;

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required.`);
  return value;
};

const db = new Database(env('RAW_DATABASE'), { readonly: true, fileMustExist: true });
const secret = env('RAW_KEY_SECRET');
const origin = env('RAW_PUBLIC_ORIGIN');
const eventsMeta = JSON.stringify(JSON.parse(env('RAW_EVENTS_META')));
const cursorKey = createHmac('sha256', secret).update('public-api/cursor/v1').digest();

const MEDIA_TYPE = 'application/vnd.api+json';
const JSONAPI = '{"jsonapi":{"version":"1.1"}';

const UNAUTHORIZED = Buffer.from(
  `${JSONAPI},"errors":[{"status":"401","code":"unauthorized","title":"Unauthorized","detail":"A valid API key is required: send it as \`Authorization: Bearer <key>\`."}]}`,
);

// ---------------------------------------------------------------------------------------------------------
// Statements, prepared once
// ---------------------------------------------------------------------------------------------------------

// Placeholders are written `+?` (SQLite's no-op unary plus): SQLite reads a bound `LIMIT ?` or `col = ?` while
// it plans, and better-sqlite3 clears the bindings after every run, so a statement written with bare `?`
// is planned again on each run (src/plugins/public-api/server/src/database/sqlite-stable-plans.ts). The
// ceiling is what the best-written server does, so it does not pay that either.

const keyByKeyId = db.prepare('SELECT secret_hash, revoked, expires_at, grants FROM public_api_keys WHERE key_id = +?');
const websites = db.prepare('SELECT slug, publications FROM public_api_websites ORDER BY slug');

const EVENT_COLUMNS =
  'id, document_id, title, slug, sort, summary, starts_at, ends_at, category, tags, price, sold_out, capacity, body, created_at, updated_at, published_at';
const eventBySlug = db.prepare(
  `SELECT ${EVENT_COLUMNS} FROM events WHERE published_at IS NOT NULL AND locale = 'en' AND slug = +? LIMIT 1`,
);
const eventByDocumentId = db.prepare(
  `SELECT ${EVENT_COLUMNS} FROM events WHERE published_at IS NOT NULL AND locale = 'en' AND document_id = +? LIMIT 1`,
);
// Events are localized: every read is in the default language, 'en'.
// The first page of events whose slug starts with a prefix, in the default order (sort, nulls last, id).
const pageWithSort = db.prepare(
  `SELECT ${EVENT_COLUMNS} FROM events WHERE published_at IS NOT NULL AND locale = 'en' AND (sort IS NULL) = 0 AND LOWER(slug) LIKE +? ESCAPE '\\' ORDER BY sort, document_id LIMIT +?`,
);
const pageWithoutSort = db.prepare(
  `SELECT ${EVENT_COLUMNS} FROM events WHERE published_at IS NOT NULL AND locale = 'en' AND (sort IS NULL) = 1 AND LOWER(slug) LIKE +? ESCAPE '\\' ORDER BY document_id LIMIT +?`,
);
// Links per owner, to published targets, in the relation's order; owners as one JSON array parameter.
const links = (table: string, owner: string, target: string, targetTable: string, order: string) =>
  db.prepare(
    `SELECT l.${owner} AS owner, t.document_id AS id, t.slug AS slug FROM ${table} l JOIN ${targetTable} t ON t.id = l.${target}
     WHERE l.${owner} IN (SELECT value FROM json_each(+?)) AND t.published_at IS NOT NULL ORDER BY l.${owner}, l.${order}, l.id`,
  );
const venues = links('events_venue_lnk', 'event_id', 'building_id', 'buildings', 'event_ord');
const festivals = links('events_festival_lnk', 'event_id', 'festival_id', 'festivals', 'event_ord');
const covers = db.prepare(
  "SELECT related_id FROM files_related_mph WHERE related_type = 'api::event.event' AND field = 'cover' AND related_id IN (SELECT value FROM json_each(+?)) LIMIT 1",
);
// The SEO component (contract 15): looked up in Strapi's join table as /api/v2 does, one query a page.
const seos = db.prepare("SELECT entity_id FROM events_cmps WHERE field = 'seo' AND entity_id IN (SELECT value FROM json_each(+?)) LIMIT 1");

// ---------------------------------------------------------------------------------------------------------
// The key
// ---------------------------------------------------------------------------------------------------------

type Grants = Record<string, { actions?: string[] }>;

const KEY_PATTERN = /^Bearer[ \t]+pdk_([0-9A-Za-z]{12})_[0-9A-Za-z]{32,128}[ \t]*$/i;

const authenticate = (authorization: string | undefined): Grants | null => {
  const match = authorization ? KEY_PATTERN.exec(authorization) : null;
  if (!match) return null;
  const row = keyByKeyId.get(match[1]) as Row | undefined;
  if (!row || row.revoked) return null;
  const token = authorization!.replace(/^Bearer[ \t]+/i, '').trim();
  const presented = createHmac('sha256', secret).update(token, 'utf8').digest();
  const stored = Buffer.from(String(row.secret_hash), 'hex');
  if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) return null;
  if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) return null;
  return JSON.parse(String(row.grants)) as Grants;
};

// ---------------------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------------------

const iso = (value: unknown) => (value === null ? null : new Date(Number(value)).toISOString());

/** Strapi blocks of the benchmark events (paragraphs of plain text) -> the `doc` document. */
const doc = (raw: unknown): unknown => {
  if (raw === null) return null;
  const blocks = JSON.parse(String(raw)) as { type: string; children: { type: string; text: string }[] }[];
  return {
    type: 'doc',
    content: blocks.map((block) => {
      if (block.type !== 'paragraph') throw new Error(`The raw server reads paragraphs only, not ${block.type}.`);
      return {
        type: 'paragraph',
        content: block.children.map((child) => {
          if (child.type !== 'text' || Object.keys(child).length !== 2) throw new Error('The raw server reads plain text only.');
          return { type: 'text', text: child.text };
        }),
      };
    }),
  };
};

type Reference = { id: string; slug: string | null; collection: string };

const referencesOf = (statement: typeof venues, ids: number[], collection: string) => {
  const found = new Map<number, Reference>();
  for (const row of statement.all(JSON.stringify(ids)) as Row[]) {
    const owner = Number(row.owner);
    if (!found.has(owner)) found.set(owner, { id: String(row.id), slug: row.slug as string | null, collection });
  }
  return found;
};

const records = (rows: Row[]): unknown[] => {
  const ids = rows.map((row) => Number(row.id));
  if (ids.length && covers.get(JSON.stringify(ids))) throw new Error('The raw server shows no covers; these events have one.');
  if (ids.length && seos.get(JSON.stringify(ids))) throw new Error('The raw server shows no SEO components; these events have one.');
  const venue = referencesOf(venues, ids, 'buildings');
  const festival = referencesOf(festivals, ids, 'festivals');
  return rows.map((row) => ({
    type: 'events',
    id: row.document_id,
    attributes: {
      title: row.title,
      slug: row.slug,
      sort: row.sort,
      summary: row.summary,
      startsAt: iso(row.starts_at),
      endsAt: iso(row.ends_at),
      category: row.category,
      tags: row.tags === null ? [] : JSON.parse(String(row.tags)),
      price: row.price,
      soldOut: row.sold_out === null ? null : row.sold_out === 1,
      capacity: row.capacity,
      venue: venue.get(Number(row.id)) ?? null,
      festival: festival.get(Number(row.id)) ?? null,
      cover: null,
      body: doc(row.body),
      seo: null,
    },
    meta: {
      slug: row.slug,
      sort: row.sort,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      publishedAt: row.published_at,
    },
  }));
};

const COMMA = Buffer.from(',');

/**
 * `head`, the items' JSON joined by commas, then `tail`, as UTF-8 bytes: each item encoded on its own and
 * the bytes joined. A page's text made as one string is slow to make and to encode (a string of over
 * 128 KB, or one two bytes a character as soon as one record holds a character past Latin-1); /api/v2
 * writes its pages this way (serialize/document-bytes.ts), and so does the ceiling.
 */
const joinedJson = (head: string, items: unknown[], tail: string): Buffer => {
  const parts = [Buffer.from(head)];
  items.forEach((item, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(Buffer.from(JSON.stringify(item)));
  });
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
};

/** The canonical request URL, as /api/v2 links it: the query re-encoded. */
const selfUrl = (url: URL) => {
  const copy = new URL(url.pathname, origin);
  copy.search = new URLSearchParams(url.search).toString();
  return copy.toString();
};

/** What the page's rows depend on: the sort, the filter and the language relations are read in (the default). */
const fingerprint = (prefix: string) =>
  createHash('sha256')
    .update(JSON.stringify([[['sort', 'asc']], [JSON.stringify(['slug', 'startsWith', prefix])], 'en']))
    .digest()
    .subarray(0, 16)
    .toString('base64url');

const cursor = (keyId: string, prefix: string, issuedAt: number, last: Row) => {
  const bytes = Buffer.from(
    JSON.stringify([1, keyId, 'native:events', fingerprint(prefix), issuedAt, [last.sort], String(last.document_id)]),
  );
  return Buffer.concat([bytes, createHmac('sha256', cursorKey).update(bytes).digest()]).toString('base64url');
};

const page = (url: URL, keyId: string, issuedAt: number): Buffer | null => {
  const prefix = url.searchParams.get('filter[slug][startsWith]');
  const limit = Number(url.searchParams.get('limit') ?? 20);
  const names = [...url.searchParams.keys()].sort().join(',');
  if (!prefix || !/^[a-z0-9-]+$/.test(prefix) || names !== 'filter[slug][startsWith],limit' || !(limit >= 1 && limit <= 100)) return null;
  const pattern = `${prefix}%`;
  const rows = pageWithSort.all(pattern, limit + 1) as Row[];
  if (rows.length <= limit) rows.push(...(pageWithoutSort.all(pattern, limit + 1 - rows.length) as Row[]));
  const shown = rows.slice(0, limit);
  const self = selfUrl(url);
  let next: string | null = null;
  let link = '';
  if (rows.length > limit) {
    next = cursor(keyId, prefix, issuedAt, shown.at(-1)!);
    const nextUrl = new URL(self);
    const params = new URLSearchParams(nextUrl.search);
    params.append('cursor', next);
    nextUrl.search = params.toString();
    link = `,"next":${JSON.stringify(nextUrl.toString())}`;
  }
  return joinedJson(
    `${JSONAPI},"links":{"self":${JSON.stringify(self)}${link}},"meta":${eventsMeta.slice(0, -1)},"page":{"nextCursor":${JSON.stringify(next)}}},"data":[`,
    records(shown),
    ']}',
  );
};

const one = (url: URL, identifier: string): string | null => {
  const row = (eventBySlug.get(identifier) ?? eventByDocumentId.get(identifier)) as Row | undefined;
  if (!row) return null;
  return `${JSONAPI},"links":{"self":${JSON.stringify(selfUrl(url))}},"meta":${eventsMeta},"data":${JSON.stringify(records([row])[0])}}`;
};

const NATIVE = [
  ['Buildings', 'buildings'],
  ['Events', 'events'],
  ['Festivals', 'festivals'],
  ['Jobs', 'jobs'],
  ['Products', 'products'],
] as const;
const CMS_NAMES: Record<string, string> = {
  'api::page.page': 'Pages',
  'api::setting.setting': 'Settings',
  'api::homepage.homepage': 'Home',
};

const resourceIndex = (url: URL, grants: Grants): string => {
  const granted = (id: string) => (grants[id]?.actions?.length ?? 0) > 0;
  const entries: unknown[] = [];
  for (const [name, slug] of NATIVE) {
    const id = `native:${slug}`;
    if (granted(id))
      entries.push({
        type: 'resources',
        id,
        attributes: { name, slug, mode: 'collection', sourceType: 'native' },
        links: { self: `${origin}/api/v2/${slug}` },
      });
  }
  for (const website of websites.all() as Row[]) {
    for (const publication of JSON.parse(String(website.publications)) as { collection: string; contentType: string; mode: string }[]) {
      const id = `cms:${website.slug}/${publication.collection}`;
      if (!granted(id)) continue;
      entries.push({
        type: 'resources',
        id,
        attributes: {
          name: CMS_NAMES[publication.contentType] ?? publication.collection,
          slug: publication.collection,
          mode: publication.mode,
          sourceType: 'cms',
          website: website.slug,
        },
        links: { self: `${origin}/api/v2/cms/${website.slug}/${publication.collection}` },
      });
    }
  }
  return `${JSONAPI},"links":{"self":${JSON.stringify(selfUrl(url))}},"data":${JSON.stringify(entries)}}`;
};

const answer = (res: http.ServerResponse, status: number, body: Buffer | string) => {
  res.writeHead(status, { 'Content-Type': MEDIA_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};

const server = http.createServer((req, res) => {
  try {
    const url = new URL(req.url ?? '/', origin);
    const grants = authenticate(req.headers.authorization);
    if (!grants) return answer(res, 401, UNAUTHORIZED);
    const keyId = KEY_PATTERN.exec(req.headers.authorization!)![1]!;
    const issuedAt = Number(req.headers['x-bench-issued-at'] ?? Date.now());
    let body: Buffer | string | null = null;
    if (url.pathname === '/api/v2/') body = resourceIndex(url, grants);
    else if (url.pathname === '/api/v2/events') body = page(url, keyId, issuedAt);
    else if (url.pathname.startsWith('/api/v2/events/')) body = one(url, decodeURIComponent(url.pathname.slice('/api/v2/events/'.length)));
    if (body === null) return answer(res, 404, `${JSONAPI},"errors":[{"status":"404"}]}`);
    answer(res, 200, body);
  } catch (error) {
    answer(res, 500, `${JSONAPI},"errors":[{"status":"500","detail":${JSON.stringify(String((error as Error).message))}}]}`);
  }
});

server.listen(Number(env('RAW_PORT')), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
