/**
 * The grant editor's state and how it changes. Pure: every function takes grants and returns new ones.
 */
import type { GrantsInput, KeyGrants, ResourceGrant } from '../../../shared/contracts/keys';
import type { CommandSummary, GrantAction, ResourceSummary } from '../../../shared/contracts/registry';

export type Draft = KeyGrants;

export const EMPTY_GRANTS: Draft = { resources: {}, commands: [], origins: [] };

const EMPTY_GRANT: ResourceGrant = { actions: [], read: [], write: [] };

export const grantOf = (draft: Draft, resourceId: string): ResourceGrant => draft.resources[resourceId] ?? EMPTY_GRANT;

const withGrant = (draft: Draft, resourceId: string, grant: ResourceGrant): Draft => {
  const resources = { ...draft.resources };
  if (grant.actions.length === 0 && grant.read.length === 0 && grant.write.length === 0) delete resources[resourceId];
  else resources[resourceId] = grant;
  return { ...draft, resources };
};

const toggled = <T>(list: T[], item: T, on: boolean): T[] =>
  on ? (list.includes(item) ? list : [...list, item]) : list.filter((x) => x !== item);

/**
 * Ticking Read on a resource with no readable field makes every field readable (Read alone would serve
 * records with empty attributes); unticking it drops the readable fields with it.
 */
export const setAction = (draft: Draft, resource: ResourceSummary, action: GrantAction, on: boolean): Draft => {
  const grant = grantOf(draft, resource.id);
  const next = { ...grant, actions: toggled(grant.actions, action, on) };
  if (action === 'read' && on && grant.read.length === 0) next.read = resource.fields.map((field) => field.key);
  if (action === 'read' && !on) next.read = [];
  return withGrant(draft, resource.id, orderFields(next, resource));
};

/** Read on a resource with all its fields: the "all fields" shortcut. */
export const readAllFields = (draft: Draft, resource: ResourceSummary): Draft => setAllFields(draft, resource, 'read', true);

/** Making a field readable also grants `read`: a readable field is useless without it. */
export const setField = (draft: Draft, resource: ResourceSummary, field: string, kind: 'read' | 'write', on: boolean): Draft => {
  const grant = grantOf(draft, resource.id);
  const next = { ...grant, [kind]: toggled(grant[kind], field, on) };
  if (kind === 'read' && on) next.actions = toggled(next.actions, 'read', true);
  return withGrant(draft, resource.id, orderFields(next, resource));
};

/** Select all / none of a column. */
export const setAllFields = (draft: Draft, resource: ResourceSummary, kind: 'read' | 'write', on: boolean): Draft => {
  const grant = grantOf(draft, resource.id);
  const next = { ...grant, [kind]: on ? resource.fields.map((field) => field.key) : [] };
  if (kind === 'read' && on) next.actions = toggled(next.actions, 'read', true);
  return withGrant(draft, resource.id, orderFields(next, resource));
};

/** Field lists in the resource's own order, so saved grants read like the schema. */
const orderFields = (grant: ResourceGrant, resource: ResourceSummary): ResourceGrant => {
  const order = new Map(resource.fields.map((field, index) => [field.key, index]));
  const sort = (list: string[]) => [...list].sort((a, b) => (order.get(a) ?? 1e9) - (order.get(b) ?? 1e9));
  return { ...grant, read: sort(grant.read), write: sort(grant.write) };
};

export const columnState = (grant: ResourceGrant, resource: ResourceSummary, kind: 'read' | 'write'): boolean | 'indeterminate' => {
  const count = resource.fields.filter((field) => grant[kind].includes(field.key)).length;
  if (count === 0) return false;
  return count === resource.fields.length ? true : 'indeterminate';
};

export const setCommand = (draft: Draft, command: string, on: boolean): Draft => ({
  ...draft,
  commands: toggled(draft.commands, command, on),
});

export const setOrigins = (draft: Draft, origins: string[]): Draft => ({ ...draft, origins });

/** Grants on resources that no longer exist (a publication or website was removed). */
export const danglingResources = (draft: Draft, resources: ResourceSummary[]): string[] => {
  const known = new Set(resources.map((resource) => resource.id));
  return Object.keys(draft.resources).filter((id) => !known.has(id));
};

/** Grants of commands the application no longer registers: dropped on save, as removed resources' are. */
export const danglingCommands = (draft: Draft, commands: CommandSummary[]): string[] => {
  const known = new Set(commands.map((command) => command.name));
  return draft.commands.filter((name) => !known.has(name));
};

/** What the form sends: known resources and commands only, and no empty origin rows. */
export const toInput = (draft: Draft, resources: ResourceSummary[], commands: CommandSummary[]): GrantsInput => {
  const known = new Set(resources.map((resource) => resource.id));
  const knownCommands = new Set(commands.map((command) => command.name));
  return {
    resources: Object.fromEntries(Object.entries(draft.resources).filter(([id]) => known.has(id))),
    commands: draft.commands.filter((name) => knownCommands.has(name)),
    origins: draft.origins.filter((origin) => origin.trim() !== ''),
  };
};

/** Maps an origin's index in the draft to its index in what was sent (blank rows are not sent). */
export const sentOriginIndex = (origins: string[]): Map<number, number> => {
  const map = new Map<number, number>();
  let sent = 0;
  origins.forEach((origin, index) => {
    if (origin.trim() !== '') {
      map.set(sent, index);
      sent += 1;
    }
  });
  return map;
};

export const isGranted = (grant: ResourceGrant): boolean => grant.actions.length > 0;

export const sameGrants = (a: Draft, b: Draft): boolean => JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));

const normalize = (draft: Draft) => ({
  resources: Object.keys(draft.resources)
    .sort()
    .map((id) => [
      id,
      [...draft.resources[id]!.actions].sort(),
      [...draft.resources[id]!.read].sort(),
      [...draft.resources[id]!.write].sort(),
    ]),
  commands: [...draft.commands].sort(),
  origins: draft.origins.filter((origin) => origin.trim() !== ''),
});
