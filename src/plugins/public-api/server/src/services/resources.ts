/**
 * The resource registry: which resources exist, with their fields, for native modules and for every
 * website's publications. Native resources are fixed per process (content types only change with a
 * restart); websites are read from the database so publications apply on the next request everywhere.
 */
import type { Core } from '@strapi/strapi';
import {
  buildNativeResources,
  buildWebsiteResources,
  type ContentTypeSchema,
  type Publication,
  type WebsiteWithPublications,
} from '../registry/build';
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

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let native: Resource[] | null = null;

  const schemas = (): Map<string, ContentTypeSchema> =>
    new Map(
      Object.entries(strapi.contentTypes).map(([uid, contentType]) => [uid, { ...(contentType as unknown as ContentTypeSchema), uid }]),
    );

  const websiteResources = (websites: WebsiteWithPublications[]): Resource[] => {
    const all = schemas();
    return websites.flatMap((website) => buildWebsiteResources(website, all, {}, (reason) => strapi.log.warn(`[public-api] ${reason}`)));
  };

  return {
    /** Builds the native resources; throws (refusing to start) when a schema cannot be exposed. */
    init() {
      native = buildNativeResources(schemas());
    },

    schemas,

    native(): Resource[] {
      if (!native) native = buildNativeResources(schemas());
      return native;
    },

    async websites(): Promise<WebsiteWithPublications[]> {
      const rows = (await strapi.db.query(WEBSITE_UID).findMany({
        select: [...WEBSITE_COLUMNS],
        orderBy: { slug: 'asc' },
      })) as WebsiteRow[];
      return rows.map(toWebsite);
    },

    async website(slug: string): Promise<WebsiteWithPublications | null> {
      const row = (await strapi.db.query(WEBSITE_UID).findOne({
        select: [...WEBSITE_COLUMNS],
        where: { slug },
      })) as WebsiteRow | null;
      return row ? toWebsite(row) : null;
    },

    /** Every resource that exists now, native first, then each website's in slug order. */
    async all(): Promise<Resource[]> {
      return [...this.native(), ...websiteResources(await this.websites())];
    },

    findNative(slug: string): Resource | null {
      return this.native().find((resource) => resource.slug === slug) ?? null;
    },

    /** The resources one website publishes. */
    resourcesOf(website: WebsiteWithPublications): Resource[] {
      return websiteResources([website]);
    },

    async findCms(websiteSlug: string, collection: string): Promise<Resource | null> {
      const website = await this.website(websiteSlug);
      if (!website) return null;
      return websiteResources([website]).find((resource) => resource.slug === collection) ?? null;
    },
  };
};
