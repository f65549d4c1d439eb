/**
 * The security headers (helmet's) that Strapi's `strapi::security` middleware gives a response, computed
 * once instead of on every request.
 *
 * /api/v2 sits before `strapi::security` in config/middlewares.ts because that middleware builds a new
 * helmet instance on every request (a lodash `defaultsDeep` of its configuration, then `helmet(config)`,
 * then a promise around it): a cost every /api/v2 request paid for headers that, outside /documentation
 * and the admin's paths, are the same on every request. They are taken here from the very middleware
 * Strapi registered, with the application's own configuration of it, by running it once against a
 * recording response; /api/v2 then sets them as they are (a handler may still set its own, e.g. the
 * stricter Content-Security-Policy of assets).
 */
import type { Core } from '@strapi/strapi';

type MiddlewareEntry = string | { name?: string; config?: unknown };
type Handler = (ctx: unknown, next: () => Promise<void>) => unknown;
type Factory = (config: unknown, context: { strapi: Core.Strapi }) => Handler;

const SECURITY = 'strapi::security';

/** The configuration the application gives `strapi::security` (config/middlewares.ts), or none. */
const securityConfig = (strapi: Core.Strapi): unknown => {
  const entries = strapi.config.get('middlewares', []) as MiddlewareEntry[];
  const entry = entries.find((item) => (typeof item === 'string' ? item : item.name) === SECURITY);
  return typeof entry === 'object' ? (entry.config ?? {}) : {};
};

/** The headers `strapi::security` sets on a GET of `path`, by name as helmet writes them. */
export const captureSecurityHeaders = async (strapi: Core.Strapi, path: string): Promise<Record<string, string>> => {
  const factory = strapi.middleware(SECURITY) as unknown as Factory | undefined;
  if (typeof factory !== 'function') return {};
  const headers = new Map<string, { name: string; value: string }>();
  const res = {
    setHeader: (name: string, value: unknown) => {
      headers.set(name.toLowerCase(), { name, value: Array.isArray(value) ? value.join(', ') : String(value) });
    },
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    getHeader: (name: string) => headers.get(name.toLowerCase())?.value,
    hasHeader: (name: string) => headers.has(name.toLowerCase()),
  };
  const req = { method: 'GET', url: path, headers: {} };
  await factory(securityConfig(strapi), { strapi })({ method: 'GET', path, url: path, req, res }, async () => {});
  return Object.fromEntries([...headers.values()].map(({ name, value }) => [name, value]));
};
