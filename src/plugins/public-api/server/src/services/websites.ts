/**
 * Websites and what they publish, as admins manage them: create, change, delete, with every input
 * validated before anything is written (publications by the registry's own rules). Keys follow a
 * website: when its slug changes their grants move to the new resource ids, and grants on resources
 * that are gone are removed, so a website created later under an old name never inherits them.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { AdminWebsite } from '../../../shared/contracts/websites';
import type { Publication } from '../registry/build';
import { WEBSITE_UID } from '../registry/fields';
import { validatePublications } from '../registry/publications';
import { CMS_PREFIX, cmsResourceId, type Resource } from '../registry/types';
import { supportedActions } from '../grants/resolve';
import type { KeyGrants, ResourceGrant } from '../grants/types';
import { getService } from '../utils/get-service';

export type WebsiteIssue = { path: (string | number)[]; message: string };

/** Thrown with every issue of a refused input; nothing has been written. */
export class WebsiteValidationError extends errors.ValidationError {
  constructor(public readonly issues: WebsiteIssue[]) {
    super(issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n'), {
      errors: issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, name: 'ValidationError' })),
    });
  }
}

export type Website = AdminWebsite;

/**
 * Asked, once the input is valid and before anything is written, whether whoever changes the website
 * may publish `after` where it published `before` (null: a new website); throws to refuse.
 */
export type AuthorizePublications = (before: readonly Publication[] | null, after: readonly Publication[]) => Promise<void> | void;

type WebsiteRow = Omit<Website, 'publications' | 'createdAt' | 'updatedAt'> & {
  publications: unknown;
  createdAt: string | Date;
  updatedAt: string | Date;
};

export const WEBSITE_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const WEBSITE_SLUG_MESSAGE = 'A website slug is 1 to 64 lowercase letters, digits and dashes, not starting or ending with a dash.';

/** A URL-safe slug from a name: `Café Olé!` -> `cafe-ole`. */
export const slugifyName = (name: string): string =>
  name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');

const toWebsite = (row: WebsiteRow): Website => ({
  id: row.id,
  documentId: row.documentId,
  name: row.name,
  slug: row.slug,
  publications: Array.isArray(row.publications) ? (row.publications as Publication[]) : [],
  createdAt: new Date(row.createdAt).toISOString(),
  updatedAt: new Date(row.updatedAt).toISOString(),
});

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const ALLOWED_MEMBERS = new Set(['name', 'slug', 'publications']);

/**
 * How stored key grants follow a website change: ids renamed, resources gone, fields per resource now.
 * `retyped`: resources (new ids) that now publish another content type; a grant was given for the old
 * one's records and fields, so it goes like a resource gone (issue 33: it would otherwise read the new
 * type's fields of the same names, which whoever changed the website may not have been allowed to grant).
 */
type GrantChange = {
  renamed: Map<string, string>;
  retyped: ReadonlySet<string>;
  exists: (resourceId: string) => Resource | undefined;
  touches: (resourceId: string) => boolean;
};

const followChange = (grants: KeyGrants, change: GrantChange): KeyGrants | null => {
  const ids = Object.keys(grants.resources);
  if (!ids.some(change.touches)) return null;
  const resources: Record<string, ResourceGrant> = {};
  for (const id of ids) {
    if (!change.touches(id)) {
      resources[id] = grants.resources[id]!;
      continue;
    }
    const target = change.renamed.get(id) ?? id;
    const resource = change.exists(target);
    if (!resource || change.retyped.has(target)) continue;
    const fields = new Set(resource.fields.map((field) => field.key));
    const grant = grants.resources[id]!;
    const supported = supportedActions(resource);
    resources[target] = {
      actions: grant.actions.filter((action) => supported.includes(action)),
      read: grant.read.filter((field) => fields.has(field)),
      write: grant.write.filter((field) => fields.has(field)),
    };
  }
  return { ...grants, resources };
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(WEBSITE_UID);

  const findRow = async (id: string | number): Promise<WebsiteRow | null> => {
    const where = /^\d+$/.test(String(id)) ? { id: Number(id) } : { $or: [{ documentId: String(id) }, { slug: String(id) }] };
    return (await query().findOne({ where })) as WebsiteRow | null;
  };

  const requireRow = async (id: string | number): Promise<WebsiteRow> => {
    const row = await findRow(id);
    if (!row) throw new errors.NotFoundError(`No website '${id}'.`);
    return row;
  };

  /** Validates a whole or partial input against what exists; throws every issue at once. */
  const validate = async (input: unknown, current: WebsiteRow | null) => {
    if (!isRecord(input)) throw new WebsiteValidationError([{ path: [], message: 'Send a website as a JSON object.' }]);
    const issues: WebsiteIssue[] = Object.keys(input)
      .filter((member) => !ALLOWED_MEMBERS.has(member))
      .map((member) => ({ path: [member], message: `'${member}' is not a website setting.` }));

    const name = input.name === undefined && current ? current.name : input.name;
    const nameIsValid = typeof name === 'string' && name.trim() !== '' && name.trim().length <= 120;
    if (!nameIsValid) issues.push({ path: ['name'], message: 'A website needs a name of 1 to 120 characters.' });

    let slug: string | undefined = current?.slug;
    if (input.slug !== undefined && input.slug !== null && input.slug !== '') {
      if (typeof input.slug !== 'string' || !WEBSITE_SLUG.test(input.slug)) issues.push({ path: ['slug'], message: WEBSITE_SLUG_MESSAGE });
      else slug = input.slug;
    } else if (!current && nameIsValid) {
      // A slug made from a refused name would only repeat the name's issue under another field.
      slug = slugifyName(name as string);
      if (!WEBSITE_SLUG.test(slug)) issues.push({ path: ['slug'], message: `No slug can be made from this name. ${WEBSITE_SLUG_MESSAGE}` });
    }
    if (slug && slug !== current?.slug) {
      const taken = (await query().findOne({ where: { slug }, select: ['id'] })) as { id: number } | null;
      if (taken) issues.push({ path: ['slug'], message: `The slug '${slug}' is already used by another website.` });
    }

    let publications: Publication[] = current ? toWebsite(current).publications : [];
    if (input.publications !== undefined || !current) {
      const result = validatePublications(input.publications ?? [], getService('resources').schemas());
      if (result.ok) publications = result.value;
      else issues.push(...result.issues.map((issue) => ({ ...issue, path: ['publications', ...issue.path] })));
    }

    if (issues.length) throw new WebsiteValidationError(issues);
    return { name: (name as string).trim(), slug: slug!, publications };
  };

  /** Moves and trims key grants after the website `before` became `after` (null: deleted). */
  const followKeys = async (before: Website, after: Website | null) => {
    const prefix = `${CMS_PREFIX}${before.slug}/`;
    const renamed = new Map<string, string>();
    if (after && after.slug !== before.slug) {
      for (const publication of after.publications) {
        renamed.set(cmsResourceId(before.slug, publication.collection), cmsResourceId(after.slug, publication.collection));
      }
    }
    const typeBefore = new Map(before.publications.map((publication) => [publication.collection, publication.contentType]));
    const retyped = new Set(
      (after?.publications ?? [])
        .filter(
          (publication) => typeBefore.has(publication.collection) && typeBefore.get(publication.collection) !== publication.contentType,
        )
        .map((publication) => cmsResourceId(after!.slug, publication.collection)),
    );
    const resources = after ? await getService('resources').all() : [];
    const byId = new Map(resources.map((resource) => [resource.id, resource]));
    const change: GrantChange = { renamed, retyped, exists: (id) => byId.get(id), touches: (id) => id.startsWith(prefix) };
    const keys = getService('keys');
    // What the website published before: a key that loses it has its endpoints sent removals.
    const former = getService('resources').resourcesOf(before);
    for (const key of await keys.list()) {
      const grants = followChange(key.grants, change);
      if (grants) await keys.update(key.id, { grants }, former);
    }
  };

  return {
    async list(): Promise<Website[]> {
      const rows = (await query().findMany({ orderBy: [{ slug: 'asc' }] })) as WebsiteRow[];
      return rows.map(toWebsite);
    },

    async findOne(id: string | number): Promise<Website | null> {
      const row = await findRow(id);
      return row ? toWebsite(row) : null;
    },

    async create(input: unknown, authorize?: AuthorizePublications): Promise<Website> {
      const data = await validate(input, null);
      await authorize?.(null, data.publications);
      return toWebsite((await query().create({ data })) as WebsiteRow);
    },

    async update(id: string | number, input: unknown, authorize?: AuthorizePublications): Promise<Website> {
      const row = await requireRow(id);
      const data = await validate(input, row);
      await authorize?.(toWebsite(row).publications, data.publications);
      return strapi.db.transaction(async () => {
        const updated = toWebsite((await query().update({ where: { id: row.id }, data })) as WebsiteRow);
        await followKeys(toWebsite(row), updated);
        return updated;
      });
    },

    async remove(id: string | number): Promise<Website> {
      const row = await requireRow(id);
      return strapi.db.transaction(async () => {
        await query().delete({ where: { id: row.id } });
        await followKeys(toWebsite(row), null);
        return toWebsite(row);
      });
    },
  };
};
