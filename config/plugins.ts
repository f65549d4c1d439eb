import type { Core } from '@strapi/strapi';

const config = ({ env }: Core.Config.Shared.ConfigParams) => ({
  'public-api': {
    enabled: true,
    resolve: './src/plugins/public-api',
    config: {
      keySecret: env('PUBLIC_API_KEY_SECRET'),
      assetCacheDir: env('PUBLIC_API_ASSET_CACHE_DIR', '.tmp/asset-cache'),
      assetCacheMaxBytes: env.int('PUBLIC_API_ASSET_CACHE_MAX_BYTES', 512 * 1024 * 1024),
    },
  },
});

export default config;
