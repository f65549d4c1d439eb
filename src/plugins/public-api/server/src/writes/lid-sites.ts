/**
 * Where a lid (an atomic operation's local id, write/local-ids.ts) may stand in a write's attributes:
 * the relation fields the key may write, and the relations inside the component fields it may write
 * (each component's as the record's resource sees it).
 */
import type { Projection } from '../grants/projection';
import { isComponentField, isRelationField } from '../fields/items';
import type { Field } from '../registry/types';
import type { ComponentSites, LidSites, RelationTarget } from '../write/local-ids';

/** The relation fields of `fields`, with the resource each refers to as `projection` sees it. */
const relationTargets = (projection: Projection, fields: readonly Field[]): RelationTarget[] =>
  fields.flatMap((field) => {
    const target = projection.targets.get(field.key);
    return isRelationField(field) && target ? [{ key: field.key, resourceId: target.id }] : [];
  });

export const lidSites = (projection: Projection): LidSites => {
  const inside = new Map<string, LidSites>();
  const componentSites = (fields: readonly Field[]): ComponentSites[] =>
    fields.flatMap((field) =>
      isComponentField(field)
        ? [
            {
              key: field.key,
              type: field.type,
              components: new Map((field.components ?? []).map((component) => [component.uid, sitesOf(component.uid)])),
            },
          ]
        : [],
    );
  const sitesOf = (uid: string): LidSites => {
    const known = inside.get(uid);
    if (known) return known;
    const seen = projection.components.get(uid);
    const sites: LidSites = { relations: seen ? relationTargets(seen, seen.readable) : [], components: [] };
    inside.set(uid, sites);
    return Object.assign(sites, { components: seen ? componentSites(seen.readable) : [] });
  };
  return { relations: relationTargets(projection, projection.writable), components: componentSites(projection.writable) };
};

/** Lid sites by projection, worked out once per resource and action of a request, not per operation. */
export const createLidSites = () => {
  const known = new WeakMap<Projection, LidSites>();
  return (projection: Projection): LidSites => {
    let sites = known.get(projection);
    if (!sites) known.set(projection, (sites = lidSites(projection)));
    return sites;
  };
};
