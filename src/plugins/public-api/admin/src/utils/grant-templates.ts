/**
 * Starting points for a key's grants, and copying another key's. The templates come from what the
 * registry reports, never from this application's names: a read-only site and full access over the
 * resources it serves, and a form per registered command (that command alone, nothing to read). Each
 * returns a whole new set of grants (the origins are kept: they belong to the site, not to the template). Pure.
 */
import type { AdminKey } from '../../../shared/contracts/keys';
import type { CommandSummary, ResourceSummary } from '../../../shared/contracts/registry';
import type { Draft } from './grants';

export type GrantTemplate = { kind: 'read-only-site' } | { kind: 'full-access' } | { kind: 'form'; command: string };

/** The templates for what the server serves: the two over its resources, then one form per command it knows. */
export const grantTemplates = (commands: CommandSummary[]): GrantTemplate[] => [
  { kind: 'read-only-site' },
  { kind: 'full-access' },
  ...commands.map((command): GrantTemplate => ({ kind: 'form', command: command.name })),
];

/** A stable name for a template: its kind, and the command of a form (`form-<command>`). */
export const templateId = (template: GrantTemplate): string => (template.kind === 'form' ? `form-${template.command}` : template.kind);

const allFields = (resource: ResourceSummary) => resource.fields.map((field) => field.key);

export const applyTemplate = (template: GrantTemplate, draft: Draft, resources: ResourceSummary[], commands: CommandSummary[]): Draft => {
  switch (template.kind) {
    // Every resource read with all its fields, but none that holds personal data; no writes, no commands.
    case 'read-only-site':
      return {
        origins: draft.origins,
        commands: [],
        resources: Object.fromEntries(
          resources
            .filter((resource) => !resource.personalData && resource.actions.includes('read'))
            .map((resource) => [resource.id, { actions: ['read' as const], read: allFields(resource), write: [] }]),
        ),
      };
    case 'full-access':
      return {
        origins: draft.origins,
        commands: commands.map((command) => command.name),
        resources: Object.fromEntries(
          resources.map((resource) => [
            resource.id,
            { actions: [...resource.actions], read: allFields(resource), write: allFields(resource) },
          ]),
        ),
      };
    // A public form: its command alone (while the server still knows it), nothing to read.
    case 'form':
      return {
        origins: draft.origins,
        commands: commands.some((command) => command.name === template.command) ? [template.command] : [],
        resources: {},
      };
  }
};

/** Another key's resources (those that still exist) and commands in place of the form's; the origins stay. */
export const copyGrants = (from: AdminKey, draft: Draft, resources: ResourceSummary[]): Draft => {
  const known = new Set(resources.map((resource) => resource.id));
  return {
    resources: Object.fromEntries(Object.entries(from.grants.resources).filter(([id]) => known.has(id))),
    commands: [...from.grants.commands],
    origins: draft.origins,
  };
};
