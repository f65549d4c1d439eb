/**
 * Sparse fieldsets seen from the grants (contract section 14): what `fields[type]` may name on a read,
 * and the part of a projection a read shows once its fieldsets are applied. Pure.
 *
 * A fieldset only ever narrows a projection: what it shows is a subset of the readable fields, so a
 * fieldset cannot bring back a field the grants leave out.
 */
import type { Fieldsets, IncludeSpec, RecordTypeTree } from '../query/types';
import type { Resource } from '../registry/types';
import type { Projection } from './projection';

/**
 * The types and readable fields of the records a read from `projection` can return, through the
 * relations `include` may expand (as `includeTree`). Nodes are shared per resource, so cycles stay finite.
 */
export const recordTypeTree = (projection: Projection, projectTarget: (resource: Resource) => Projection): RecordTypeTree => {
  const nodes = new Map<string, RecordTypeTree>();
  const build = (current: Projection): RecordTypeTree => {
    const existing = nodes.get(current.resource.id);
    if (existing) return existing;
    const include = new Map<string, RecordTypeTree>();
    const node: RecordTypeTree = { type: current.resource.slug, fields: new Set(current.readable.map((field) => field.key)), include };
    nodes.set(current.resource.id, node);
    for (const meta of current.fields) {
      if (meta.expandable) include.set(meta.key, build(projectTarget(current.targets.get(meta.key)!)));
    }
    // A path through a component field reaches the records its components' relations expand; the step
    // through the component is a node of the owner's own type (components are shown whole, no fieldset).
    for (const field of current.readable) {
      const through = new Map<string, RecordTypeTree>();
      for (const component of field.components ?? []) {
        const inner = current.components.get(component.uid);
        if (!inner) continue;
        for (const [key, next] of build(inner).include) if (!through.has(key)) through.set(key, next);
      }
      if (through.size) include.set(field.key, { type: node.type, fields: node.fields, include: through });
    }
    return node;
  };
  return build(projection);
};

/**
 * What records of `projection` show at one level of a read: the fields its type's fieldset names, plus
 * the relations `include` expands there (an expanded record sits in its relation field, so including a
 * relation shows it); every readable field when the type has no fieldset. The field metadata is cut
 * the same way. Targets are kept: filters, sorting and expansion still reach every readable relation.
 */
export const shownProjection = (projection: Projection, fieldsets: Fieldsets, include: readonly IncludeSpec[]): Projection => {
  const names = fieldsets.get(projection.resource.slug);
  if (!names) return projection;
  const shown = (key: string) => names.has(key) || include.some((spec) => spec.field === key);
  return {
    ...projection,
    readable: projection.readable.filter((field) => shown(field.key)),
    fields: projection.fields.filter((meta) => meta.readable && shown(meta.key)),
  };
};
