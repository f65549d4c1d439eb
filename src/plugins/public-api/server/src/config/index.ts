/**
 * The plugin's configuration: its settings with their defaults and bounds (settings.ts), checked when
 * Strapi loads them (validate.ts), and read by the plugin through `pluginConfig`.
 */
import type { Core } from '@strapi/strapi';
import { DEFAULT_KEY_RATE_LIMIT, DEFAULT_UNAUTHENTICATED_RATE_LIMIT } from './rate-limits';
import { OPERATIONS_DEFAULTS } from './operator';
import {
  DEFAULT_ASSET_CACHE_MAX_BYTES,
  DEFAULT_ASSET_ORIGIN_FETCHES_IN_FLIGHT,
  DEFAULT_ASSET_ORIGIN_MAX_BYTES,
  DEFAULT_ASSET_ORIGIN_TIMEOUT_MS,
  DEFAULT_ATOMIC_TIME_LIMIT_MS,
  DEFAULT_BODY_GAP_TIMEOUT_MS,
  DEFAULT_CHEAP_TRANSFORMS_IN_FLIGHT,
  DEFAULT_EXPANDED_RECORDS_IN_FLIGHT,
  DEFAULT_JSON_BODY_TIMEOUT_MS,
  DEFAULT_KEY_SHED_DELAY_MS,
  DEFAULT_MULTIPART_BODY_TIMEOUT_MS,
  DEFAULT_RATE_LIMIT_LEASE_MS,
  DEFAULT_RECORD_CACHE_CHARS,
  DEFAULT_REQUESTS_IN_FLIGHT,
  DEFAULT_REQUESTS_WAITING,
  DEFAULT_REQUEST_WAIT_MS,
  DEFAULT_RESPONSE_SEND_TIMEOUT_MS,
  DEFAULT_TRANSFORMS_IN_FLIGHT,
  DEFAULT_TRANSFORMS_PER_CLIENT,
  DEFAULT_TRANSFORMS_WAITING,
  DEFAULT_TRANSFORM_SOURCE_MAX_BYTES,
  DEFAULT_TRANSFORM_TIMEOUT_MS,
  DEFAULT_UPLOADS_IN_FLIGHT,
  DEFAULT_UPLOAD_BYTES_IN_FLIGHT,
  PLUGIN_ID,
  type PluginConfig,
} from './settings';
import { validatePluginConfig } from './validate';

export * from './settings';

/**
 * The plugin's configuration object of an application, looked up once (Strapi's config store walks a
 * path at each `get`: 1.4% of a ten-record page's CPU, several reads a request). The very object is kept,
 * so a change made to it in place is seen; the store itself is never given a new one after start.
 */
const configs = new WeakMap<Core.Strapi, PluginConfig>();

export const pluginConfig = (strapi: Core.Strapi): PluginConfig => {
  let config = configs.get(strapi);
  if (!config) {
    config = strapi.config.get(`plugin::${PLUGIN_ID}`) as PluginConfig;
    // Not kept before Strapi has loaded it (a lookup before then finds nothing).
    if (config) configs.set(strapi, config);
  }
  return config;
};

export default {
  default: {
    // None unless the application lists them: the plugin knows no content type of its own accord.
    nativeResources: [],
    keySecret: '',
    assetCacheDir: '.tmp/asset-cache',
    assetCacheMaxBytes: DEFAULT_ASSET_CACHE_MAX_BYTES,
    uploadsInFlight: DEFAULT_UPLOADS_IN_FLIGHT,
    uploadBytesInFlight: DEFAULT_UPLOAD_BYTES_IN_FLIGHT,
    jsonBodyTimeoutMs: DEFAULT_JSON_BODY_TIMEOUT_MS,
    multipartBodyTimeoutMs: DEFAULT_MULTIPART_BODY_TIMEOUT_MS,
    bodyGapTimeoutMs: DEFAULT_BODY_GAP_TIMEOUT_MS,
    requestsInFlight: DEFAULT_REQUESTS_IN_FLIGHT,
    expandedRecordsInFlight: DEFAULT_EXPANDED_RECORDS_IN_FLIGHT,
    requestsWaiting: DEFAULT_REQUESTS_WAITING,
    requestWaitMs: DEFAULT_REQUEST_WAIT_MS,
    responseSendTimeoutMs: DEFAULT_RESPONSE_SEND_TIMEOUT_MS,
    keyShedDelayMs: DEFAULT_KEY_SHED_DELAY_MS,
    transformsInFlight: DEFAULT_TRANSFORMS_IN_FLIGHT,
    cheapTransformsInFlight: DEFAULT_CHEAP_TRANSFORMS_IN_FLIGHT,
    transformsWaiting: DEFAULT_TRANSFORMS_WAITING,
    transformsPerClient: DEFAULT_TRANSFORMS_PER_CLIENT,
    transformTimeoutMs: DEFAULT_TRANSFORM_TIMEOUT_MS,
    transformPresets: null,
    assetOriginTimeoutMs: DEFAULT_ASSET_ORIGIN_TIMEOUT_MS,
    assetOriginMaxBytes: DEFAULT_ASSET_ORIGIN_MAX_BYTES,
    assetOriginFetchesInFlight: DEFAULT_ASSET_ORIGIN_FETCHES_IN_FLIGHT,
    transformSourceMaxBytes: DEFAULT_TRANSFORM_SOURCE_MAX_BYTES,
    rateLimit: DEFAULT_KEY_RATE_LIMIT,
    unauthenticatedRateLimit: DEFAULT_UNAUTHENTICATED_RATE_LIMIT,
    redisUrl: '',
    rateLimitStore: 'database',
    rateLimitPrefix: 'public-api',
    rateLimitLeaseMs: DEFAULT_RATE_LIMIT_LEASE_MS,
    atomicTimeLimitMs: DEFAULT_ATOMIC_TIME_LIMIT_MS,
    recordCacheChars: DEFAULT_RECORD_CACHE_CHARS,
    ...OPERATIONS_DEFAULTS,
  } satisfies PluginConfig,
  validator(config: Partial<PluginConfig>) {
    validatePluginConfig(config);
  },
};
