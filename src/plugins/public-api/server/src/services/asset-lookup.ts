/**
 * Which stored file an asset URL names (services/assets.ts): the file of that name whose token matches
 * (compared in constant time) and that content still references, linked from a media field of a
 * published record (or of a record of a type without draft & publish, or of a component), or embedded as
 * an image in a published richtext field. Otherwise there is no asset at that URL.
 *
 * What a URL names is kept for a few seconds (assets/lookup-cache): every write to content in this
 * process forgets it at once, after the write's transaction ends too; another instance's write is seen
 * here within `LOOKUP_TTL_MS`. Made by the assets service, once per application.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { FILE_VERSIONS_TABLE } from '../content-types/file-version';
import { createLookupCache } from '../assets/lookup-cache';
import { ASSET_TOKEN_LENGTH, assetTokenMatches, type AssetKey } from '../assets/token';
import { databaseClient } from '../database/connection';
import { rawRows } from '../database/raw-result';
import { readConnectionOf } from '../database/sqlite-reader';
import { escapeLike, LIKE_ESCAPE } from '../read/sql';

/** A stored file, as an asset URL resolves it. */
export type StoredFile = {
  id: number;
  documentId: string;
  name: string;
  hash: string;
  /** The content version of a replaced file (services/file-versions), null if never replaced. */
  version: string | null;
  ext: string | null;
  mime: string;
  url: string;
  provider: string;
  /** What the provider recorded with the file (JSON), given back to it when it signs a URL. */
  providerMetadata: unknown;
};

const TOKEN = new RegExp(`^[A-Za-z0-9_-]{${ASSET_TOKEN_LENGTH}}$`);
/** Strapi keeps file names in a 255-character column; a longer name names nothing. */
const MAX_NAME_LENGTH = 255;
// Control characters never occur in a stored name; NUL would even be refused by PostgreSQL.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

const MEDIA_TABLE = 'files_related_mph';

type Meta = { tableName: string; attributes: Record<string, { type: string; columnName?: string }> };

/** Where published rows can be told apart: content types with draft & publish, and their blocks columns. */
type ContentTables = {
  published: { uid: string; table: string }[];
  blocks: { table: string; column: string; published: boolean }[];
};

/** Stands for the file name while the lookup's SQL is built; no stored name starts with NUL. */
const NAME_PLACEHOLDER = '\u0000name';

/** How long a resolved URL is kept at most; the bound on a write by another instance going unseen here. */
export const LOOKUP_TTL_MS = 5_000;
const LOOKUP_MAX_ENTRIES = 10_000;

/** Writes to these never change what an asset URL names (keys, replayed answers, admin and core state). */
const unrelatedToAssets = (uid: string) =>
  uid === 'plugin::public-api.api-key' ||
  uid === 'plugin::public-api.idempotency-record' ||
  uid.startsWith('admin::') ||
  uid.startsWith('strapi::');

const WRITES = ['afterCreate', 'afterCreateMany', 'afterUpdate', 'afterUpdateMany', 'afterDelete', 'afterDeleteMany'] as const;

type Transactor = { executionPromise?: Promise<unknown> };

export const createAssetLookup = (strapi: Core.Strapi, assetKey: () => AssetKey) => {
  // Asset lookups are reads: on SQLite's read-only connection outside a transaction (database/sqlite-reader.ts).
  const knex = (): Knex => readConnectionOf(strapi);
  let tables: ContentTables | null = null;
  const lookups = createLookupCache<StoredFile>({ ttlMs: LOOKUP_TTL_MS, maxEntries: LOOKUP_MAX_ENTRIES });

  const contentTables = (): ContentTables => {
    if (tables) return tables;
    const found: ContentTables = { published: [], blocks: [] };
    for (const [uid, contentType] of Object.entries(strapi.contentTypes)) {
      const meta = strapi.db.metadata.get(uid) as unknown as Meta | undefined;
      if (!meta) continue;
      const published = (contentType as { options?: { draftAndPublish?: boolean } }).options?.draftAndPublish === true;
      if (published) found.published.push({ uid, table: meta.tableName });
      for (const [name, attribute] of Object.entries(contentType.attributes)) {
        if ((attribute as { type: string }).type !== 'blocks') continue;
        found.blocks.push({ table: meta.tableName, column: meta.attributes[name]?.columnName ?? name, published });
      }
    }
    tables = found;
    return found;
  };

  /** `EXISTS` a media link to file `f` from a row that counts (published, where that applies). */
  const linkedFromContent = (): Knex.QueryBuilder => {
    const { published } = contentTables();
    return knex()(`${MEDIA_TABLE} as m`)
      .select(knex().raw('1'))
      .whereRaw('m.file_id = f.id')
      .andWhere((either) => {
        either.whereNotIn(
          'm.related_type',
          published.map((entry) => entry.uid),
        );
        // One primary-key lookup per link, never a scan of the owners' table.
        for (const { uid, table } of published) {
          either.orWhere((link) =>
            link
              .where('m.related_type', uid)
              .whereExists(knex()(`${table} as o`).select(knex().raw('1')).whereRaw('o.id = m.related_id').whereNotNull('o.published_at')),
          );
        }
      });
  };

  /** Whether a published richtext field embeds the file (found by its content hash). */
  const embeddedInRichtext = async (file: StoredFile): Promise<boolean> => {
    const pattern = `%${escapeLike(file.hash)}%`;
    for (const { table, column, published } of contentTables().blocks) {
      // A JSON column as text: TEXT on SQLite and PostgreSQL, CHAR on MySQL and MariaDB (their CAST has no TEXT).
      const text = databaseClient(strapi) === 'mysql' ? 'CHAR' : 'TEXT';
      const query = knex()(table).select(knex().raw('1')).whereRaw(`CAST(?? AS ${text}) LIKE ? ${LIKE_ESCAPE}`, [column, pattern]).limit(1);
      if (published) query.whereNotNull('published_at');
      if ((await query).length > 0) return true;
    }
    return false;
  };

  /**
   * The files of a name, each with whether content still links it. The SQL is built once (it only depends
   * on the schema) and run with the name as its one variable binding: every asset request runs it.
   */
  let filesByName: { sql: string; bindings: readonly Knex.Value[]; nameAt: number } | null = null;
  const findByName = async (fileName: string): Promise<(StoredFile & { linked: number | string | boolean })[]> => {
    if (!filesByName) {
      const compiled = knex()('files as f')
        .select({
          id: 'f.id',
          documentId: 'f.document_id',
          name: 'f.name',
          hash: 'f.hash',
          version: 'v.version',
          ext: 'f.ext',
          mime: 'f.mime',
          url: 'f.url',
          provider: 'f.provider',
          providerMetadata: 'f.provider_metadata',
          linked: knex().raw('CASE WHEN EXISTS ? THEN 1 ELSE 0 END', [linkedFromContent()]),
        })
        .leftJoin(`${FILE_VERSIONS_TABLE} as v`, 'v.file_id', 'f.id')
        .where('f.name', NAME_PLACEHOLDER)
        .orderBy('f.id')
        .toSQL();
      filesByName = { sql: compiled.sql, bindings: compiled.bindings, nameAt: compiled.bindings.indexOf(NAME_PLACEHOLDER) };
    }
    const bindings = [...filesByName.bindings];
    bindings[filesByName.nameAt] = fileName;
    return rawRows<StoredFile & { linked: number | string | boolean }>(await knex().raw(filesByName.sql, bindings));
  };

  const lookup = async (token: string, fileName: string): Promise<StoredFile | null> => {
    const key = assetKey();
    // MySQL and MariaDB compare `f.name = ?` by the column's collation, which ignores case and trailing
    // spaces (utf8mb4_unicode_ci, PAD SPACE): 'DOOR.png ' would find door.png there. The query keeps the
    // indexed comparison; the name is compared exactly here, as SQLite and PostgreSQL compare it.
    const row = (await findByName(fileName)).find(
      (candidate) =>
        candidate.name === fileName &&
        assetTokenMatches(
          key,
          { documentId: String(candidate.documentId), hash: String(candidate.hash), version: candidate.version ?? null },
          token,
        ),
    );
    if (!row) return null;
    const { linked, ...rest } = row;
    const file: StoredFile = { ...rest, id: Number(rest.id), documentId: String(rest.documentId), version: rest.version ?? null };
    return Number(linked) === 1 || (await embeddedInRichtext(file)) ? file : null;
  };

  return {
    /** The file an asset URL names, or null (wrong token or name, or no longer referenced). */
    async resolve(token: string, fileName: string): Promise<StoredFile | null> {
      if (!TOKEN.test(token) || fileName.length === 0 || fileName.length > MAX_NAME_LENGTH || CONTROL.test(fileName)) return null;
      return lookups.get(`${token}/${fileName}`, () => lookup(token, fileName));
    },

    /** Forgets resolved URLs whenever content is written (bootstrap). */
    watchContent(): void {
      const forget = async (event: { model?: { uid?: string } }) => {
        if (unrelatedToAssets(event.model?.uid ?? '')) return;
        lookups.invalidate();
        // A lookup made before the write commits reads the old state: forget again when it ends.
        if (!strapi.db.inTransaction()) return;
        const transactor = (await strapi.db.transaction()).get() as Transactor;
        transactor.executionPromise?.then(lookups.invalidate, lookups.invalidate);
      };
      // An object subscriber with write actions only: Strapi does not call it for reads.
      strapi.db.lifecycles.subscribe(Object.fromEntries(WRITES.map((action) => [action, forget])) as never);
    },
  };
};
