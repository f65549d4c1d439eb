/**
 * What a grant means, said before it is saved: a readable relation whose target resource the key may
 * not see is left out by the API (it would only show in the OpenAPI preview), and an action with no
 * field to read or write serves empty records or accepts nothing. Each warning names its one-click fix.
 * Pure.
 */
import type { GrantAction, ResourceSummary } from '../../../shared/contracts/registry';
import { grantOf, type Draft } from './grants';

export type GrantWarning =
  | {
      kind: 'relation-target';
      resource: ResourceSummary;
      field: { key: string; label: string };
      /** The resource the relation leads to; null when the API serves none of its content type. */
      target: ResourceSummary | null;
    }
  | { kind: 'read-no-fields'; resource: ResourceSummary }
  | { kind: 'write-no-fields'; resource: ResourceSummary; action: GrantAction };

const isExposed = (draft: Draft, id: string) => grantOf(draft, id).actions.length > 0;

export const grantWarnings = (draft: Draft, resources: ResourceSummary[]): GrantWarning[] => {
  const byId = new Map(resources.map((resource) => [resource.id, resource]));
  const warnings: GrantWarning[] = [];
  for (const resource of resources) {
    const grant = grantOf(draft, resource.id);
    if (grant.actions.length === 0) continue;
    const reads = grant.actions.includes('read');
    const writes = grant.actions.includes('create') || grant.actions.includes('update');
    if (reads && grant.read.length === 0 && resource.fields.length > 0) warnings.push({ kind: 'read-no-fields', resource });
    if (writes && grant.write.length === 0 && resource.fields.length > 0) {
      const action = grant.actions.includes('create') ? 'create' : 'update';
      warnings.push({ kind: 'write-no-fields', resource, action });
    }
    for (const field of resource.fields) {
      if (field.target === undefined) continue;
      const used = (reads && grant.read.includes(field.key)) || (writes && grant.write.includes(field.key));
      if (!used || (field.target !== null && isExposed(draft, field.target))) continue;
      warnings.push({
        kind: 'relation-target',
        resource,
        field: { key: field.key, label: field.label },
        target: field.target === null ? null : (byId.get(field.target) ?? null),
      });
    }
  }
  return warnings;
};

/** Relation fields of a grant that the API leaves out (their target is not granted): not served, not counted. */
export const hiddenRelations = (draft: Draft, resource: ResourceSummary): Set<string> =>
  new Set(
    resource.fields
      .filter((field) => field.target !== undefined && (field.target === null || !isExposed(draft, field.target)))
      .map((field) => field.key),
  );

/**
 * The fix of a relation's warning: the key reads the target with its fields, leaving out the target's own
 * relations to resources the key does not see (so the fix raises no new warning).
 */
export const grantTargetRead = (draft: Draft, target: ResourceSummary): Draft => {
  const current = grantOf(draft, target.id);
  const hidden = hiddenRelations(draft, target);
  const read = target.fields.map((field) => field.key).filter((key) => !hidden.has(key) || current.read.includes(key));
  const actions = current.actions.includes('read') ? current.actions : [...current.actions, 'read' as const];
  return { ...draft, resources: { ...draft.resources, [target.id]: { ...current, actions, read } } };
};
