import type { Core } from '@strapi/strapi';
import { requiredList } from '../src/settings/secrets';

const config = ({ env }: Core.Config.Shared.ConfigParams): Core.Config.Server => ({
  host: env('HOST', '0.0.0.0'),
  port: env.int('PORT', 1337),
  url: env('PUBLIC_URL', ''),
  // Strapi 5 reads Koa's trust of X-Forwarded-* from `proxy.koa` (a bare boolean here was ignored).
  proxy: { koa: env.bool('IS_PROXIED', false) },
  app: {
    keys: requiredList(env.array('APP_KEYS'), 'APP_KEYS'),
  },
});

export default config;
