/**
 * What a write did to the published versions of one document, as change journal entries (pure).
 *
 * A write is judged by the document's published rows before and after it (per locale), not by the
 * action's name: Strapi's actions overlap (a `create` or `update` with `status: 'published'` publishes,
 * `publish` replaces the published row, `delete` may name one locale or all), and a draft-only save
 * leaves the published rows as they were, which then gives no entry at all (drafts never reach the
 * journal: contract section 15).
 */

/** The kinds of change (contract section 16's events are `record.<kind>`). */
export const CHANGE_KINDS = ['published', 'updated', 'unpublished', 'deleted'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * A published row of a document: its row id, its locale (null when not localized), its last update, and
 * its slug (what references to the record show besides its id; null when the type has none).
 */
export type PublishedRow = { id: number; locale: string | null; updatedAt: string; slug?: string | null };

export type DocumentChange = { locale: string | null; kind: ChangeKind };

const localeKey = (locale: string | null) => locale ?? '';

/**
 * The changes between the published rows before and after a write: a locale that gained a published
 * row was `published`; one that kept it `updated` when the row was replaced (a publish) or changed in
 * place (a type without draft & publish); one that lost it `deleted` when the write was a delete and
 * `unpublished` otherwise.
 */
export const changesOf = (action: string, before: readonly PublishedRow[], after: readonly PublishedRow[]): DocumentChange[] => {
  const was = new Map(before.map((row) => [localeKey(row.locale), row]));
  const is = new Map(after.map((row) => [localeKey(row.locale), row]));
  const changes: DocumentChange[] = [];
  for (const [key, row] of is) {
    const old = was.get(key);
    if (!old) changes.push({ locale: row.locale, kind: 'published' });
    else if (old.id !== row.id || old.updatedAt !== row.updatedAt) changes.push({ locale: row.locale, kind: 'updated' });
  }
  for (const [key, row] of was) {
    if (!is.has(key)) changes.push({ locale: row.locale, kind: action === 'delete' ? 'deleted' : 'unpublished' });
  }
  return changes;
};

/**
 * Whether a write that kept every published locale changed what references to the document show: its
 * id never changes, so its slug in a locale published before and after (issue 33: a change of the
 * record's other fields leaves the records that reference it as they were).
 */
export const referenceChanged = (before: readonly PublishedRow[], after: readonly PublishedRow[]): boolean => {
  const was = new Map(before.map((row) => [localeKey(row.locale), row.slug ?? null]));
  return after.some((row) => was.has(localeKey(row.locale)) && was.get(localeKey(row.locale)) !== (row.slug ?? null));
};
