/**
 * Which resource a relation leads to, as seen from a resource: a CMS resource's relation leads to the
 * same website's collection of the target content type first, then to the native resource of that
 * type; a native resource's relation leads to the native one. Pure.
 */
import type { Resource } from '../registry/types';
import type { TargetResolver } from './projection';

export const targetResolver = (resources: readonly Resource[]): TargetResolver => {
  const natives = resources.filter((resource) => resource.sourceType === 'native');
  return (from, uid) =>
    (from.sourceType === 'cms'
      ? resources.find(
          (candidate) =>
            candidate.sourceType === 'cms' &&
            candidate.website?.slug === from.website?.slug &&
            candidate.uid === uid &&
            candidate.mode === 'collection',
        )
      : undefined) ??
    natives.find((candidate) => candidate.uid === uid) ??
    null;
};
