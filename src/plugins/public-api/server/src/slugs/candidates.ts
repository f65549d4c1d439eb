/**
 * Slug candidates as the Strapi admin makes them: the source slugified with the admin's library and the
 * field's options, then `-1`, `-2`... Pure.
 */
import slugify from '@sindresorhus/slugify';

/** How many candidates (`x`, `x-1`, ...) one query checks. */
export const CANDIDATES_PER_QUERY = 20;

export type SlugifyOptions = slugify.Options;

/**
 * The base slug: the first of the source and the fallbacks (the field's default, the model's name) that
 * slugifies to something. A source with nothing to slugify ('!!!') counts as no source.
 */
export const slugBase = (source: unknown, fallbacks: readonly unknown[], options?: SlugifyOptions): string => {
  for (const value of [source, ...fallbacks]) {
    const slug = typeof value === 'string' ? slugify(value, options) : '';
    if (slug !== '') return slug;
  }
  return '';
};

/** The `batch`-th run of candidates: `x`, `x-1` ... `x-19`, then `x-20` ... `x-39`, ... */
export const candidatesOf = (base: string, batch: number): string[] =>
  Array.from({ length: CANDIDATES_PER_QUERY }, (_, index) => {
    const n = batch * CANDIDATES_PER_QUERY + index;
    return n === 0 ? base : `${base}-${n}`;
  });
