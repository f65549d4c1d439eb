import type { Core } from '@strapi/strapi';

const config = ({ env }: Core.Config.Shared.ConfigParams) => ({
  'public-api': {
    enabled: true,
    resolve: './src/plugins/public-api',
    config: {
      keySecret: env('PUBLIC_API_KEY_SECRET'),
      assetCacheDir: env('PUBLIC_API_ASSET_CACHE_DIR', '.tmp/asset-cache'),
      assetCacheMaxBytes: env.int('PUBLIC_API_ASSET_CACHE_MAX_BYTES', 512 * 1024 * 1024),
      // Load shedding (docs/api.md, "Limits"): keyed requests run at once, how many wait, and how long.
      requestsInFlight: env.int('PUBLIC_API_REQUESTS_IN_FLIGHT', 16),
      requestsWaiting: env.int('PUBLIC_API_REQUESTS_WAITING', 64),
      requestWaitMs: env.int('PUBLIC_API_REQUEST_WAIT_MS', 2000),
    },
  },
});

export default config;
