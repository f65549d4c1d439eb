/**
 * What an `include` reaches before a record of it is loaded (handlers/reads.ts prices it, read/expansion.ts
 * bounds it): the ids each node of the include tree reaches from a page's rows, level by level.
 */
import type { Projection } from '../grants/projection';
import type { IncludeSpec } from '../query/types';
import { isStoredIn } from '../fields/table';
import { shownReferences } from '../fields/types/relation';
import { readAll } from '../database/connection';
import type { TargetRef } from '../serialize/rows';
import { componentSpecs } from './component-include';
import { reachOf, type Reach } from './expansion';
import type { LoadContext } from './load';

/**
 * The reach of every node of the include tree from the given rows, level by level, ids only: one query
 * per included field and level, and not one included record loaded. Feeds read/expansion.ts.
 */
export const includeReaches = async (
  context: LoadContext,
  projection: Projection,
  rowIds: readonly number[],
  include: readonly IncludeSpec[],
): Promise<Reach[]> => {
  const reaches: Reach[] = [];
  const walk = async (owner: Projection, owners: ReadonlyMap<number, number>, specs: readonly IncludeSpec[]): Promise<void> => {
    const fields = specs.filter((spec) => owner.targets.has(spec.field)).map((spec) => spec.field);
    if (owners.size === 0) return;
    await walkComponents(owner, owners, specs);
    if (fields.length === 0) return;
    const references = await context.source.relations(owner, [...owners.keys()], fields, context.language, context.fallback);
    await readAll(
      specs.map((spec) => async () => {
        const target = owner.targets.get(spec.field);
        if (!target) return;
        const shown = new Map(
          [...(references.get(spec.field) ?? new Map<number, TargetRef[]>())].map(([id, refs]) => [id, shownReferences(refs)]),
        );
        const reach = reachOf(owners, shown);
        reaches.push(reach);
        await walk(context.projectionOf(target), reach, spec.include);
      }),
    );
  };
  /** Paths through component fields: each component row stands at its owner's position, and the walk goes on inside it. */
  const walkComponents = async (owner: Projection, owners: ReadonlyMap<number, number>, specs: readonly IncludeSpec[]) => {
    const fields = owner.readable.filter((field) => isStoredIn(field, 'component') && specs.some((spec) => spec.field === field.key));
    if (fields.length === 0) return;
    const links = await context.source.componentLinks(owner.resource.uid, [...owners.keys()], fields);
    const positions = new Map<string, Map<number, number>>();
    for (const byOwner of links.values()) {
      for (const [ownerId, list] of byOwner) {
        const position = owners.get(ownerId)!;
        for (const link of list) {
          let byRow = positions.get(link.component);
          if (!byRow) positions.set(link.component, (byRow = new Map()));
          byRow.set(link.rowId, Math.min(position, byRow.get(link.rowId) ?? position));
        }
      }
    }
    await readAll(
      [...positions].map(([uid, byRow]) => async () => {
        const component = owner.components.get(uid);
        if (component) await walk(component, byRow, componentSpecs(fields, uid, specs));
      }),
    );
  };
  if (include.length) await walk(projection, new Map(rowIds.map((id, position) => [id, position])), include);
  return reaches;
};
