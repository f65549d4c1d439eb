/**
 * Whether an admin may give a key, or a website, what it would hold: only what the admin may do
 * themselves in the Content Manager (contract section 18), asked of Strapi's own permission engine, the
 * ability the admin's session carries (`ctx.state.userAbility`), as the Content Manager asks it
 * (@strapi/content-manager's permission-checker: the action or one of its aliases, with the field).
 *
 * A key reads every record of a resource, so only a permission that covers every record counts: one
 * with conditions (`is creator`, a custom condition, a subset of the locales) does not. Super admins
 * hold every permission and are not asked. The needs themselves are pure (grants/content-manager.ts).
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import { CONTENT_MANAGER_REFUSAL } from '../../../shared/contracts/content-manager-access';
import type { Publication } from '../registry/build';
import {
  coversEveryRecord,
  notAllowed,
  issuesOf,
  judge,
  needsOf,
  publicationNeed,
  type Allows,
  type ContentManagerAction,
  type KeyHoldings,
  type Need,
} from '../grants/content-manager';
import type { GrantIssue } from '../grants/resolve';
import type { Resource } from '../registry/types';
import { getService } from '../utils/get-service';

/** What the admin routes' session state holds: the admin user and their CASL ability. */
export type AdminState = { user?: unknown; userAbility?: unknown };

type Rule = { inverted?: boolean; conditions?: unknown };
type Ability = { rulesFor: (action: string, subject: string, field?: string) => Rule[] };
type ActionProvider = { unstable_aliases: (actionId: string, subject: string) => { actionId: string }[] };

/** An admin as the checks see them: a super admin, or what the Content Manager allows them. */
export type Admin = { superAdmin: true } | { superAdmin: false; allows: Allows };

/**
 * A refusal the admin page shows: one message, and one issue per place of the form it concerns. A
 * PolicyError, as Strapi's route layer lets only that kind of 403 through with its message and details
 * (any other ForbiddenError becomes a bare "Forbidden").
 */
export class ContentManagerRefusal extends errors.PolicyError {
  constructor(
    message: string,
    public readonly issues: GrantIssue[],
  ) {
    super(message, {
      reason: CONTENT_MANAGER_REFUSAL,
      errors: issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, name: 'PolicyError' })),
    });
  }
}

const GRANT_REFUSAL = 'You may grant, publish or preview only what you may do yourself in the Content Manager.';
const ACT_AS_REFUSAL =
  'This key holds what you may not do yourself in the Content Manager: only an admin who may may take its secret or send what it reads elsewhere.';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  /** Content Manager field paths by content type; the schema does not change while the process runs. */
  const fieldPaths = new Map<string, readonly string[]>();
  const pathsOfType = (uid: string): readonly string[] => {
    let paths = fieldPaths.get(uid);
    if (!paths) {
      const service = strapi.service('admin::content-type') as unknown as {
        getNestedFields: (model: unknown, options: { components: unknown }) => string[];
      };
      paths = service.getNestedFields(strapi.contentTypes[uid as keyof typeof strapi.contentTypes], { components: strapi.components });
      fieldPaths.set(uid, paths);
    }
    return paths;
  };
  /** A field's paths as the Content Manager's permissions name them: itself, or every path inside a component. */
  const pathsOf = (resource: Resource, field: string): readonly string[] => {
    const inside = pathsOfType(resource.uid).filter((path) => path === field || path.startsWith(`${field}.`));
    return inside.length ? inside : [field];
  };

  const needsOfHoldings = async (holdings: KeyHoldings): Promise<Need[]> => {
    const byId = new Map((await getService('resources').all()).map((resource) => [resource.id, resource]));
    return needsOf(holdings, (id) => byId.get(id), pathsOf);
  };

  return {
    /** The admin of a request to an admin route, with what the Content Manager allows them. */
    async adminOf(state: AdminState): Promise<Admin> {
      const roles = strapi.service('admin::role') as unknown as { hasSuperAdminRole: (user: unknown) => boolean };
      if (state.user && roles.hasSuperAdminRole(state.user)) return { superAdmin: true };
      const ability = state.userAbility as Ability | undefined;
      if (!ability || typeof ability.rulesFor !== 'function') return { superAdmin: false, allows: () => false };
      const { codes } = await getService('locales').get();
      const { actionProvider } = strapi.service('admin::permission') as unknown as { actionProvider: ActionProvider };
      const allows: Allows = (action: ContentManagerAction, uid, field) => {
        const actionId = `plugin::content-manager.explorer.${action}`;
        const ids = [actionId, ...actionProvider.unstable_aliases(actionId, uid).map((alias) => alias.actionId)];
        return ids.some((id) => {
          const rules = ability.rulesFor(id, uid, field ?? undefined);
          return rules.every((rule) => !rule.inverted) && rules.some((rule) => coversEveryRecord(rule.conditions, codes));
        });
      };
      return { superAdmin: false, allows };
    },

    /** What a key's holdings need of the Content Manager. */
    needsOf: needsOfHoldings,

    /**
     * Refuses (403) a key change the admin may not make: `before` is the key as it is (null: a new key),
     * `after` as the change would leave it (judge() in grants/content-manager.ts says what may change).
     */
    async assertMayChangeKey(admin: Admin, before: KeyHoldings | null, after: KeyHoldings): Promise<void> {
      if (admin.superAdmin) return;
      const judgement = judge(before ? await needsOfHoldings(before) : null, await needsOfHoldings(after), admin.allows);
      if (!judgement.ok) throw new ContentManagerRefusal(GRANT_REFUSAL, issuesOf(judgement.missing, judgement.held));
    },

    /** Refuses (403) acting with a key's power (its secret, a webhook for it) to an admin who may not do all it does. */
    async assertMayActAs(admin: Admin, holdings: KeyHoldings): Promise<void> {
      if (admin.superAdmin) return;
      const missing = notAllowed(await needsOfHoldings(holdings), admin.allows);
      if (missing.length) throw new ContentManagerRefusal(ACT_AS_REFUSAL, issuesOf([], missing));
    },

    /** What a key holds that the admin may not do in the Content Manager (the key page's notice). */
    async missingFor(admin: Admin, holdings: KeyHoldings): Promise<GrantIssue[]> {
      if (admin.superAdmin) return [];
      return issuesOf([], notAllowed(await needsOfHoldings(holdings), admin.allows));
    },

    /**
     * Refuses (403) publications the admin may not read in the Content Manager. Those a website already
     * had may stay (an admin may still rename the website or take a publication away).
     */
    assertMayPublish(admin: Admin, before: readonly Publication[] | null, after: readonly Publication[]): void {
      if (admin.superAdmin) return;
      const had = new Set((before ?? []).map((publication) => `${publication.collection}\u0000${publication.contentType}`));
      const issues: GrantIssue[] = [];
      after.forEach((publication, index) => {
        if (had.has(`${publication.collection}\u0000${publication.contentType}`)) return;
        const need = publicationNeed(publication.collection, publication.contentType);
        if (admin.allows(need.action, need.uid, need.field)) return;
        issues.push({
          path: ['publications', index, 'contentType'],
          message: `You may not read every record of ${publication.contentType} in the Content Manager, so you may not publish it.`,
        });
      });
      if (issues.length) throw new ContentManagerRefusal(GRANT_REFUSAL, issues);
    },
  };
};
