/**
 * What a written document's versions need, read as data: the slugs to generate and the slugs that clash.
 * Pure.
 */

/** One stored row (version) of a document, as the slug rule reads it. */
export type SlugVersion = {
  id: number;
  locale: string | null;
  published: boolean;
  slug: string | null;
  /** The value of the slug's target field. */
  source: unknown;
  /** The website the row is linked to (row id), or null. */
  website: number | null;
};

/** Rows that need one generated slug: same locale, same website. */
export type MissingSlug = { locale: string | null; website: number | null; source: unknown; rowIds: number[] };

/** Where a slug is held: by whom, in which locale and website. */
export type SlugHolder = { slug: string; locale: string | null; website: number | null };

/** The messages of a clash, shown by the admin on the field; the API answers them with 409. */
export const SLUG_TAKEN_MESSAGES = {
  website: 'Another record of this website already uses this slug.',
  contentType: 'Another record already uses this slug.',
} as const;

export const isEmptySlug = (slug: unknown): boolean => slug === null || slug === undefined || slug === '';

const placeOf = (locale: string | null, website: number | null) => JSON.stringify([locale, website]);

/**
 * Rows without a slug, one group per locale and website; the draft's target value is the source (it is
 * what the editor wrote last), else the published one's.
 */
export const missingSlugs = (rows: readonly SlugVersion[]): MissingSlug[] => {
  const groups = new Map<string, MissingSlug>();
  const ordered = [...rows].sort((a, b) => Number(a.published) - Number(b.published));
  for (const row of ordered) {
    if (!isEmptySlug(row.slug)) continue;
    const place = placeOf(row.locale, row.website);
    const group = groups.get(place);
    if (group) group.rowIds.push(row.id);
    else groups.set(place, { locale: row.locale, website: row.website, source: row.source, rowIds: [row.id] });
  }
  return [...groups.values()];
};

/**
 * The published rows whose slug another document's published row holds in the same locale and website:
 * Strapi's rule for a uid (published versions are unique, drafts are free), within one website.
 */
export const clashingVersions = (rows: readonly SlugVersion[], others: readonly SlugHolder[]): SlugVersion[] => {
  const held = new Set(others.map((other) => JSON.stringify([other.slug, other.locale, other.website])));
  return rows.filter((row) => row.published && !isEmptySlug(row.slug) && held.has(JSON.stringify([row.slug, row.locale, row.website])));
};
