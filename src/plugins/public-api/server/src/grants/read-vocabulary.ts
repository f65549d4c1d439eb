/**
 * What a read may name (include paths, fieldset types and fields, sorts and filters), kept per projection
 * (issue 16). The trees follow the grants through every relation `include` may expand, and building them
 * on every request was a few percent of a small read's CPU. A projection object is kept while its key's
 * grants and the resources are the same objects (services/access.ts), and it is only read, so whatever is
 * derived from it alone can be kept with it: a change of grants or resources makes a new projection, and
 * the old one's trees go with it. The vocabulary also depends on the locales, which are compared by
 * identity (services/locales.ts hands out one list until it reloads).
 */
import type { IncludeTree, QueryVocabulary, RecordTypeTree } from '../query/types';
import type { Resource } from '../registry/types';
import { recordTypeTree } from './fieldset-projection';
import { includeTree, queryVocabulary, type Projection } from './projection';

export type ReadTrees = { include: IncludeTree; records: RecordTypeTree };

const trees = new WeakMap<Projection, ReadTrees>();
const vocabularies = new WeakMap<Projection, { locales: readonly string[] | null; vocabulary: QueryVocabulary }>();

/** The include and record-type trees of reads from `projection`, built once per projection. */
export const readTrees = (projection: Projection, projectTarget: (resource: Resource) => Projection): ReadTrees => {
  let kept = trees.get(projection);
  if (!kept) {
    kept = { include: includeTree(projection, projectTarget), records: recordTypeTree(projection, projectTarget) };
    trees.set(projection, kept);
  }
  return kept;
};

/** The query vocabulary of a collection read from `projection`, built once per projection and locale list. */
export const readVocabulary = (
  projection: Projection,
  projectTarget: (resource: Resource) => Projection,
  locales: readonly string[] | null,
): QueryVocabulary => {
  const kept = vocabularies.get(projection);
  if (kept && kept.locales === locales) return kept.vocabulary;
  const { include, records } = readTrees(projection, projectTarget);
  const vocabulary = queryVocabulary(projection, locales, include, records);
  vocabularies.set(projection, { locales, vocabulary });
  return vocabulary;
};
