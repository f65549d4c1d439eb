/**
 * Where links point (`{base_url}`), and what the request target is (issue 13, defect 9). Pure.
 *
 * Links name this server, so they come from PUBLIC_URL (`server.url`) when it is configured, and nothing
 * the client sends changes them. Without it they come from the request: the Host header (X-Forwarded-Host
 * and -Proto when Strapi trusts a proxy), or, for a request target in absolute form
 * (`GET http://host/api/v2/events HTTP/1.1`), the target's own authority, since RFC 9112 section 3.2.2
 * tells a server to ignore Host then. Either is client text: it must be a plain host[:port] (RFC 3986,
 * without user information), else the request is 400 on that header, and nothing else of it ever
 * reaches a link. The path of a link is the target's path and query, never the absolute form as sent.
 */
import { createLru } from '../utils/lru';
import { apiError } from './errors';

/** A request target split into what links need. */
export type RequestTarget = {
  /** `host[:port]` of an absolute-form target (RFC 9112 3.2.2), as sent; null for origin form. */
  authority: string | null;
  /** Path and query as sent, starting with `/`. */
  pathAndQuery: string;
};

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)(.*)$/;

export const requestTarget = (raw: string): RequestTarget => {
  const absolute = ABSOLUTE_FORM.exec(raw);
  if (!absolute) return { authority: null, pathAndQuery: raw };
  const rest = absolute[2]!;
  return { authority: absolute[1]!, pathAndQuery: rest.startsWith('/') ? rest : `/${rest}` };
};

// A registered name of letters, digits and `-._~`, an IPv4 address (a registered name as far as the
// pattern goes), or a bracketed IPv6 literal; then an optional port. No user information, no path.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::(\d{1,5}))?$/;

/**
 * `scheme://host[:port]` for a host the client sent, or null when it is not a well-formed host[:port].
 * Normalized as the URL standard does: lower-case, the scheme's default port left out.
 */
export const originOf = (protocol: 'http' | 'https', host: string): string | null => {
  // Clients name the same few hosts: each is parsed once (WHATWG URL parsing was 1.2% of a page's CPU).
  const key = `${protocol}://${host}`;
  const known = origins.get(key);
  if (known !== undefined) return known;
  const origin = parseOrigin(protocol, host);
  if (key.length <= 300) origins.set(key, origin);
  return origin;
};

/** The origins of the hosts last seen; bounded whatever Host headers clients send. */
const origins = createLru<string, string | null>(1_000);

const parseOrigin = (protocol: 'http' | 'https', host: string): string | null => {
  const match = HOST.exec(host);
  if (!match || (match[1] !== undefined && Number(match[1]) > 65535)) return null;
  try {
    const url = new URL(`${protocol}://${host}`);
    return url.hostname === '' ? null : url.origin;
  } catch {
    return null;
  }
};

/** PUBLIC_URL without its trailing slashes when it is an http(s) URL; null when unset or not one. */
export const configuredOrigin = (configured: unknown): string | null => {
  if (typeof configured !== 'string' || !/^https?:\/\/[^/]/i.test(configured)) return null;
  try {
    new URL(configured);
  } catch {
    return null;
  }
  return configured.replace(/\/+$/, '');
};

export type LinkSource = {
  /** `server.url` (PUBLIC_URL). */
  configured: unknown;
  /** The scheme the request came in with (X-Forwarded-Proto behind a trusted proxy). */
  protocol: string;
  /** The host the client named, and the header it came from (for the error's `source.header`). */
  host: { value: string; header: string };
  target: RequestTarget;
};

/** The origin links start with (scheme, host, port, and any path PUBLIC_URL has). Throws 400 for a malformed host. */
export const linkOrigin = (source: LinkSource): string => {
  const configured = configuredOrigin(source.configured);
  if (configured) return configured;
  const protocol = source.protocol.toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') {
    throw apiError(400, 'The forwarded protocol is neither http nor https.', {
      source: { header: 'X-Forwarded-Proto' },
      reason: 'host_invalid',
    });
  }
  // An absolute-form target names the host itself; Host is then ignored (RFC 9112 3.2.2).
  const host = source.target.authority ?? source.host.value;
  const origin = originOf(protocol, host);
  if (!origin) {
    // The request line has no JSON:API source member; the detail names it.
    if (source.target.authority !== null) {
      throw apiError(400, 'The absolute-form request target must name this server as host[:port].', { reason: 'host_invalid' });
    }
    throw apiError(400, `The ${source.host.header} header must name this server as host[:port].`, {
      source: { header: source.host.header },
      reason: 'host_invalid',
    });
  }
  return origin;
};

/** What a Koa context tells about links (`ctx` fits it). */
export type LinkRequest = {
  originalUrl: string;
  protocol: string;
  app: { proxy: boolean };
  get: (header: string) => string;
};

/** The origin links start with, and the target whose path and query `links.self` repeats. Throws 400 as linkOrigin. */
export const requestLinks = (configured: unknown, ctx: LinkRequest): { origin: string; target: RequestTarget } => {
  const target = requestTarget(ctx.originalUrl);
  // The header as sent, not Koa's `ctx.host`, which drops user information and keeps the first of a
  // list: `user@evil.example` and `a, b` are malformed, not hosts to guess from. Behind a trusted proxy,
  // X-Forwarded-Host is a list by design (one entry per proxy): the first is the client's.
  const forwarded = ctx.app.proxy ? ctx.get('X-Forwarded-Host') : '';
  const host = forwarded
    ? { value: forwarded.split(',')[0]!.trim(), header: 'X-Forwarded-Host' }
    : { value: ctx.get('Host'), header: 'Host' };
  return { origin: linkOrigin({ configured, protocol: ctx.protocol, host, target }), target };
};
