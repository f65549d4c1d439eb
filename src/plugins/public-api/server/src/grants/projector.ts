/**
 * The key's projections of the resources a request (or an OpenAPI document) can reach, each computed
 * once: relations lead among `resources` (`targets.ts`). Pure.
 */
import type { Resource } from '../registry/types';
import { project, type Projection } from './projection';
import { targetResolver } from './targets';
import type { KeyGrants } from './types';

export type Projector = (resource: Resource) => Projection;

export const projector = (grants: KeyGrants, resources: readonly Resource[]): Projector => {
  const resolveTarget = targetResolver(resources);
  const projections = new Map<string, Projection>();
  return (resource) => {
    let projection = projections.get(resource.id);
    if (!projection) {
      projection = project(grants, resource, resolveTarget);
      projections.set(resource.id, projection);
    }
    return projection;
  };
};

/**
 * The projector of `grants` over the native resources and `siblings` (a website's resources), the same
 * one for as long as all three are the same objects (issue 16: a key's projections were computed again on
 * every request). Nothing is keyed by name or version: a key row whose grants read differently gives new
 * grants (services/keys.ts), a changed website new siblings (services/resources.ts), so the next request
 * projects afresh; entries go with the objects they are keyed by. Projections are shared by the requests
 * that use them and never changed after they are made.
 */
const projectors = new WeakMap<KeyGrants, WeakMap<readonly Resource[], WeakMap<readonly Resource[], Projector>>>();

export const sharedProjector = (grants: KeyGrants, native: readonly Resource[], siblings: readonly Resource[]): Projector => {
  let byNative = projectors.get(grants);
  if (!byNative) projectors.set(grants, (byNative = new WeakMap()));
  let bySiblings = byNative.get(native);
  if (!bySiblings) byNative.set(native, (bySiblings = new WeakMap()));
  let made = bySiblings.get(siblings);
  if (!made) bySiblings.set(siblings, (made = projector(grants, [...native, ...siblings])));
  return made;
};
