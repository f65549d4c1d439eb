/**
 * The resource registry: which resources exist, with their fields, for the native resources the
 * application configures (`nativeResources`) and for every website's publications. Native resources are
 * fixed per process (content types and configuration only change with a restart); websites are read from the database so publications apply on the next request everywhere.
 *
 * Websites are read on every request that needs them, through one prepared statement over the few rows
 * of the websites table (database/statements.ts), and what is built from them (their resources, by
 * slug) is kept per instance for as long as those rows read the same: the cache's key is the rows
 * themselves, so a change made anywhere (this instance, another one, SQL by hand) is seen by every
 * instance on its next request, with no invalidation to miss and no window. Building resources from
 * schemas is the cost saved; the read stays.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { pluginConfig } from '../config';
import { statementRunner } from '../database/runner';
import { createReadModels } from '../read/model';
import {
  buildNativeResources,
  buildWebsiteResources,
  type ContentTypeSchema,
  type Publication,
  type WebsiteWithPublications,
} from '../registry/build';
import { componentCatalog, type StrapiComponentSchema } from '../registry/components';
import { WEBSITE_UID } from '../registry/fields';
import type { Resource } from '../registry/types';

type WebsiteRow = { id: number; documentId: string; name: string; slug: string; publications: unknown };

const asPublications = (value: unknown): Publication[] => (Array.isArray(value) ? (value as Publication[]) : []);

const toWebsite = (row: WebsiteRow): WebsiteWithPublications => ({
  id: row.id,
  documentId: row.documentId,
  name: row.name,
  slug: row.slug,
  publications: asPublications(row.publications),
});

const WEBSITE_COLUMNS = ['id', 'documentId', 'name', 'slug', 'publications'] as const;

/** Publications as stored: JSON text on SQLite, parsed on PostgreSQL. */
const parsedPublications = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return [];
  }
};

/** What is built from one reading of the websites table. */
type Snapshot = {
  /** The rows as read: the cache's key. */
  rows: string;
  websites: WebsiteWithPublications[];
  bySlug: Map<string, { website: WebsiteWithPublications; resources: Resource[] }>;
  resources: Resource[];
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let native: Resource[] | null = null;
  let snapshot: Snapshot | null = null;
  const models = createReadModels(strapi);

  const schemas = (): Map<string, ContentTypeSchema> =>
    new Map(
      Object.entries(strapi.contentTypes).map(([uid, contentType]) => [uid, { ...(contentType as unknown as ContentTypeSchema), uid }]),
    );

  /** The components' schemas as the API shows them; like content types, they only change with a restart. */
  const components = componentCatalog(
    new Map(
      Object.entries(strapi.components ?? {}).map(([uid, component]) => [uid, { ...(component as unknown as StrapiComponentSchema), uid }]),
    ),
  );

  const buildNative = (): Resource[] => buildNativeResources(pluginConfig(strapi).nativeResources ?? [], schemas(), {}, components);

  const websiteResources = (websites: WebsiteWithPublications[]): Resource[] => {
    const all = schemas();
    return websites.flatMap((website) =>
      buildWebsiteResources(website, all, {}, (reason) => strapi.log.warn(`[public-api] ${reason}`), components),
    );
  };

  return {
    /**
     * Builds the native resources the application configures; throws (refusing to start) when one names
     * no content type or its schema cannot be exposed.
     */
    init() {
      native = buildNative();
    },

    schemas,

    native(): Resource[] {
      if (!native) native = buildNative();
      return native;
    },

    /**
     * The websites as they are now, and what is built from them: read on every call (one prepared
     * statement), rebuilt only when the rows read differently from the last time.
     */
    async snapshot(): Promise<Snapshot> {
      const model = models(WEBSITE_UID);
      const raws = await statementRunner(strapi).rows<WebsiteRow>('websites', [], () =>
        (strapi.db.connection as unknown as Knex)(model.table)
          .select(Object.fromEntries(WEBSITE_COLUMNS.map((column) => [column, model.columns[column]!])))
          .orderBy(model.columns.slug!)
          .orderBy(model.columns.id!),
      );
      const rows = JSON.stringify(raws);
      if (snapshot && snapshot.rows === rows) return snapshot;
      const websites = raws.map((raw) => toWebsite({ ...raw, publications: parsedPublications(raw.publications) }));
      const bySlug = new Map(websites.map((website) => [website.slug, { website, resources: websiteResources([website]) }]));
      snapshot = { rows, websites, bySlug, resources: [...bySlug.values()].flatMap((entry) => entry.resources) };
      return snapshot;
    },

    async websites(): Promise<WebsiteWithPublications[]> {
      return (await this.snapshot()).websites;
    },

    async website(slug: string): Promise<WebsiteWithPublications | null> {
      return (await this.snapshot()).bySlug.get(slug)?.website ?? null;
    },

    /** Every resource that exists now, native first, then each website's in slug order. */
    async all(): Promise<Resource[]> {
      return [...this.native(), ...(await this.snapshot()).resources];
    },

    findNative(slug: string): Resource | null {
      return this.native().find((resource) => resource.slug === slug) ?? null;
    },

    /** The resources one website publishes (those of the last snapshot when it is the same website). */
    resourcesOf(website: WebsiteWithPublications): Resource[] {
      const kept = snapshot?.bySlug.get(website.slug);
      return kept && kept.website === website ? kept.resources : websiteResources([website]);
    },

    async findCms(websiteSlug: string, collection: string): Promise<Resource | null> {
      const kept = (await this.snapshot()).bySlug.get(websiteSlug);
      return kept?.resources.find((resource) => resource.slug === collection) ?? null;
    },
  };
};
