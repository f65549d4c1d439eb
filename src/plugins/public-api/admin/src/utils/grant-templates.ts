/**
 * Starting points for a key's grants, and copying another key's. Each returns a whole new set of grants
 * (the origins are kept: they belong to the site, not to the template). Pure.
 */
import type { AdminKey } from '../../../shared/contracts/keys';
import type { CommandSummary, ResourceSummary } from '../../../shared/contracts/registry';
import type { Draft } from './grants';

export const TEMPLATES = ['read-only-site', 'full-access', 'newsletter-form'] as const;
export type GrantTemplate = (typeof TEMPLATES)[number];

const NEWSLETTER_COMMAND = 'newsletter-signup';

const allFields = (resource: ResourceSummary) => resource.fields.map((field) => field.key);

export const applyTemplate = (template: GrantTemplate, draft: Draft, resources: ResourceSummary[], commands: CommandSummary[]): Draft => {
  switch (template) {
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
    // A sign-up form: the newsletter command alone, nothing to read.
    case 'newsletter-form':
      return {
        origins: draft.origins,
        commands: commands.some((command) => command.name === NEWSLETTER_COMMAND) ? [NEWSLETTER_COMMAND] : [],
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
