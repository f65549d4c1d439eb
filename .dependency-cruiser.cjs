/**
 * The direction of dependencies, checked in CI (`npm run lint:deps`); docs/architecture.md draws it.
 *
 * The public-api plugin's server is in layers, and an import points down only:
 *
 *   edge -> handlers -> writes -> access -> data -> codecs, and every layer -> kernel
 *
 * - edge: what Strapi calls (plugin entry and lifecycle, routes, the api-v2 middleware, the admin
 *   panel's controllers, the services registry, the slug document middleware).
 * - handlers: one module per /api/v2 endpoint (handlers/*.ts) and the parts they share (handlers/shared/).
 * - writes: the write-operation processor (writes/), transport-free: one add, update or remove in the
 *   request's transaction, for the single writes and atomic operations alike. It speaks no HTTP.
 * - access: what a key may see and what is shown to it: the access, OpenAPI and read-caches services, the OpenAPI
 *   builder, the serializers, and the read path that assembles records (read/load.ts, read/load-context.ts,
 *   read/include-reaches.ts).
 * - data: the database, Strapi's document service and the file system: the plugin's other services,
 *   read/, database/, the command store, asset files and caches, the commands themselves.
 * - codecs: pure functions and types (no Strapi, no database): grants, query, write bodies, values, webhooks,
 *   registry, keys, HTTP, idempotency, field types, richtext's two formats and their conversions, the OpenAPI
 *   object types (openapi/types.ts), the row types that reads return and serializers take (serialize/rows.ts).
 * - kernel: config/ and utils/ (getService), which any layer may use.
 *
 * The plugin is a package of its own (src/plugins/public-api, packed by `npm run plugin:pack`): nothing in its
 * folder imports a file outside it. Beside the layers: the plugin's shared/ contracts are imported by its server and its admin, which do
 * not import each other; the application's own code (src/domain, src/api, src/seed, src/settings,
 * config/) does not reach into the plugin, its commands and register() (src/commands, src/index.ts) only
 * for the types of the plugin's public module, and nothing in src/ imports scripts, benchmarks or tests.
 */
const SERVER = '^src/plugins/public-api/server/src/';

const EDGE = [
  `${SERVER}(index|register|bootstrap|destroy|rbac)\\.ts$`,
  `${SERVER}(routes|middlewares|controllers)/`,
  `${SERVER}services/index\\.ts$`,
  `${SERVER}slugs/middleware\\.ts$`,
];
const HANDLERS = [`${SERVER}handlers/`];
const WRITES = [`${SERVER}writes/`];
const ACCESS = [
  `${SERVER}services/(access|grants|openapi|read-caches)\\.ts$`,
  `${SERVER}openapi/(?!types\\.ts$)`,
  `${SERVER}serialize/(?!rows\\.ts$)`,
  `${SERVER}read/(load|load-context|include-reaches)\\.ts$`,
];
const DATA = [
  `${SERVER}services/(?!(access|grants|openapi|read-caches|index)\\.ts$)`,
  `${SERVER}(database|content-types|commands)/`,
  `${SERVER}read/(?!(load|load-context|include-reaches)\\.ts$)`,
  `${SERVER}uploads/store\\.ts$`,
  `${SERVER}assets/(bytes|lookup-cache|variant-cache|transform|transform-pipeline|transform-pool|transform-worker)\\.ts$`,
];
const KERNEL = [`${SERVER}(config|utils)/`];
const CODECS = [
  `${SERVER}(grants|query|write|values|registry|keys|http|idempotency|fields|richtext|usage|audit|webhooks)/`,
  `${SERVER}openapi/types\\.ts$`,
  `${SERVER}serialize/rows\\.ts$`,
  `${SERVER}slugs/(?!middleware\\.ts$)`,
  `${SERVER}uploads/(?!store\\.ts$)`,
  `${SERVER}assets/(?!(bytes|lookup-cache|variant-cache|transform|transform-pipeline|transform-pool|transform-worker)\\.ts$)`,
];

/** The plugin's built command line as its bin and `npm run key` import it: unresolved until the plugin is built. */
const PLUGIN_BUILD = '^(strapi-plugin-public-data-api/cli|\\.\\./dist/cli/index\\.js)$';

/** A rule that `from` may not import `to`. */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

module.exports = {
  forbidden: [
    // ----------------------------------------------------------------------------------------------------
    // The plugin's layers: imports point down
    // ----------------------------------------------------------------------------------------------------
    forbid(
      'handlers-not-to-edge',
      'Handlers are called by the edge (routes, middleware), never the other way.',
      { path: HANDLERS },
      { path: EDGE },
    ),
    forbid(
      'handler-not-to-handler',
      'An endpoint module does not import another: what two handlers share lives in handlers/shared/.',
      { path: `${SERVER}handlers/[^/]+\\.ts$` },
      { path: `${SERVER}handlers/[^/]+\\.ts$` },
    ),
    forbid(
      'writes-not-to-handlers',
      'The write-operation processor is called by the write handlers, never the other way, and knows no endpoint.',
      { path: WRITES },
      { path: [...HANDLERS, ...EDGE] },
    ),
    forbid(
      'writes-speak-no-http',
      'The write-operation processor is transport-free: of http/ only the errors it throws (and types).',
      { path: WRITES },
      { path: `${SERVER}http/`, pathNot: `${SERVER}http/errors\\.ts$`, dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'access-not-to-handlers',
      'Access and representation know nothing of endpoints, the write processor or the edge.',
      { path: ACCESS },
      { path: [...WRITES, ...HANDLERS, ...EDGE] },
    ),
    forbid(
      'data-not-to-access',
      'Data does not know how it is shown, nor who asks (no serialize/, openapi/, access).',
      { path: DATA },
      { path: [...ACCESS, ...WRITES, ...HANDLERS, ...EDGE] },
    ),
    forbid(
      'data-speaks-no-http',
      'Data calls nothing of HTTP: only http/errors.ts (the error every layer throws) is shared with the edge; types are.',
      { path: DATA },
      { path: `${SERVER}http/`, pathNot: `${SERVER}http/errors\\.ts$`, dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'codecs-not-up',
      'Codecs are the bottom: pure functions and types that import only codecs and the kernel.',
      { path: CODECS },
      { path: [...DATA, ...ACCESS, ...WRITES, ...HANDLERS, ...EDGE] },
    ),
    forbid(
      'codecs-are-pure',
      'Codecs reach neither Strapi nor the database (type imports of Strapi types excepted).',
      { path: CODECS },
      { path: [`${SERVER}utils/get-service\\.ts$`, '^node_modules/@strapi/strapi/'], dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'kernel-not-up',
      'The kernel (config, getService) depends on nothing of the plugin; getService names the services by type only.',
      { path: KERNEL },
      { path: `${SERVER}(?!(config|utils)/)`, dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'server-not-to-admin',
      'The server never imports the admin panel; what both need is in shared/.',
      { path: '^src/plugins/public-api/server/' },
      { path: '^src/plugins/public-api/admin/' },
    ),
    forbid(
      'admin-not-to-server',
      'The admin panel talks to the server over HTTP only; what both need is in shared/.',
      { path: '^src/plugins/public-api/admin/' },
      { path: '^src/plugins/public-api/server/' },
    ),
    forbid(
      'shared-is-a-leaf',
      'shared/ holds the contracts of both sides and imports neither.',
      { path: '^src/plugins/public-api/shared/' },
      { path: '^src/plugins/public-api/(server|admin)/' },
    ),

    // ----------------------------------------------------------------------------------------------------
    // The application around the plugin
    // ----------------------------------------------------------------------------------------------------
    forbid(
      'app-not-into-plugin',
      'The domain rules, content types, seed, settings and editor views do not reach into the plugin (it is found through Strapi).',
      { path: '^src/(domain|api|seed|settings|editor)/' },
      { path: '^src/plugins/' },
    ),
    forbid(
      'plugin-stands-alone',
      'The plugin is a package of its own (its folder is what is packed): nothing in it imports a file outside its folder; packages are dependencies or peers in its package.json.',
      { path: '^src/plugins/public-api/' },
      { pathNot: ['^(src/plugins/public-api/|node_modules/)', PLUGIN_BUILD], dependencyTypesNot: ['core'] },
    ),
    forbid(
      'plugin-not-to-app',
      "The plugin stands alone: it does not import the application's own code.",
      { path: '^src/plugins/' },
      { path: '^src/(domain|api|seed|settings|editor|commands|index\\.ts)' },
    ),
    forbid(
      'app-through-public-api',
      "The application's commands and register() know the plugin by its public module alone (server/src/public.ts).",
      { path: '^src/(commands/|index\\.ts$)' },
      { path: '^src/plugins/', pathNot: '^src/plugins/public-api/server/src/public\\.ts$' },
    ),
    forbid(
      'app-takes-types-of-the-plugin',
      'Of the plugin, the application imports types only: the plugin reaches it as a Strapi plugin (its services), never as a copy of its code.',
      { path: '^src/(commands/|index\\.ts$)' },
      { path: '^src/plugins/', dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'domain-not-to-seed-or-api',
      'The domain rules are imported by the app; they import neither its content types nor its seed.',
      { path: '^src/domain/' },
      { path: '^src/(api|seed)/' },
    ),
    forbid(
      'settings-are-a-leaf',
      'src/settings (read by config/) imports nothing of the application.',
      { path: '^src/settings/' },
      { path: '^(src/(?!settings/)|config/)' },
    ),
    forbid(
      'config-reads-settings-only',
      'config/ reads the settings and nothing else of the application.',
      { path: '^config/' },
      { path: '^src/(?!settings/)' },
    ),
    forbid(
      'src-not-to-tooling',
      'Application code never imports scripts, benchmarks or tests.',
      { path: '^src/' },
      { path: '^(scripts|bench|test)/' },
    ),

    // ----------------------------------------------------------------------------------------------------
    // Everywhere
    // ----------------------------------------------------------------------------------------------------
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module reaches itself again. getService names every service by type (to type them), so cycles through it do not count.',
      from: {},
      to: { circular: true, viaOnly: { pathNot: `${SERVER}utils/get-service\\.ts$` } },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module nothing imports is dead code (entry points and modules Strapi loads by convention excepted).',
      from: {
        orphan: true,
        pathNot: [
          '(^|/)\\.[^/]+\\.(c?js|json)$',
          '\\.d\\.ts$',
          '(^|/)tsconfig\\.json$',
          '^src/index\\.ts$',
          '^src/api/[^/]+/(controllers|services|routes)/[^/]+\\.ts$',
          '^src/plugins/public-api/(bin/[^/]+\\.js|admin/src/index\\.ts)$',
          '^config/[^/]+\\.ts$',
          '^scripts/[^/]+\\.(ts|js)$',
        ],
      },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        "An import that resolves to nothing fails at run time. The plugin's command line is there once the plugin is built (scripts/plugin.js), not in a fresh clone.",
      from: {},
      to: { couldNotResolve: true, pathNot: PLUGIN_BUILD },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^(dist|build|\\.cache|\\.tmp)/', '^bench/\\.data/', '^src/plugins/public-api/dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.cjs', '.mjs', '.json', '.d.ts'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
