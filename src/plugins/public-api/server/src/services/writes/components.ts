/**
 * The references inside a write's component values (contract section 15): each relation resolved as at
 * the top (records this key may read, in the write's language), or a 422 problem per reference that
 * names none. The component values are new rows, so a relation inside is given whole (`set`), in order.
 */
import { allows } from '../../grants/projection';
import { errorObject, type ErrorObject } from '../../http/errors';
import type { PlannedMember } from '../../fields/codec';
import type { Resource } from '../../registry/types';
import { getService } from '../../utils/get-service';
import type { NestedMember } from '../../write/component-data';
import { listTargets, resolver } from './references';
import { targetLocale, type WriteTarget } from './target';

/** The value Strapi is given for each relation inside the component values, by planned member. */
export const resolveNestedRelations = async (
  target: WriteTarget,
  nested: readonly NestedMember[],
  problems: ErrorObject[],
): Promise<Map<PlannedMember, unknown>> => {
  const values = new Map<PlannedMember, unknown>();
  const byTarget = new Map<Resource, PlannedMember[]>();
  for (const { member, component } of nested) {
    if (member.planned.kind !== 'relation') continue;
    // The plan only holds relations whose target the key sees (fields/types/component-input.ts).
    const resource = target.projection.components.get(component)?.targets.get(member.field.key);
    if (!resource) throw new Error(`${component}.${member.field.key} was planned without a target resource.`);
    if (member.planned.refs.length > 0 && !allows(target.key.grants, resource.id, 'read')) {
      problems.push(
        errorObject(422, `'${member.field.key}' refers to ${resource.slug} records, which this key may not read.`, {
          source: { pointer: member.pointer },
          reason: 'target_not_readable',
        }),
      );
      continue;
    }
    byTarget.set(resource, [...(byTarget.get(resource) ?? []), member]);
  }
  // One lookup per target resource, whatever the number of component values.
  for (const [resource, members] of byTarget) {
    const locale = targetLocale(target, resource);
    const named = [
      ...new Set(members.flatMap((member) => (member.planned.kind === 'relation' ? member.planned.refs : []).map((ref) => ref.value))),
    ];
    const resolve = resolver(resource, await getService('records').identify(resource, named, { locale }), problems);
    for (const member of members) {
      const refs = member.planned.kind === 'relation' ? member.planned.refs : [];
      const documentIds = listTargets(resource, refs, resolve, problems);
      values.set(member, { set: documentIds.map((documentId) => (locale ? { documentId, locale } : { documentId })) });
    }
  }
  return values;
};
