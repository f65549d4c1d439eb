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
 * It answers what contract section 14 asks of any server of these documents, as /api/v2 does and checked
 * equal with its answers by the bench: a strong ETag (the SHA-256 of the bytes sent), Cache-Control by the
 * key's cache policy, Vary, and Cache-Tag and Surrogate-Key naming the resource and every record the
 * document shows (within the same 8,000-byte bound), and a request id. It does not count requests: the
 * RateLimit fields, which only a counter can fill, are /api/v2's alone.
 *
 * It keeps each record's JSON by its inputs (the row's values and its references), as /api/v2 does
 * (issue 37): a ceiling does no more work than the cheapest correct server, and that server keeps what it
 * can keep. Rows of the bench measured against the raw server before issue 37 were against one that wrote
 * every record on every request.
 *
 * What a hand-written server holds as constants it takes from its environment: the database file, the
 * server secret (PUBLIC_API_KEY_SECRET: keys are checked by the same HMAC, cursors signed by the same
 * derived key), the public origin its links name (the /api/v2 server's, so that documents are equal),
 * the events' `meta` member (resource and field descriptions: the same for every request of the key;
 * RAW_EVENTS_META, taken once by the bench) and the header fields the deployment sends with every answer,
 * its security fields (RAW_CONSTANT_HEADERS: a JSON object, taken once from an /api/v2 answer by the
 * bench). The key is looked up on every request, like /api/v2 does. `X-Bench-Issued-At` sets the time a
 * cursor carries, so that a page's bytes can be compared.
 *
 *   node dist/bench/raw-server.js
 *   (env: RAW_DATABASE, RAW_PORT, RAW_PUBLIC_ORIGIN, RAW_KEY_SECRET, RAW_EVENTS_META, RAW_CONSTANT_HEADERS)
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
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
const constantHeaders = JSON.parse(env('RAW_CONSTANT_HEADERS')) as Record<string, string>;

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

const keyByKeyId = db.prepare('SELECT secret_hash, revoked, expires_at, grants, cache FROM public_api_keys WHERE key_id = +?');
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
type Key = { keyId: string; grants: Grants; grantsText: string; cacheControl: string };

const KEY_PATTERN = /^Bearer[ \t]+pdk_([0-9A-Za-z]{12})_[0-9A-Za-z]{32,128}[ \t]*$/i;

/** Cache-Control of a document the key reads: shared for a key marked cacheable, else private. */
const cacheControlOf = (cache: unknown): string => {
  const policy = cache === null ? null : (JSON.parse(String(cache)) as { sharedMaxAge?: number } | null);
  const age = policy?.sharedMaxAge;
  return typeof age === 'number' && age > 0 ? `public, s-maxage=${age}, stale-while-revalidate=${age}` : 'private, no-cache';
};

/** Grants parsed once per text, as /api/v2 parses a key's JSON members once per text read (services/keys.ts). */
const grantsByText = new Map<string, Grants>();
const parsedGrants = (text: string): Grants => {
  let grants = grantsByText.get(text);
  if (!grants) {
    if (grantsByText.size >= 1_000) grantsByText.clear();
    grantsByText.set(text, (grants = JSON.parse(text) as Grants));
  }
  return grants;
};

const authenticate = (authorization: string | undefined): Key | null => {
  const match = authorization ? KEY_PATTERN.exec(authorization) : null;
  if (!match) return null;
  const row = keyByKeyId.get(match[1]) as Row | undefined;
  if (!row || row.revoked) return null;
  const token = authorization!.replace(/^Bearer[ \t]+/i, '').trim();
  const presented = createHmac('sha256', secret).update(token, 'utf8').digest();
  const stored = Buffer.from(String(row.secret_hash), 'hex');
  if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) return null;
  if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) return null;
  const grantsText = String(row.grants);
  return { keyId: match[1]!, grants: parsedGrants(grantsText), grantsText, cacheControl: cacheControlOf(row.cache) };
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

/**
 * Records' JSON kept by their inputs, as /api/v2 keeps them (serialize/record-texts.ts, issue 37): a record
 * whose row values and references are the same, value by value, as when its bytes were written is not
 * written again. A ceiling that wrote every record on every request did more work than the cheapest correct
 * server, which keeps what it can keep. Bounded by a number of records (the oldest kept is forgotten first;
 * the bench reads fewer than the bound).
 */
const MAX_KEPT_RECORDS = 100_000;
type Kept = { inputs: unknown[]; bytes: Buffer };
const keptRecords = new Map<number, Kept>();

const inputsOf = (row: Row, venue: Reference | undefined, festival: Reference | undefined): unknown[] => [
  ...Object.values(row),
  venue?.id,
  venue?.slug,
  festival?.id,
  festival?.slug,
];

const sameInputs = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((value, index) => value === b[index]);

/** The record of one row, as /api/v2 shows it. */
const recordOf = (row: Row, venue: Reference | null, festival: Reference | null) => ({
  type: 'events',
  id: String(row.document_id),
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
    venue,
    festival,
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
});

/** What a document of events needs of each record: its tags' ids and its JSON bytes (kept, or written now). */
type Shown = { id: string; venue: Reference | null; festival: Reference | null; bytes: Buffer };

const records = (rows: Row[]): Shown[] => {
  const ids = rows.map((row) => Number(row.id));
  if (ids.length && covers.get(JSON.stringify(ids))) throw new Error('The raw server shows no covers; these events have one.');
  if (ids.length && seos.get(JSON.stringify(ids))) throw new Error('The raw server shows no SEO components; these events have one.');
  const venue = referencesOf(venues, ids, 'buildings');
  const festival = referencesOf(festivals, ids, 'festivals');
  return rows.map((row) => {
    const rowId = Number(row.id);
    const [ownVenue, ownFestival] = [venue.get(rowId), festival.get(rowId)];
    const inputs = inputsOf(row, ownVenue, ownFestival);
    let kept = keptRecords.get(rowId);
    if (!kept || !sameInputs(kept.inputs, inputs)) {
      kept = { inputs, bytes: Buffer.from(JSON.stringify(recordOf(row, ownVenue ?? null, ownFestival ?? null))) };
      keptRecords.delete(rowId);
      keptRecords.set(rowId, kept);
      if (keptRecords.size > MAX_KEPT_RECORDS) keptRecords.delete(keptRecords.keys().next().value!);
    }
    return { id: String(row.document_id), venue: ownVenue ?? null, festival: ownFestival ?? null, bytes: kept.bytes };
  });
};

/**
 * Cache-Tag's tags of a document of events (contract 14): the resources it shows, in order of appearance,
 * then each record as `<resource>:<id>`, resource by resource; a list of over 8,000 bytes names
 * `<resource>:overflow` instead of the records.
 */
const MAX_CACHE_TAG_BYTES = 8000;
const tagsOf = (shown: Shown[]): string[] => {
  const found = new Map<string, Set<string>>([['events', new Set()]]);
  const add = (tag: string, id: string) => {
    let ids = found.get(tag);
    if (!ids) found.set(tag, (ids = new Set()));
    ids.add(id);
  };
  for (const record of shown) {
    add('events', record.id);
    for (const reference of [record.venue, record.festival]) if (reference) add(reference.collection, reference.id);
  }
  const resources = [...found.keys()];
  const all = [...resources, ...[...found].flatMap(([tag, ids]) => [...ids].map((id) => `${tag}:${id}`))];
  if (Buffer.byteLength(all.join(',')) <= MAX_CACHE_TAG_BYTES) return all;
  return [...resources, ...[...found].filter(([, ids]) => ids.size > 0).map(([tag]) => `${tag}:overflow`)];
};

/** A document and the tags that name what it shows; its ETag when kept with it. */
type Answer = { body: Buffer | string; tags: string[]; etag?: string };

const COMMA = Buffer.from(',');

/**
 * `head`, the records' kept bytes joined by commas, then `tail`: the records' bytes are copied, never
 * written again. /api/v2 writes its pages this way (serialize/document-bytes.ts), and so does the ceiling.
 */
const joinedJson = (head: string, items: Shown[], tail: string): Buffer => {
  const parts: Buffer[] = [Buffer.from(head)];
  items.forEach((item, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(item.bytes);
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

const page = (url: URL, keyId: string, issuedAt: number): Answer | null => {
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
  const data = records(shown);
  const body = joinedJson(
    `${JSONAPI},"links":{"self":${JSON.stringify(self)}${link}},"meta":${eventsMeta.slice(0, -1)},"page":{"nextCursor":${JSON.stringify(next)}}},"data":[`,
    data,
    ']}',
  );
  return { body, tags: tagsOf(data) };
};

const one = (url: URL, identifier: string): Answer | null => {
  const row = (eventBySlug.get(identifier) ?? eventByDocumentId.get(identifier)) as Row | undefined;
  if (!row) return null;
  const data = records([row]);
  return {
    body: joinedJson(`${JSONAPI},"links":{"self":${JSON.stringify(selfUrl(url))}},"meta":${eventsMeta},"data":`, data, '}'),
    tags: tagsOf(data),
  };
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

/**
 * The index's bytes and tag, kept by what they are made of (issue 37), as /api/v2 keeps them
 * (handlers/resource-index.ts): the key's grants text, the websites' rows (read on every request, as
 * /api/v2 reads them) and the request's URL.
 */
type KeptIndex = { grantsText: string; websiteRows: Row[]; self: string; answer: Answer };
const keptIndexes = new Map<string, KeptIndex>();

const sameRows = (a: Row[], b: Row[]) =>
  a.length === b.length && a.every((row, index) => row.slug === b[index]!.slug && row.publications === b[index]!.publications);

const resourceIndex = (url: URL, key: Key): Answer => {
  const websiteRows = websites.all() as Row[];
  const self = selfUrl(url);
  const kept = keptIndexes.get(key.grantsText);
  if (kept && kept.self === self && sameRows(kept.websiteRows, websiteRows)) return kept.answer;
  const grants = key.grants;
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
  for (const website of websiteRows) {
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
  const bytes = Buffer.from(`${JSONAPI},"links":{"self":${JSON.stringify(self)}},"data":${JSON.stringify(entries)}}`);
  const answer = { body: bytes, tags: ['_index'], etag: entityTag(bytes) };
  if (keptIndexes.size >= 1_000) keptIndexes.clear();
  keptIndexes.set(key.grantsText, { grantsText: key.grantsText, websiteRows, self, answer });
  return answer;
};

const answer = (res: http.ServerResponse, status: number, body: Buffer | string) => {
  res.writeHead(status, { 'Content-Type': MEDIA_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};

/** Documents of 1 KiB or more may be compressed (contract 14), so their answer varies with Accept-Encoding. */
const COMPRESSIBLE_BYTES = 1024;

/** A document the key may read, with the header fields contract 14 asks of it. */
const entityTag = (bytes: Buffer) => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;

const answerDocument = (res: http.ServerResponse, key: Key, { body, tags, etag }: Answer) => {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(200, {
    ...constantHeaders,
    'X-Request-Id': randomUUID(),
    'Cache-Control': key.cacheControl,
    'Cache-Tag': tags.join(','),
    'Surrogate-Key': tags.join(' '),
    ETag: etag ?? entityTag(bytes),
    Vary: bytes.length >= COMPRESSIBLE_BYTES ? 'Authorization, Accept-Encoding' : 'Authorization',
    'Content-Type': MEDIA_TYPE,
    'Content-Length': bytes.length,
  });
  res.end(bytes);
};

const server = http.createServer((req, res) => {
  try {
    const url = new URL(req.url ?? '/', origin);
    const key = authenticate(req.headers.authorization);
    if (!key) return answer(res, 401, UNAUTHORIZED);
    const issuedAt = Number(req.headers['x-bench-issued-at'] ?? Date.now());
    let document: Answer | null = null;
    if (url.pathname === '/api/v2/') document = resourceIndex(url, key);
    else if (url.pathname === '/api/v2/events') document = page(url, key.keyId, issuedAt);
    else if (url.pathname.startsWith('/api/v2/events/'))
      document = one(url, decodeURIComponent(url.pathname.slice('/api/v2/events/'.length)));
    if (document === null) return answer(res, 404, `${JSONAPI},"errors":[{"status":"404"}]}`);
    answerDocument(res, key, document);
  } catch (error) {
    answer(res, 500, `${JSONAPI},"errors":[{"status":"500","detail":${JSON.stringify(String((error as Error).message))}}]}`);
  }
});

server.listen(Number(env('RAW_PORT')), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
