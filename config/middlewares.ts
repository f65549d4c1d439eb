// `plugin::public-api.api-v2` serves everything under /api/v2 and answers it completely: it sits
// before Strapi's cors, query and body middlewares because the Public Data API has its own rules for
// each (per-key origins, bracketed filter parameters, 1 MiB bodies with JSON:API errors).
export default [
  'strapi::logger',
  'strapi::errors',
  'strapi::security',
  'plugin::public-api.api-v2',
  'strapi::cors',
  'strapi::poweredBy',
  'strapi::query',
  'strapi::body',
  'strapi::session',
  'strapi::favicon',
  'strapi::public',
];
