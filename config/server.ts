import type { Core } from '@strapi/strapi';
import { requiredList } from '../src/settings/secrets';

const config = ({ env }: Core.Config.Shared.ConfigParams): Core.Config.Server => ({
  host: env('HOST', '0.0.0.0'),
  port: env.int('PORT', 1337),
  url: env('PUBLIC_URL', ''),
  // Strapi 5 reads Koa's proxy trust from server.proxy.koa (a bare boolean here is ignored). Behind a
  // trusted proxy the client address (ctx.ip: per-address rate limits) is the X-Forwarded-For entry that the
  // nearest PROXY_HOPS proxies appended, never one the client wrote itself.
  proxy: { koa: env.bool('IS_PROXIED', false), maxIpsCount: env.int('PROXY_HOPS', 1) },
  app: {
    keys: requiredList(env.array('APP_KEYS'), 'APP_KEYS'),
  },
});

export default config;
