// `plugin::public-api.api-v2` serves everything under /api/v2 and answers it completely: it sits
// before Strapi's cors, query and body middlewares because the Public Data API has its own rules for
// each (per-key origins, bracketed filter parameters, 1 MiB bodies with JSON:API errors), and before
// `strapi::security`, which builds a new helmet instance on every request: /api/v2 sets the same
// headers, taken once from that middleware with its configuration here (middlewares/security-headers.ts).
// `plugin::public-api.operations` comes first and replaces `strapi::logger`: the request id, one log line per
// request with its route, key and request id, the metrics, and the health and metrics endpoints
// (docs/deployment.md).
// `strapi::session` (koa-session) is left out: nothing in this application reads `ctx.session` (the admin
// keeps its sessions in its own table and sends its own cookies; users-permissions is not installed), and
// Strapi mounts it ahead of every other middleware, so every request, /api/v2 included, paid for a session
// it never used (2.5% of the CPU of a page of ten records). Add it back, at any place in this list, with a
// plugin that reads `ctx.session` (users-permissions' OAuth providers do).
export default [
  'plugin::public-api.operations',
  'strapi::errors',
  'plugin::public-api.api-v2',
  'strapi::security',
  'strapi::cors',
  'strapi::poweredBy',
  'strapi::query',
  'strapi::body',
  'strapi::favicon',
  'strapi::public',
];
