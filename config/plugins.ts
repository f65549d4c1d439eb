import type { Core } from '@strapi/strapi';
import { NATIVE_RESOURCES } from '../src/settings/native-resources';
import { UploadProviderError, resolveUploadProvider } from '../src/settings/upload-provider';

const installed = (name: string): boolean => {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
};

/** The upload plugin's provider (UPLOAD_PROVIDER): local by default, S3 when asked and installed. */
const upload = () => {
  try {
    return resolveUploadProvider(process.env, installed);
  } catch (error) {
    if (error instanceof UploadProviderError) {
      // One clear line, no stack: the operator fixes the environment (or installs the provider) and starts again.
      process.stderr.write(`Invalid upload settings: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
};

const config = ({ env }: Core.Config.Shared.ConfigParams) => ({
  ...(() => {
    const provider = upload();
    return provider ? { upload: provider } : {};
  })(),
  'public-api': {
    enabled: true,
    resolve: './src/plugins/public-api',
    config: {
      // The content types served at /api/v2/{slug} (docs/api.md, "Native resources"); none: only websites' collections.
      nativeResources: NATIVE_RESOURCES.map((resource) => ({ ...resource })),
      keySecret: env('PUBLIC_API_KEY_SECRET'),
      assetCacheDir: env('PUBLIC_API_ASSET_CACHE_DIR', '.tmp/asset-cache'),
      assetCacheMaxBytes: env.int('PUBLIC_API_ASSET_CACHE_MAX_BYTES', 512 * 1024 * 1024),
      uploadsInFlight: env.int('PUBLIC_API_UPLOADS_IN_FLIGHT', 8),
      uploadBytesInFlight: env.int('PUBLIC_API_UPLOAD_BYTES_IN_FLIGHT', 48 * 1024 * 1024),
      // Slow bodies (docs/api.md, "Limits"): how long a body may take to arrive, and the longest gap in it.
      jsonBodyTimeoutMs: env.int('PUBLIC_API_JSON_BODY_TIMEOUT_MS', 10000),
      multipartBodyTimeoutMs: env.int('PUBLIC_API_MULTIPART_BODY_TIMEOUT_MS', 120000),
      bodyGapTimeoutMs: env.int('PUBLIC_API_BODY_GAP_TIMEOUT_MS', 10000),
      // Load shedding (docs/api.md, "Limits"): keyed requests run at once, how many wait, and how long.
      requestsInFlight: env.int('PUBLIC_API_REQUESTS_IN_FLIGHT', 16),
      // Unset: half of the requests in flight.
      ...(env('PUBLIC_API_REQUESTS_PER_KEY') ? { requestsPerKey: env.int('PUBLIC_API_REQUESTS_PER_KEY') } : {}),
      expandedRecordsInFlight: env.int('PUBLIC_API_EXPANDED_RECORDS_IN_FLIGHT', 1000),
      requestsWaiting: env.int('PUBLIC_API_REQUESTS_WAITING', 64),
      requestWaitMs: env.int('PUBLIC_API_REQUEST_WAIT_MS', 2000),
      responseSendTimeoutMs: env.int('PUBLIC_API_RESPONSE_SEND_TIMEOUT_MS', 30000),
      keyShedDelayMs: env.int('PUBLIC_API_KEY_SHED_DELAY_MS', 1000),
      // The transform queue (docs/api.md, "Limits"); transforms in flight default to the CPU count.
      ...(env('PUBLIC_API_TRANSFORMS_IN_FLIGHT') ? { transformsInFlight: env.int('PUBLIC_API_TRANSFORMS_IN_FLIGHT') } : {}),
      cheapTransformsInFlight: env.int('PUBLIC_API_CHEAP_TRANSFORMS_IN_FLIGHT', 1),
      transformsWaiting: env.int('PUBLIC_API_TRANSFORMS_WAITING', 32),
      transformsPerClient: env.int('PUBLIC_API_TRANSFORMS_PER_CLIENT', 4),
      transformTimeoutMs: env.int('PUBLIC_API_TRANSFORM_TIMEOUT_MS', 10000),
      // Preset mode: a JSON object of names to transform parameters; unset, any transform is computed.
      transformPresets: (env.json('PUBLIC_API_TRANSFORM_PRESETS') as Record<string, string> | undefined) ?? null,
      // Files of a non-local upload provider (S3), read from its origin (docs/deployment.md, Uploads).
      assetOriginTimeoutMs: env.int('PUBLIC_API_ASSET_ORIGIN_TIMEOUT_MS', 10000),
      assetOriginMaxBytes: env.int('PUBLIC_API_ASSET_ORIGIN_MAX_BYTES', 1000000000),
      assetOriginFetchesInFlight: env.int('PUBLIC_API_ASSET_ORIGIN_FETCHES_IN_FLIGHT', 32),
      transformSourceMaxBytes: env.int('PUBLIC_API_TRANSFORM_SOURCE_MAX_BYTES', 128 * 1024 * 1024),
      rateLimit: {
        requests: env.int('PUBLIC_API_RATE_LIMIT_REQUESTS', 600),
        window: env.int('PUBLIC_API_RATE_LIMIT_WINDOW', 60),
      },
      unauthenticatedRateLimit: {
        requests: env.int('PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT_REQUESTS', 30),
        window: env.int('PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT_WINDOW', 60),
      },
      redisUrl: env('REDIS_URL', ''),
      rateLimitStore: env('PUBLIC_API_RATE_LIMIT_STORE', 'database'),
      rateLimitPrefix: env('PUBLIC_API_RATE_LIMIT_PREFIX', 'public-api'),
      // A busy key's requests are counted a lease of points at a time (docs/api.md, "Rate limits"); 0: each.
      rateLimitLeaseMs: env.int('PUBLIC_API_RATE_LIMIT_LEASE_MS', 50),
      // How long an atomic request's transaction may run before it rolls back whole (docs/api.md, "Atomic operations").
      atomicTimeLimitMs: env.int('PUBLIC_API_ATOMIC_TIME_LIMIT_MS', 10000),
      // Records read again with the same inputs are not made again (docs/api.md, "Performance notes"); 0: no cache.
      recordCacheChars: env.int('PUBLIC_API_RECORD_CACHE_CHARS', 4 * 1024 * 1024),
      // Webhooks (docs/api.md, "Webhooks"); unset settings keep the defaults of the plugin's config/webhooks.ts.
      // The development flag (plain http to a local receiver) is read there alone, for the server and the key
      // command alike.
      webhooks: {
        pollIntervalMs: env.int('PUBLIC_API_WEBHOOKS_POLL_INTERVAL_MS', 1000),
        timeoutMs: env.int('PUBLIC_API_WEBHOOKS_TIMEOUT_MS', 10000),
        sendsInFlight: env.int('PUBLIC_API_WEBHOOKS_SENDS_IN_FLIGHT', 16),
        queuePerEndpoint: env.int('PUBLIC_API_WEBHOOKS_QUEUE_PER_ENDPOINT', 1000),
        logPerEndpoint: env.int('PUBLIC_API_WEBHOOKS_LOG_PER_ENDPOINT', 1000),
        retry: {
          baseMs: env.int('PUBLIC_API_WEBHOOKS_RETRY_BASE_MS', 5000),
          capMs: env.int('PUBLIC_API_WEBHOOKS_RETRY_CAP_MS', 4 * 60 * 60 * 1000),
          windowMs: env.int('PUBLIC_API_WEBHOOKS_RETRY_WINDOW_MS', 24 * 60 * 60 * 1000),
        },
      },
      // Running several instances (docs/deployment.md): the metrics token, and the drain on SIGTERM.
      metricsToken: env('METRICS_TOKEN', ''),
      drainDelayMs: env.int('SHUTDOWN_DRAIN_DELAY_MS', 7000),
      shutdownTimeoutMs: env.int('SHUTDOWN_TIMEOUT_MS', 30000),
    },
  },
});

export default config;
