/**
 * Assets: which stored file an asset URL names (asset-lookup.ts: the file of that name whose token matches
 * and that content still references, kept for a few seconds), where its bytes are, and the transforms
 * and cache of its variants.
 *
 * Where the bytes are: a local provider's file is on this server's disk (`pathOf`); any other provider's
 * (S3 and the like: an absolute URL) is read from its origin (`originUrl`: the provider's signed URL
 * when it keeps files private, else the stored URL), at most `assetOriginFetchesInFlight` at once
 * (`originTurn`), copied to a temporary file when a transform needs it (`originSources`).
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { createFairQueue, type FairQueue } from '../assets/fair-queue';
import { createOriginSources, type OriginSources } from '../assets/origin-sources';
import { parseTransformPresets, type TransformPreset } from '../assets/presets';
import { CLIENT_TRANSFORM_COST, EXPENSIVE_TRANSFORM_COST } from '../assets/transform-cost';
import { createTransformPool, type TransformPool } from '../assets/transform-pool';
import { createSourceHeaders } from '../assets/transform';
import { createVariantCache, type VariantCache } from '../assets/variant-cache';
import type { OutputFormat } from '../assets/transform-query';
import type { AssetKey } from '../assets/token';
import { pluginConfig } from '../config';
import { getService } from '../utils/get-service';
import { createAssetLookup, type StoredFile } from './asset-lookup';

export { LOOKUP_TTL_MS, type StoredFile } from './asset-lookup';

/** What Strapi's upload plugin offers of its provider (services/file.js `signFileUrls` asks the same). */
type UploadProvider = {
  isPrivate?: () => unknown;
  getSignedUrl?: (file: Record<string, unknown>) => Promise<{ url?: unknown } | undefined>;
};

const ABSOLUTE_URL = /^https?:\/\//i;
const UPLOADS_PREFIX = '/uploads/';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let cache: { dir: string; maxBytes: number; cache: VariantCache<OutputFormat> } | null = null;
  let queue: FairQueue | null = null;
  let pool: TransformPool | null = null;
  let originFetches = 0;
  let sources: OriginSources | null = null;
  let presets: { configured: Record<string, string> | null; parsed: TransformPreset[] | null } | null = null;
  const sourceHeaders = createSourceHeaders();

  const assetKey = (): AssetKey => getService('derived-keys').current().asset;
  const lookup = createAssetLookup(strapi, assetKey);

  return {
    /** The file an asset URL names, or null (wrong token or name, or no longer referenced): asset-lookup.ts. */
    resolve: lookup.resolve,

    /** Forgets resolved URLs whenever content is written (bootstrap). */
    watchContent: lookup.watchContent,

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
