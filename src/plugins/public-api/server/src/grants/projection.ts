/**
 * What one key sees of one resource: the readable and writable fields, the resources its relations
 * lead to, the field metadata, and the query vocabulary (sort, filter, include). Pure.
 *
 * Everything that leaves the server is cut from a projection, so a field the key may not read cannot
 * appear in records, expanded relations, field metadata, errors or orderings.
 */
import { SYSTEM_FILTER_TARGETS, SYSTEM_SORT_KEYS, hasSystemKey } from '../fields/system-keys';
import { codecOf, filterTargetOf, isSortableField, isStoredIn, isWritableType } from '../fields/table';
import type { FilterTarget, IncludeTree, QueryVocabulary, RecordTypeTree, SortTerm } from '../query/types';
import type { ComponentSchema, Field, Resource } from '../registry/types';
import type { Action, KeyGrants, ResourceGrant } from './types';

export type FieldMeta = {
  key: string;
  label: string;
  type: Field['type'];
  required: boolean;
  readable: boolean;
  writable: boolean;
  inlineEditable: boolean;
  sortable: boolean;
  expandable: boolean;
  filterable: boolean;
  options?: { value: string; label: string }[];
  allowedTypes?: string[];
  /** Component fields: the components a value's items may be (`<category>.<name>`), in the schema's order. */
  components?: string[];
};

/** Finds the resource a relation leads to, as seen from a resource (same website first, then native). */
export type TargetResolver = (from: Resource, targetUid: string) => Resource | null;

export type Projection = {
  resource: Resource;
  grant: ResourceGrant;
  /** Readable fields in schema order; relations only when their target is exposed to the key. */
  readable: Field[];
  writable: Field[];
  /** Target resource of every visible relation field (readable or writable). */
  targets: Map<string, Resource>;
  fields: FieldMeta[];
  /**
   * What the key sees of each component its readable component fields reach (nested ones too), by
   * component uid: a projection of the component's fields, relations resolved from this resource and
   * left out where their target is not exposed. Shared by the whole tree of one resource's projection.
   */
  components: ReadonlyMap<string, Projection>;
};

const NO_GRANT: ResourceGrant = { actions: [], read: [], write: [] };

export const grantOf = (grants: KeyGrants, resourceId: string): ResourceGrant => grants.resources[resourceId] ?? NO_GRANT;

export const allows = (grants: KeyGrants, resourceId: string, action: Action): boolean =>
  grantOf(grants, resourceId).actions.includes(action);

/** Whether the key may create, update or delete records of a resource (a key that may write none has no atomic operations). */
export const mayWrite = (grants: KeyGrants, resourceId: string): boolean =>
  grantOf(grants, resourceId).actions.some((action) => action !== 'read');

/** A resource is exposed to a key when the key holds any action on it. */
export const isExposed = (grants: KeyGrants, resourceId: string): boolean => grantOf(grants, resourceId).actions.length > 0;

/**
 * A component seen as a resource of its own, so that the read path and the serializers treat its rows as
 * records' (its table, its relations, its files): the owner's website (relations resolve from it), the
 * component's uid and fields, and nothing of a resource's system values.
 */
export const componentResource = (owner: Resource, component: ComponentSchema): Resource => ({
  id: `${owner.id}#${component.uid}`,
  sourceType: owner.sourceType,
  slug: component.uid,
  name: component.label,
  mode: 'collection',
  ...(owner.website ? { website: owner.website } : {}),
  uid: component.uid,
  kind: 'collectionType',
  localized: false,
  draftAndPublish: false,
  identifiers: [],
  deleteMode: 'remove',
  fields: component.fields,
});

/** Whether a relation field of `resource` leads to a resource exposed to the key; its target, if so. */
const exposedTarget = (grants: KeyGrants, resource: Resource, field: Field, resolveTarget: TargetResolver): Resource | null => {
  const target = field.target ? resolveTarget(resource, field.target) : null;
  return target && isExposed(grants, target.id) ? target : null;
};

/**
 * The projections of the components `fields` reach, nested ones too, into `into` (by uid): every field of
 * a component is readable with its top-level field (grants apply to that field as a whole), but a
 * relation whose target is not exposed to the key, which is left out as at top level.
 */
const projectComponents = (
  grants: KeyGrants,
  owner: Resource,
  fields: readonly Field[],
  resolveTarget: TargetResolver,
  into: Map<string, Projection>,
): void => {
  for (const field of fields) {
    for (const component of field.components ?? []) {
      if (into.has(component.uid)) continue;
      const resource = componentResource(owner, component);
      const targets = new Map<string, Resource>();
      const readable = component.fields.filter((inner) => {
        if (!isStoredIn(inner, 'relation')) return true;
        const target = exposedTarget(grants, resource, inner, resolveTarget);
        if (target) targets.set(inner.key, target);
        return target !== null;
      });
      const projection: Projection = {
        resource,
        grant: { actions: ['read'], read: readable.map((inner) => inner.key), write: [] },
        readable,
        writable: [],
        targets,
        fields: readable.map((inner) => fieldMetaOf(grants, inner, true, false, targets.get(inner.key))),
        components: into,
      };
      into.set(component.uid, projection);
      projectComponents(grants, owner, readable, resolveTarget, into);
    }
  }
};

const fieldMetaOf = (
  grants: KeyGrants,
  field: Field,
  isReadable: boolean,
  isWritable: boolean,
  target: Resource | undefined,
): FieldMeta => {
  const meta: FieldMeta = {
    key: field.key,
    label: field.label,
    type: field.type,
    required: field.required,
    readable: isReadable,
    writable: isWritable,
    inlineEditable: isWritable && codecOf(field).scalar,
    sortable: isReadable && isSortableField(field),
    expandable: isReadable && target !== undefined && allows(grants, target.id, 'read'),
    filterable: isReadable && filterTargetOf(field) !== null,
  };
  if (field.options) meta.options = field.options.map((option) => ({ ...option }));
  if (isStoredIn(field, 'media') && field.allowedTypes) meta.allowedTypes = [...field.allowedTypes];
  if (field.components) meta.components = field.components.map((component) => component.uid);
  return meta;
};

/**
 * Whether the key sees every field of every component a field's value may hold, nested ones too (true for
 * fields that hold no components). A write replaces a component field whole, so a key that cannot see a
 * relation inside it (its target is not exposed) would drop links it was never shown: such a field is not
 * writable with that key, whatever its grant says (docs/api.md, Writing components and dynamic zones).
 */
const showsWhole = (grants: KeyGrants, owner: Resource, field: Field, resolveTarget: TargetResolver, seen = new Set<string>()): boolean =>
  (field.components ?? []).every((component) => {
    if (seen.has(component.uid)) return true;
    seen.add(component.uid);
    const resource = componentResource(owner, component);
    return component.fields.every(
      (inner) =>
        (!isStoredIn(inner, 'relation') || exposedTarget(grants, resource, inner, resolveTarget) !== null) &&
        showsWhole(grants, owner, inner, resolveTarget, seen),
    );
  });

export const project = (grants: KeyGrants, resource: Resource, resolveTarget: TargetResolver): Projection => {
  const grant = grantOf(grants, resource.id);
  const canRead = grant.actions.includes('read');
  const readNames = new Set(canRead ? grant.read : []);
  const writeNames = new Set(grant.actions.includes('create') || grant.actions.includes('update') ? grant.write : []);
  const targets = new Map<string, Resource>();

  const visible = (field: Field): boolean => {
    if (!isStoredIn(field, 'relation')) return true;
    const target = exposedTarget(grants, resource, field, resolveTarget);
    if (!target) return false;
    targets.set(field.key, target);
    return true;
  };

  const readable: Field[] = [];
  const writable: Field[] = [];
  const fields: FieldMeta[] = [];
  for (const field of resource.fields) {
    const isReadable = readNames.has(field.key);
    const isWritable = writeNames.has(field.key) && isWritableType(field) && showsWhole(grants, resource, field, resolveTarget);
    if ((!isReadable && !isWritable) || !visible(field)) continue;
    if (isReadable) readable.push(field);
    if (isWritable) writable.push(field);
    fields.push(fieldMetaOf(grants, field, isReadable, isWritable, targets.get(field.key)));
  }
  const components = new Map<string, Projection>();
  // Written component fields need their components' projections too (write/attributes.ts judges by them).
  projectComponents(grants, resource, [...new Set([...readable, ...writable])], resolveTarget, components);
  return { resource, grant, readable, writable, targets, fields, components };
};

/**
 * Whether `locale` means something on this resource for this key: it is localized, or one of its visible
 * relations leads to a localized resource (whose records it then shows in that locale). Only such
 * resources check the parameter and describe it; the others accept and ignore it.
 */
export const takesLocale = (projection: Projection): boolean =>
  projection.resource.localized || [...projection.targets.values()].some((target) => target.localized);

/** The system sort keys a resource really has (`sort` and `slug` only where the schema has them). */
export const systemSortKeys = (resource: Resource): string[] => SYSTEM_SORT_KEYS.filter((key) => hasSystemKey(resource, key));

export const defaultSort = (resource: Resource): SortTerm[] => (resource.sortAttribute ? [{ key: 'sort', direction: 'asc' }] : []);

/**
 * What `include` may expand from a projection: expandable relations, recursively through the grants of
 * each target. Maps are shared per resource, so cycles (events -> festival -> events) stay finite.
 */
export const includeTree = (projection: Projection, projectTarget: (resource: Resource) => Projection): IncludeTree => {
  const trees = new Map<string, Map<string, IncludeTree>>();
  const build = (current: Projection): Map<string, IncludeTree> => {
    const existing = trees.get(current.resource.id);
    if (existing) return existing;
    const tree = new Map<string, IncludeTree>();
    trees.set(current.resource.id, tree);
    for (const meta of current.fields) {
      if (meta.expandable) tree.set(meta.key, build(projectTarget(current.targets.get(meta.key)!)));
    }
    for (const field of current.readable) {
      const through = throughComponents(current, field, build);
      if (through.size) tree.set(field.key, through);
    }
    return tree;
  };
  return build(projection);
};

/**
 * What a path may go on with through a component field (contract section 15: `sections.events`): the
 * include trees of its components, merged (a dynamic zone's components side by side). Empty for fields
 * that are not components, and for components with nothing to expand.
 */
const throughComponents = (
  owner: Projection,
  field: Field,
  build: (component: Projection) => ReadonlyMap<string, IncludeTree>,
): Map<string, IncludeTree> & { throughComponent: true } => {
  const merged = Object.assign(new Map<string, IncludeTree>(), { throughComponent: true as const });
  for (const component of field.components ?? []) {
    const projection = owner.components.get(component.uid);
    if (!projection) continue;
    for (const [key, next] of build(projection)) if (!merged.has(key)) merged.set(key, next);
  }
  return merged;
};

export const queryVocabulary = (
  projection: Projection,
  locales: readonly string[] | null,
  include: IncludeTree,
  records: RecordTypeTree,
): QueryVocabulary => {
  const sortable = new Set<string>(systemSortKeys(projection.resource));
  const filterable = new Map<string, FilterTarget>();
  for (const [key, target] of SYSTEM_FILTER_TARGETS) {
    if (hasSystemKey(projection.resource, key)) filterable.set(key, target);
  }
  for (const field of projection.readable) {
    if (isSortableField(field)) sortable.add(field.key);
    const target = filterTargetOf(field);
    if (target) filterable.set(field.key, target);
  }
  return {
    sortable,
    filterable,
    include,
    records,
    locales: takesLocale(projection) ? locales : null,
    defaultSort: defaultSort(projection.resource),
  };
};
