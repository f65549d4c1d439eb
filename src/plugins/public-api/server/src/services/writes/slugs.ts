/**
 * The slug of a written record: generated when the write leaves it out, refused when taken in its scope.
 */
import { apiError } from '../../http/errors';
import { echo } from '../../query/problems';
import { getService } from '../../utils/get-service';
import { attributePointer } from '../../write/pointer';
import type { SlugScope } from '../slugs';
import type { WriteTarget } from './target';

/**
 * Which records a slug of this write must differ from: those of the locale and, for a website-scoped
 * resource, of the path's website only (contract section 1), so that no answer says anything about
 * another website's records.
 */
const slugScope = (target: WriteTarget, exceptDocumentId: string | null): SlugScope => {
  const resource = target.projection.resource;
  return {
    locale: target.locale,
    exceptDocumentId,
    ...(resource.scopeAttribute && resource.website ? { website: { attribute: resource.scopeAttribute, id: resource.website.id } } : {}),
  };
};

/**
 * Sets `data[slug]`: generated when the write leaves it out (create) or sends null, refused with 409
 * when another record of the scope publishes the one sent. Under the lock of the slug value (the one sent,
 * or the candidate generated), which the document service middleware takes too, so that two writers
 * cannot both take one slug; writers of other slugs of the type do not wait (issue 34).
 */
export const applySlug = async (
  target: WriteTarget,
  data: Record<string, unknown>,
  current: { documentId: string; values: Record<string, unknown> } | null,
) => {
  const resource = target.projection.resource;
  const attribute = resource.slugAttribute;
  if (!attribute) return;
  const sent = Object.prototype.hasOwnProperty.call(data, attribute);
  if (current && !sent) return;
  const slugs = getService('slugs');
  await slugs.lockTypeOnSnapshotDatabases(resource.uid);
  const scope = slugScope(target, current?.documentId ?? null);
  const slug = data[attribute];
  if (typeof slug === 'string' && slug !== '') {
    if (await slugs.taken(resource.uid, attribute, slug, scope)) {
      throw apiError(409, `Another ${resource.slug} record already uses the slug ${echo(slug)}.`, {
        source: { pointer: attributePointer(attribute) },
        reason: 'duplicate_slug',
      });
    }
    return;
  }
  const targetField = slugs.sourceFieldOf(resource.uid, attribute);
  const source = targetField
    ? Object.prototype.hasOwnProperty.call(data, targetField)
      ? data[targetField]
      : current?.values[targetField]
    : undefined;
  data[attribute] = await slugs.generate(resource.uid, attribute, source, scope);
};
