/**
 * What an admin must be allowed in Strapi's Content Manager to give a key its grants (contract section
 * 18): the key reads and writes records as a Content Manager user would, so an admin may grant, publish
 * or preview only what they may do themselves there. Pure: the Content Manager's answer comes in as
 * `allows`, from the admin's own ability (services/admin-access.ts).
 *
 * A key's holdings become a list of needs, one per (resource, Content Manager action, field path):
 * - a read grant: `read` of the content type, and of every readable field and of the slug and sort
 *   attributes (a record's `meta` shows them whatever the field lists say);
 * - a preview key: the same reads again, of drafts, for every draft-and-publish resource it reads;
 * - create or update: that action on the content type and on every writable field, and `publish` on a
 *   draft-and-publish type (records written through the API are published at once);
 * - delete: `delete`, and `publish` where deleting archives (unpublishes) instead.
 * A field is a Content Manager field path: a component field is every path inside it (`seo.metaTitle`).
 */
import type { Resource } from '../registry/types';
import type { ResourceGrant } from './types';
import type { GrantIssue } from './resolve';

export const CONTENT_MANAGER_ACTIONS = ['read', 'create', 'update', 'delete', 'publish'] as const;
export type ContentManagerAction = (typeof CONTENT_MANAGER_ACTIONS)[number];

/** One thing the Content Manager must allow the admin: an action on a content type, or on one field path of it. */
export type Need = {
  resource: string;
  uid: string;
  action: ContentManagerAction;
  /** A Content Manager field path; null: the content type itself. */
  field: string | null;
  /** Needed because the key reads drafts (a preview key). */
  drafts: boolean;
};

/** What a key holds that the Content Manager decides on: its resource grants and its preview flag. */
export type KeyHoldings = { resources: Readonly<Record<string, ResourceGrant>>; preview: boolean };

/** Whether the Content Manager lets the admin do `action` on every record of `uid` (and `field`, when given). */
export type Allows = (action: ContentManagerAction, uid: string, field: string | null) => boolean;

/** The Content Manager's field paths of a resource's field (a component's leaves), given by the caller. */
export type PathsOf = (resource: Resource, field: string) => readonly string[];

const needKey = (need: Need) => `${need.resource}\u0000${need.action}\u0000${need.drafts ? 'd' : ''}\u0000${need.field ?? ''}`;

/** Every need of a key's holdings, each once. Resources the registry does not know are inert and need nothing. */
export const needsOf = (holdings: KeyHoldings, resourceOf: (id: string) => Resource | undefined, pathsOf: PathsOf): Need[] => {
  const needs = new Map<string, Need>();
  const add = (need: Need) => needs.set(needKey(need), need);
  for (const [id, grant] of Object.entries(holdings.resources)) {
    const resource = resourceOf(id);
    if (!resource) continue;
    const known = new Set(resource.fields.map((field) => field.key));
    const on = (action: ContentManagerAction, fields: readonly string[], drafts = false) => {
      add({ resource: id, uid: resource.uid, action, field: null, drafts });
      for (const field of fields)
        for (const path of pathsOf(resource, field)) add({ resource: id, uid: resource.uid, action, field: path, drafts });
    };
    if (grant.actions.includes('read')) {
      const shown = [resource.slugAttribute, resource.sortAttribute].filter((name): name is string => !!name && known.has(name));
      const read = [...new Set([...grant.read, ...shown])];
      on('read', read);
      if (holdings.preview && resource.draftAndPublish) on('read', read, true);
    }
    for (const action of ['create', 'update'] as const) {
      if (!grant.actions.includes(action)) continue;
      on(action, grant.write);
      if (resource.draftAndPublish) on('publish', []);
    }
    if (grant.actions.includes('delete')) {
      on('delete', []);
      if (resource.deleteMode === 'archive' && resource.draftAndPublish) on('publish', []);
    }
  }
  return [...needs.values()];
};

export type Judgement =
  | { ok: true }
  /** What the Content Manager does not allow: `missing` the change adds, `held` the key held before. */
  | { ok: false; missing: Need[]; held: Need[] };

/**
 * Whether an admin may take a key from `before` (null: a new key) to `after`. A change that adds no
 * need (a narrowing, a rename, another limit) is always allowed: an admin may take away what they
 * could not have given. A change that adds anything needs every need of the result allowed, those the
 * key held already included: who cannot see everything a key holds may not widen it.
 */
export const judge = (before: readonly Need[] | null, after: readonly Need[], allows: Allows): Judgement => {
  const had = new Set((before ?? []).map(needKey));
  if (!after.some((need) => !had.has(needKey(need)))) return { ok: true };
  const missing = after.filter((need) => !allows(need.action, need.uid, need.field));
  if (!missing.length) return { ok: true };
  return { ok: false, missing: missing.filter((need) => !had.has(needKey(need))), held: missing.filter((need) => had.has(needKey(need))) };
};

/** The needs the admin is not allowed: none when they may do all a key does (take its secret, send what it reads elsewhere). */
export const notAllowed = (needs: readonly Need[], allows: Allows): Need[] =>
  needs.filter((need) => !allows(need.action, need.uid, need.field));

const quoted = (fields: readonly string[]) => fields.map((field) => `'${field}'`).join(', ');

/** Where a need shows in the key form: the preview switch, a grant's field list, or its actions. */
const pathOf = (need: Need): (string | number)[] => {
  if (need.drafts) return ['preview'];
  if (need.field === null) return ['resources', need.resource, 'actions'];
  return ['resources', need.resource, need.action === 'read' ? 'read' : 'write'];
};

/**
 * The refusal, one issue per form place (the preview switch, a grant's actions or field lists), naming
 * what the Content Manager does not allow. `held` marks what the key held already.
 */
export const issuesOf = (missing: readonly Need[], held: readonly Need[] = []): GrantIssue[] => {
  const groups = new Map<string, { path: (string | number)[]; needs: Need[]; held: boolean }>();
  for (const [list, isHeld] of [
    [missing, false],
    [held, true],
  ] as const) {
    for (const need of list) {
      const path = pathOf(need);
      const id = `${path.join('\u0000')}\u0000${isHeld}`;
      const group = groups.get(id) ?? { path, needs: [], held: isHeld };
      group.needs.push(need);
      groups.set(id, group);
    }
  }
  return [...groups.values()].map(({ path, needs, held: isHeld }) => {
    const { resource, uid } = needs[0]!;
    const byAction = new Map<ContentManagerAction, string[]>();
    for (const need of needs) {
      const fields = byAction.get(need.action) ?? [];
      if (need.field !== null) fields.push(need.field);
      byAction.set(need.action, fields);
    }
    const what = [...byAction].map(([action, fields]) => `${action} ${fields.length ? quoted(fields) : 'every record'}`).join(' or ');
    const message = isHeld
      ? `This key already holds what you may not do in the Content Manager (${what} of ${uid}): you may narrow it, not widen it.`
      : needs[0]!.drafts
        ? `A preview key reads the drafts of ${resource}, and you may not ${what} of ${uid} in the Content Manager.`
        : `You may not ${what} of ${uid} in the Content Manager, so you may not grant it on ${resource}.`;
    return { path, message };
  });
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a permission's conditions (as Strapi's engine hands them to CASL) hold for every record: none
 * at all, or only i18n's locale condition (`{ $and: [{ locale: { $in } }] }`) naming every locale there
 * is. Anything else (`is creator`, a custom condition) covers some records only, and a key reads all.
 */
export const coversEveryRecord = (conditions: unknown, locales: readonly string[]): boolean => {
  if (conditions === undefined || conditions === null) return true;
  if (!isRecord(conditions)) return false;
  const members = Object.keys(conditions);
  if (members.length === 0) return true;
  if (members.length !== 1) return false;
  if (Array.isArray(conditions.$and)) return conditions.$and.every((part) => coversEveryRecord(part, locales));
  const locale = conditions.locale;
  if (!isRecord(locale) || Object.keys(locale).length !== 1 || !Array.isArray(locale.$in)) return false;
  const named = new Set(locale.$in);
  return locales.every((code) => named.has(code));
};

/** A website publication's need: reading the published content type in the Content Manager. */
export const publicationNeed = (collection: string, contentType: string): Need => ({
  resource: collection,
  uid: contentType,
  action: 'read',
  field: null,
  drafts: false,
});
