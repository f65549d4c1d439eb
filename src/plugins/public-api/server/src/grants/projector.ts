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
