/**
 * Which content types an application serves as native resources (contract sections 1 and 18): its
 * `config/plugins.ts` lists them, `nativeResources: [{ slug, uid, deleteMode }]`. Their shape is checked
 * here, when Strapi loads the plugin's configuration, before any content type is known; whether each uid
 * names a content type is checked once they are (registry/build.ts, at bootstrap). Pure.
 */
import type { DeleteMode } from '../registry/types';
import { quoted } from '../utils/quoted';

export type NativeResourceConfig = {
  /** The resource's path below the API base (`/events`) and its records' JSON:API type. */
  slug: string;
  /** The Strapi content type, collection or single type (`api::event.event`). */
  uid: string;
  /** What DELETE does to a record: remove it, or unpublish it (contract section 7). */
  deleteMode: DeleteMode;
};

export const DELETE_MODES: readonly DeleteMode[] = ['remove', 'archive'];

/** A slug is a URL segment and a JSON:API type: as a website's collection slug (registry/publications.ts). */
const NATIVE_SLUG = /^[a-z][a-z0-9-]{0,62}[a-z0-9]$|^[a-z]$/;

/** `api::event.event`, `plugin::blog.article`: Strapi's uid of a content type. */
const CONTENT_TYPE_UID = /^(api|plugin)::[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Names a native resource may not take: the first segments of the API's own paths (a resource there would
 * hide the endpoint, or the endpoint the resource's records), those of the endpoints the contract plans
 * (sections 19 and 21), and the JSON:API types of the API's own documents. A unit test holds this list to
 * the route table (routes/content-api.ts), so a new endpoint cannot be forgotten here.
 */
export const RESERVED_NATIVE_SLUGS: readonly string[] = [
  'assets',
  'cms',
  'command-results',
  'commands',
  'live',
  'mcp',
  'openapi',
  'operations',
  'resources',
  'schema',
  'sync',
];

/** The plugin's own content types hold keys and deliveries, Strapi's admin its users: never served. */
const isInternalUid = (uid: string) => uid.startsWith('plugin::public-api.');

const MEMBERS = ['slug', 'uid', 'deleteMode'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The first thing wrong with a `nativeResources` setting, as one line naming the entry and what to do,
 * or null when it is valid. Absent means none: the API then serves only what websites publish.
 */
export const nativeResourcesProblem = (value: unknown): string | null => {
  const setting = "The public-api plugin's nativeResources";
  if (value === undefined) return null;
  if (!Array.isArray(value)) return `${setting} must be a list of { slug, uid, deleteMode }, got ${quoted(value)}.`;
  const slugs = new Map<string, number>();
  const uids = new Map<string, number>();
  for (const [index, entry] of value.entries()) {
    const at = `${setting}[${index}]`;
    if (!isRecord(entry)) return `${at} must be an object { slug, uid, deleteMode }, got ${quoted(entry)}.`;
    const unknown = Object.keys(entry).find((member) => !(MEMBERS as readonly string[]).includes(member));
    if (unknown !== undefined) return `${at} has an unknown member '${unknown}'; a native resource has slug, uid and deleteMode.`;
    const { slug, uid, deleteMode } = entry;
    if (typeof slug !== 'string' || !NATIVE_SLUG.test(slug)) {
      return `${at}.slug ${quoted(slug)} is not a slug: lowercase letters, digits and dashes, starting with a letter (at most 64).`;
    }
    if (RESERVED_NATIVE_SLUGS.includes(slug)) {
      return `${at}.slug '${slug}' is reserved by the API's own paths and documents (${RESERVED_NATIVE_SLUGS.join(', ')}); choose another.`;
    }
    const sameSlug = slugs.get(slug);
    if (sameSlug !== undefined) return `${at}.slug '${slug}' is already the slug of nativeResources[${sameSlug}].`;
    slugs.set(slug, index);
    if (typeof uid !== 'string' || !CONTENT_TYPE_UID.test(uid)) {
      return `${at}.uid ${quoted(uid)} is not a content type uid such as 'api::event.event'.`;
    }
    if (isInternalUid(uid)) return `${at}.uid '${uid}' is one of the plugin's own content types, which the API never serves.`;
    const sameUid = uids.get(uid);
    if (sameUid !== undefined) return `${at}.uid '${uid}' is already served by nativeResources[${sameUid}]: one resource per content type.`;
    uids.set(uid, index);
    if (typeof deleteMode !== 'string' || !(DELETE_MODES as readonly string[]).includes(deleteMode)) {
      return `${at}.deleteMode must be one of ${DELETE_MODES.map((mode) => `'${mode}'`).join(', ')}, got ${quoted(deleteMode)}.`;
    }
  }
  return null;
};
