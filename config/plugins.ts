import type { Core } from '@strapi/strapi';

const config = ({ env }: Core.Config.Shared.ConfigParams) => ({
  'public-api': {
    enabled: true,
    resolve: './src/plugins/public-api',
    config: {
      keySecret: env('PUBLIC_API_KEY_SECRET'),
      assetCacheDir: env('PUBLIC_API_ASSET_CACHE_DIR', '.tmp/asset-cache'),
      assetCacheMaxBytes: env.int('PUBLIC_API_ASSET_CACHE_MAX_BYTES', 512 * 1024 * 1024),
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
    },
  },
});

export default config;
