/**
 * What a grant means, said before it is saved: a readable relation whose target resource the key may
 * not see is left out by the API (it would only show in the OpenAPI preview), an action with no
 * field to read or write serves empty records or accepts nothing, and Create without a required field
 * the server does not fill in is refused 422 every time. Each warning names its one-click fix. Pure.
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
  | { kind: 'write-no-fields'; resource: ResourceSummary; action: GrantAction }
  | {
      kind: 'create-required-not-writable';
      resource: ResourceSummary;
      /** Required fields a create must send (the server fills none of them in) that the key may not write. */
      fields: { key: string; label: string }[];
    };

/** The fields a create must send: required, and not filled in by the server (a default, a slug). */
const mustSendOnCreate = (resource: ResourceSummary) => resource.fields.filter((field) => field.required && !field.filledIn);

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
    if (grant.actions.includes('create') && grant.write.length > 0) {
      const missing = mustSendOnCreate(resource).filter((field) => !grant.write.includes(field.key));
      if (missing.length > 0)
        warnings.push({
          kind: 'create-required-not-writable',
          resource,
          fields: missing.map((field) => ({ key: field.key, label: field.label })),
        });
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

/** The fix of a required field's warning: the key may write every field a create must send. */
export const grantRequiredWrites = (draft: Draft, resource: ResourceSummary): Draft => {
  const current = grantOf(draft, resource.id);
  const order = new Map(resource.fields.map((field, index) => [field.key, index]));
  const write = [...new Set([...current.write, ...mustSendOnCreate(resource).map((field) => field.key)])].sort(
    (a, b) => (order.get(a) ?? Number.MAX_SAFE_INTEGER) - (order.get(b) ?? Number.MAX_SAFE_INTEGER),
  );
  return { ...draft, resources: { ...draft.resources, [resource.id]: { ...current, write } } };
};
