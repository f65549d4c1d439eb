/**
 * A new publication's collection slug, filled in from its content type until the admin types one: the
 * schema's plural API name for a collection type (`job-applications`), its singular one for a single
 * type, which is published as one record (`homepage`, not `homepages`). Pure.
 */
import type { ContentTypeSummary } from '../../../shared/contracts/registry';

/** The server's rule for a collection slug: 1 to 64 lowercase letters, digits and dashes, no dash at an end. */
const MAX_SLUG = 64;

/** Text -> lowercase letters, digits and single dashes (accents dropped, other characters become dashes). */
export const slugify = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG)
    .replace(/^-+|-+$/g, '');

export const suggestedCollection = (type: Pick<ContentTypeSummary, 'kind' | 'singularName' | 'pluralName' | 'displayName'>): string =>
  slugify(type.kind === 'singleType' ? type.singularName : type.pluralName) || slugify(type.displayName);

/**
 * The slug after the content type changed from `previous` to `next`: the new type's suggestion while the
 * slug is empty or still the suggestion for the previous type (the admin has not typed their own), else
 * the slug as typed. `taken`: the website's other publications' slugs; a suggestion they hold gets `-2`,
 * `-3` and so on, since two publications of one website cannot share a slug.
 */
export const collectionAfterTypeChange = (
  collection: string,
  previous: ContentTypeSummary | undefined,
  next: ContentTypeSummary | undefined,
  taken: readonly string[],
): string => {
  const untouched = collection === '' || (previous !== undefined && isSuggestionFor(collection, previous, taken));
  if (!untouched || !next) return collection;
  return free(suggestedCollection(next), taken);
};

const free = (slug: string, taken: readonly string[]): string => {
  if (slug === '' || !taken.includes(slug)) return slug;
  for (let n = 2; ; n += 1) {
    const suffix = `-${n}`;
    const candidate = `${slug.slice(0, MAX_SLUG - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.includes(candidate)) return candidate;
  }
};

/** Whether `collection` is what `type` would have suggested (with or without a `-n` the taken slugs made). */
const isSuggestionFor = (collection: string, type: ContentTypeSummary, taken: readonly string[]): boolean => {
  const suggestion = suggestedCollection(type);
  if (collection === suggestion || collection === free(suggestion, taken)) return true;
  const numbered = /^(.*)-([2-9]|[1-9]\d+)$/.exec(collection);
  if (!numbered) return false;
  const suffix = `-${numbered[2]}`;
  return numbered[1] === suggestion.slice(0, MAX_SLUG - suffix.length).replace(/-+$/, '');
};
