/**
 * Browser origin rules of a key (contract section 4). Pure.
 *
 * A rule is an exact origin (`https://shop.example`, optionally with a port) or a wildcard over
 * subdomains (`https://*.example`), which matches any origin one or more labels below `example`
 * but not `example` itself.
 */
const HOST_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = `${HOST_LABEL}(?:\\.${HOST_LABEL})*`;
const ORIGIN_RULE = new RegExp(`^https?://(?:\\*\\.)?${HOST}(?::\\d{1,5})?$`);

export const ORIGIN_RULE_MESSAGE = "An origin is scheme://host[:port] without a path, like 'https://shop.example' or 'https://*.example'.";

export const normalizeOriginRule = (rule: string): string => rule.trim().toLowerCase().replace(/\/$/, '');

export const isValidOriginRule = (rule: string): boolean => {
  const normalized = normalizeOriginRule(rule);
  if (!ORIGIN_RULE.test(normalized)) return false;
  const port = normalized.match(/:(\d+)$/)?.[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
};

/**
 * The serialized origin (RFC 6454 section 6.2) a request's Origin header is, lower-cased, or null when the
 * header is anything else: a path, a query, a fragment, userinfo, a trailing slash, a default port written
 * out, `null`, another scheme. Browsers send exactly this form; only it is ever matched or echoed (issue 33:
 * `https://shop.example/path` matched the rule `https://shop.example` and was echoed as it came).
 */
export const normalizeRequestOrigin = (origin: string): string | null => {
  const lower = origin.toLowerCase();
  if (!/^https?:\/\/[^/?#@\\]+$/.test(lower)) return null;
  try {
    // The URL parser's own serialization must give back exactly what was sent: it drops tabs and line
    // breaks, a default port and leading zeros of a port, and turns non-ASCII hosts into punycode.
    return new URL(lower).origin === lower ? lower : null;
  } catch {
    return null;
  }
};

export const originAllowed = (rules: readonly string[], requestOrigin: string): boolean => {
  const origin = normalizeRequestOrigin(requestOrigin);
  if (!origin) return false;
  return rules.some((raw) => {
    const rule = normalizeOriginRule(raw);
    if (!rule.includes('*')) return rule === origin;
    const [scheme, rest] = rule.split('://*.');
    if (!scheme || !rest) return false;
    const prefix = `${scheme}://`;
    if (!origin.startsWith(prefix)) return false;
    const hostAndPort = origin.slice(prefix.length);
    return hostAndPort.endsWith(`.${rest}`) && hostAndPort.length > rest.length + 1;
  });
};
