/**
 * Assets: which stored file an asset URL names, where its bytes are, and the cache of its variants.
 *
 * A URL names a file when its token is the file's token (compared in constant time) and its file name is
 * the file's name, and the file is still referenced from content: linked from a media field of a
 * published record (or of a record of a type without draft & publish, or of a component), or embedded as
 * an image in a published richtext field. Otherwise there is no asset at that URL.
 *
 * What a URL names is kept for a few seconds (assets/lookup-cache): every write to content in this
 * process forgets it at once, after the write's transaction ends too; another instance's write is seen
 * here within `LOOKUP_TTL_MS`. Answers are cacheable for a year anyway, so a client may keep an
 * unpublished file's bytes far longer than that.
 *
 * Where the bytes are: a local provider's file is on this server's disk (`pathOf`); any other provider's
 * (S3 and the like: an absolute URL) is read from its origin (`originUrl`: the provider's signed URL
 * when it keeps files private, else the stored URL), at most `assetOriginFetchesInFlight` at once
 * (`originTurn`), copied to a temporary file when a transform needs it (`originSources`).
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { FILE_VERSIONS_TABLE } from '../content-types/file-version';
import { createFairQueue, type FairQueue } from '../assets/fair-queue';
import { createLookupCache } from '../assets/lookup-cache';
import { createOriginSources, type OriginSources } from '../assets/origin-sources';
import { parseTransformPresets, type TransformPreset } from '../assets/presets';
import { CLIENT_TRANSFORM_COST, EXPENSIVE_TRANSFORM_COST } from '../assets/transform-cost';
import { createTransformPool, type TransformPool } from '../assets/transform-pool';
import { createSourceHeaders } from '../assets/transform';
import { createVariantCache, type VariantCache } from '../assets/variant-cache';
import type { OutputFormat } from '../assets/transform-query';
import { pluginConfig } from '../config';
import { readConnectionOf } from '../database/sqlite-reader';
import { ASSET_TOKEN_LENGTH, assetTokenMatches, type AssetKey } from '../assets/token';
import { databaseClient } from '../database/connection';
import { rawRows } from '../database/raw-result';
import { escapeLike, LIKE_ESCAPE } from '../read/sql';
import { getService } from '../utils/get-service';

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

/** What Strapi's upload plugin offers of its provider (services/file.js `signFileUrls` asks the same). */
type UploadProvider = {
  isPrivate?: () => unknown;
  getSignedUrl?: (file: Record<string, unknown>) => Promise<{ url?: unknown } | undefined>;
};

const ABSOLUTE_URL = /^https?:\/\//i;

const TOKEN = new RegExp(`^[A-Za-z0-9_-]{${ASSET_TOKEN_LENGTH}}$`);
/** Strapi keeps file names in a 255-character column; a longer name names nothing. */
const MAX_NAME_LENGTH = 255;
// Control characters never occur in a stored name; NUL would even be refused by PostgreSQL.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

const MEDIA_TABLE = 'files_related_mph';
const UPLOADS_PREFIX = '/uploads/';

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

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Asset lookups are reads: on SQLite's read-only connection outside a transaction (database/sqlite-reader.ts).
  const knex = (): Knex => readConnectionOf(strapi);
  let tables: ContentTables | null = null;
  let cache: { dir: string; maxBytes: number; cache: VariantCache<OutputFormat> } | null = null;
  let queue: FairQueue | null = null;
  let pool: TransformPool | null = null;
  let originFetches = 0;
  let sources: OriginSources | null = null;
  let presets: { configured: Record<string, string> | null; parsed: TransformPreset[] | null } | null = null;
  const sourceHeaders = createSourceHeaders();
  const lookups = createLookupCache<StoredFile>({ ttlMs: LOOKUP_TTL_MS, maxEntries: LOOKUP_MAX_ENTRIES });

  const assetKey = (): AssetKey => getService('derived-keys').current().asset;

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

    /** The absolute path of a file's bytes on this server (local provider), or null. */
    pathOf(file: Pick<StoredFile, 'provider' | 'url'>): string | null {
      if (file.provider !== 'local' || !file.url.startsWith(UPLOADS_PREFIX)) return null;
      const uploads = path.join(strapi.dirs.static.public, 'uploads');
      const resolved = path.resolve(uploads, file.url.slice(UPLOADS_PREFIX.length));
      // Names come from the database, not the URL; still, nothing outside the uploads folder is served.
      return resolved.startsWith(`${uploads}${path.sep}`) ? resolved : null;
    },

    /** Whether a file's bytes are on its provider's origin (not local, and an absolute URL). */
    isRemote(file: Pick<StoredFile, 'provider' | 'url'>): boolean {
      return file.provider !== 'local' && ABSOLUTE_URL.test(file.url);
    },

    /**
     * The URL the origin serves a remote file's bytes at: the provider's signed URL when the file is the
     * configured provider's and it keeps files private (as Strapi's own `signFileUrls`), else the stored
     * URL. Called for each read: a signed URL is short-lived.
     */
    async originUrl(file: StoredFile): Promise<string> {
      const configured = (strapi.config.get('plugin::upload') as { provider?: string } | undefined)?.provider;
      const provider = (strapi.plugin('upload') as unknown as { provider?: UploadProvider } | undefined)?.provider;
      if (!provider?.getSignedUrl || file.provider !== configured || !(await provider.isPrivate?.())) return file.url;
      let metadata: unknown = file.providerMetadata ?? null;
      if (typeof metadata === 'string') {
        try {
          metadata = JSON.parse(metadata) as unknown;
        } catch {
          metadata = null;
        }
      }
      const signed = await provider.getSignedUrl({
        name: file.name,
        hash: file.hash,
        ext: file.ext ?? undefined,
        mime: file.mime,
        url: file.url,
        provider: file.provider,
        provider_metadata: metadata,
      });
      if (typeof signed?.url !== 'string') throw new Error(`The upload provider ${file.provider} gave no signed URL.`);
      return signed.url;
    },

    /** A turn to read from an origin, or null when `assetOriginFetchesInFlight` are running; release it once. */
    originTurn(): (() => void) | null {
      if (originFetches >= pluginConfig(strapi).assetOriginFetchesInFlight) return null;
      originFetches += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        originFetches -= 1;
      };
    },

    /** Reads from origins running now. */
    originFetches(): number {
      return originFetches;
    },

    /** Temporary copies of remote originals, for transforms. */
    originSources(): OriginSources {
      sources ??= createOriginSources({ warn: (message) => strapi.log.warn(`[public-api] asset sources: ${message}`) });
      return sources;
    },

    /** Deletes the temporary copies of remote originals (shutdown). */
    async closeOrigins(): Promise<void> {
      await sources?.close();
    },

    /** Kills the transform processes (shutdown). */
    async closeTransforms(): Promise<void> {
      await pool?.close();
      pool = null;
    },

    /** Waits until every variant computed so far is written (shutdown). */
    async settled(): Promise<void> {
      await cache?.cache.settled();
    },

    /**
     * The transform queue (contract section 13): transforms in flight, fair between client classes,
     * bounded in all and per client, each client within a share of cost, expensive transforms on all
     * general turns but one, each waiting no longer than its time limit, with a lane of turns that only
     * cheap transforms take.
     */
    transforms(): FairQueue {
      if (queue) return queue;
      const config = pluginConfig(strapi);
      queue = createFairQueue({
        running: config.transformsInFlight,
        cheap: config.cheapTransformsInFlight,
        waiting: config.transformsWaiting,
        perClient: config.transformsPerClient,
        maxWaitMs: config.transformTimeoutMs,
        clientCost: CLIENT_TRANSFORM_COST,
        expensiveCost: EXPENSIVE_TRANSFORM_COST,
        expensiveTurns: Math.max(1, config.transformsInFlight - 1),
      });
      return queue;
    },

    /**
     * The processes transforms run in, one per turn of the queue (general and cheap), each killed when
     * its transform passes its time limit (assets/transform-pool.ts). libvips threads per process: the
     * cores shared by the transforms that run at once, at least one.
     */
    transformPool(): TransformPool {
      if (pool) return pool;
      const config = pluginConfig(strapi);
      pool = createTransformPool({
        size: config.transformsInFlight + config.cheapTransformsInFlight,
        threads: Math.max(1, Math.floor(availableParallelism() / config.transformsInFlight)),
        warn: (message) => strapi.log.warn(`[public-api] transforms: ${message}`),
      });
      return pool;
    },

    /** What the headers of transformed sources said, by content identity (assets/transform.ts). */
    sourceHeaders() {
      return sourceHeaders;
    },

    /** Preset mode's transform sets, or null when any transform is computed. Throws on a bad preset (startup). */
    presets(): TransformPreset[] | null {
      const configured = pluginConfig(strapi).transformPresets ?? null;
      if (!presets || presets.configured !== configured) {
        presets = { configured, parsed: configured ? parseTransformPresets(configured) : null };
      }
      return presets.parsed;
    },

    variants(): VariantCache<OutputFormat> {
      const config = pluginConfig(strapi);
      const dir = path.resolve(strapi.dirs.app.root, config.assetCacheDir);
      if (!cache || cache.dir !== dir || cache.maxBytes !== config.assetCacheMaxBytes) {
        cache = {
          dir,
          maxBytes: config.assetCacheMaxBytes,
          cache: createVariantCache<OutputFormat>({
            dir,
            maxBytes: config.assetCacheMaxBytes,
            warn: (message) => strapi.log.warn(`[public-api] asset cache: ${message}`),
          }),
        };
      }
      return cache.cache;
    },
  };
};
