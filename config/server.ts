import type { Core } from '@strapi/strapi';
import { requiredList } from '../src/settings/secrets';

const config = ({ env }: Core.Config.Shared.ConfigParams): Core.Config.Server => ({
  host: env('HOST', '0.0.0.0'),
  port: env.int('PORT', 1337),
  url: env('PUBLIC_URL', ''),
  // Static files and, under uploads/, what the local upload provider stores. With several instances, a
  // directory every instance sees (a shared volume): docs/deployment.md, Uploads.
  dirs: { public: env('PUBLIC_DIR', './public') },
  // Strapi 5 reads Koa's proxy trust from server.proxy.koa (a bare boolean here is ignored). Behind a
  // trusted proxy the client address (ctx.ip: per-address rate limits) is the X-Forwarded-For entry that the
  // nearest PROXY_HOPS proxies appended, never one the client wrote itself.
  proxy: { koa: env.bool('IS_PROXIED', false), maxIpsCount: env.int('PROXY_HOPS', 1) },
  // Node's own limits on receiving a request, before any middleware runs (docs/api.md, "Limits"). Strapi
  // leaves Node's defaults (headers within 60 s, checked only every 30 s; the whole request within 300 s).
  // Headers arrive in one packet from any real client: 20 s, checked every 5 s, ends connections that
  // trickle them (slowloris) sooner; Node answers 408 and closes. The whole request stays at 300 s, above
  // the API's own body limits (PUBLIC_API_MULTIPART_BODY_TIMEOUT_MS, 120 s), which answer first and in
  // JSON:API.
  http: {
    serverOptions: {
      headersTimeout: env.int('SERVER_HEADERS_TIMEOUT_MS', 20_000),
      requestTimeout: env.int('SERVER_REQUEST_TIMEOUT_MS', 300_000),
      connectionsCheckingInterval: env.int('SERVER_CONNECTIONS_CHECKING_INTERVAL_MS', 5_000),
    },
  },
  app: {
    keys: requiredList(env.array('APP_KEYS'), 'APP_KEYS'),
  },
});

export default config;
