// `plugin::public-api.api-v2` serves everything under /api/v2 and answers it completely: it sits
// before Strapi's cors, query and body middlewares because the Public Data API has its own rules for
// each (per-key origins, bracketed filter parameters, 1 MiB bodies with JSON:API errors), and before
// `strapi::security`, which builds a new helmet instance on every request: /api/v2 sets the same
// headers, taken once from that middleware with its configuration here (middlewares/security-headers.ts).
// `plugin::public-api.operations` comes first and replaces `strapi::logger`: the request id, one log line per
// request with its route, key and request id, the metrics, and the health and metrics endpoints
// (docs/deployment.md).
export default [
  'plugin::public-api.operations',
  'strapi::errors',
  'plugin::public-api.api-v2',
  'strapi::security',
  'strapi::cors',
  'strapi::poweredBy',
  'strapi::query',
  'strapi::body',
  'strapi::session',
  'strapi::favicon',
  'strapi::public',
];
