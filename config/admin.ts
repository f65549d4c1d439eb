import type { Core } from '@strapi/strapi';
import { requiredSecret } from '../src/settings/secrets';

const config = ({ env }: Core.Config.Shared.ConfigParams): Core.Config.Admin => ({
  auth: {
    secret: requiredSecret(env('ADMIN_JWT_SECRET'), 'ADMIN_JWT_SECRET'),
  },
  apiToken: {
    salt: requiredSecret(env('API_TOKEN_SALT'), 'API_TOKEN_SALT'),
  },
  transfer: {
    token: {
      salt: requiredSecret(env('TRANSFER_TOKEN_SALT'), 'TRANSFER_TOKEN_SALT'),
    },
  },
  secrets: {
    encryptionKey: requiredSecret(env('ENCRYPTION_KEY'), 'ENCRYPTION_KEY'),
  },
  // `npm run develop` rebuilds the public-api plugin when its sources change and restarts Strapi once the new
  // build is written (scripts/plugin.js): Strapi's own watcher leaves the plugin's folder alone, since a
  // restart before the rebuild ends would load the old build.
  watchIgnoreFiles: ['**/src/plugins/public-api/**'],
  // Tests and benchmarks boot the server without a built admin bundle.
  serveAdminPanel: env.bool('SERVE_ADMIN', true),
  flags: {
    nps: false,
    promoteEE: false,
  },
});

export default config;
