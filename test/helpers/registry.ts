/**
 * The application's own content types as the registry sees them, without booting Strapi: for unit
 * tests of pure modules that work on resources (the OpenAPI builder, grants). The native resources are
 * this application's configuration (src/settings/native-resources.ts, as config/plugins.ts lists them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { NATIVE_RESOURCES } from '../../src/settings/native-resources';
import {
  buildNativeResources,
  buildWebsiteResources,
  type ContentTypeSchema,
  type Publication,
} from '../../src/plugins/public-api/server/src/registry/build';
import type { Resource, StrapiAttribute } from '../../src/plugins/public-api/server/src/registry/types';

const API_DIR = path.resolve(__dirname, '..', '..', 'src', 'api');

/** Strapi stores a custom field as its underlying type once loaded; the schema files say `customField`. */
const loaded = (attribute: StrapiAttribute): StrapiAttribute =>
  attribute.type === 'customField' ? { ...attribute, type: 'json' } : attribute;

export const contentTypeSchemas = (): Map<string, ContentTypeSchema> => {
  const schemas = new Map<string, ContentTypeSchema>();
  for (const api of fs.readdirSync(API_DIR)) {
    const dir = path.join(API_DIR, api, 'content-types');
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name, 'schema.json');
      if (!fs.existsSync(file)) continue;
      const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
      const uid = `api::${api}.${name}`;
      const attributes = Object.fromEntries(
        Object.entries(raw.attributes as Record<string, StrapiAttribute>).map(([key, attribute]) => [key, loaded(attribute)]),
      );
      schemas.set(uid, { ...raw, uid, attributes });
    }
  }
  return schemas;
};

export const DEMO_PUBLICATIONS: Publication[] = [
  { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
  { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' },
  { collection: 'home', contentType: 'api::homepage.homepage', mode: 'singleton' },
  { collection: 'news', contentType: 'api::event.event', mode: 'collection' },
];

/** The native resources and two websites that publish the same collections. */
export const demoResources = (): Resource[] => {
  const schemas = contentTypeSchemas();
  return [
    ...buildNativeResources(NATIVE_RESOURCES, schemas),
    ...buildWebsiteResources({ id: 1, documentId: 'w1', slug: 'site-a', name: 'Site A', publications: DEMO_PUBLICATIONS }, schemas),
    ...buildWebsiteResources(
      { id: 2, documentId: 'w2', slug: 'site-b', name: 'Site B', publications: DEMO_PUBLICATIONS.slice(0, 2) },
      schemas,
    ),
  ];
};
