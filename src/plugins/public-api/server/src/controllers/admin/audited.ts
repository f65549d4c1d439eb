/**
 * The audit log's hook on the admin routes that change keys and websites: a route middleware that runs
 * the route in one transaction, reads the key or website before, and after a successful answer writes
 * the entry (who, what, the diff) in that same transaction. A change that fails writes no entry; an entry
 * that cannot be written undoes the change (the admin sees an error, and nothing happened).
 *
 * A website change also moves or trims the grants of keys on its resources (services/websites.ts): each
 * key so changed gets an entry of its own, caused by the website.
 */
import type { Context, Next } from 'koa';
import type { AuditAction, AuditSubjectType } from '../../../../shared/contracts/audit';
import type { AdminKey } from '../../../../shared/contracts/keys';
import type { AdminWebsite } from '../../../../shared/contracts/websites';
import { keyChanges, websiteChanges } from '../../audit/diff';
import type { Knex } from 'knex';
import { getService } from '../../utils/get-service';
import { toAdminKey, toAdminWebsite } from './serialize';

type AdminUser = { id?: number; firstname?: string | null; lastname?: string | null; username?: string | null; email?: string | null };

const actorOf = (ctx: Context) => {
  const user = (ctx.state?.user ?? {}) as AdminUser;
  const name = [user.firstname, user.lastname].filter(Boolean).join(' ') || user.username || user.email || 'unknown';
  return { id: typeof user.id === 'number' ? user.id : null, name, email: user.email ?? null };
};

const succeeded = (ctx: Context) => ctx.status >= 200 && ctx.status < 300;

const answered = <T>(ctx: Context): T | null => ((ctx.body as { data?: T } | undefined)?.data ?? null) as T | null;

const findKey = async (id: string | undefined): Promise<AdminKey | null> => {
  if (id === undefined) return null;
  const key = await getService('keys').findOne(id);
  return key ? toAdminKey(key) : null;
};

const findWebsite = async (id: string | undefined): Promise<AdminWebsite | null> => {
  if (id === undefined) return null;
  const website = await getService('websites').findOne(id);
  return website ? toAdminWebsite(website) : null;
};

/**
 * Runs `work` in Strapi's transaction (which its query engine and the plugin's statement runner join),
 * handing it the transaction for the entry's own write.
 */
const inTransaction = (work: (trx: Knex) => Promise<void>): Promise<void> =>
  strapi.db.transaction(({ trx }) => work(trx as unknown as Knex)) as unknown as Promise<void>;

const auditKey = (action: AuditAction) => async (ctx: Context, next: Next) =>
  inTransaction(async (trx) => {
    const before = await findKey(ctx.params?.id as string | undefined);
    await next();
    if (!succeeded(ctx)) return;
    const after = action === 'deleted' ? null : answered<AdminKey>(ctx);
    const subject = after ?? before;
    if (!subject) return;
    const changes = action === 'regenerated' ? [] : keyChanges(before, after);
    if (action === 'changed' && !changes.length) return;
    await getService('audit-log').record(
      {
        actor: actorOf(ctx),
        subject: { type: 'key', id: subject.id, name: subject.name },
        action,
        changes,
        cause: null,
      },
      trx,
    );
  });

const auditWebsite = (action: AuditAction) => async (ctx: Context, next: Next) =>
  inTransaction(async (trx) => {
    const before = await findWebsite(ctx.params?.id as string | undefined);
    const keysBefore = before ? (await getService('keys').list()).map(toAdminKey) : [];
    await next();
    if (!succeeded(ctx)) return;
    const after = action === 'deleted' ? null : answered<AdminWebsite>(ctx);
    const subject = after ?? before;
    if (!subject) return;
    const changes = websiteChanges(before, after);
    if (action === 'changed' && !changes.length) return;
    const actor = actorOf(ctx);
    const audit = getService('audit-log');
    await audit.record({ actor, subject: { type: 'website', id: subject.id, name: subject.name }, action, changes, cause: null }, trx);
    if (!before) return;
    // Keys whose grants followed the website (renamed resource ids, resources gone).
    const keysAfter = new Map((await getService('keys').list()).map((key) => [key.id, toAdminKey(key)]));
    const cause = action === 'deleted' ? `Website '${before.slug}' deleted` : `Website '${before.slug}' changed`;
    for (const key of keysBefore) {
      const now = keysAfter.get(key.id);
      if (!now) continue;
      const keyDiff = keyChanges(key, now);
      if (keyDiff.length)
        await audit.record(
          { actor, subject: { type: 'key', id: key.id, name: now.name }, action: 'changed', changes: keyDiff, cause },
          trx,
        );
    }
  });

/** The route middleware that audits `action` on a key or a website. */
export const audited = (subject: AuditSubjectType, action: AuditAction) => (subject === 'key' ? auditKey(action) : auditWebsite(action));

/** The admin routes that change keys and websites, by handler, and what their entry says. */
const AUDITED_HANDLERS: Record<string, [AuditSubjectType, AuditAction]> = {
  'admin-keys.create': ['key', 'created'],
  'admin-keys.update': ['key', 'changed'],
  'admin-keys.revoke': ['key', 'revoked'],
  'admin-keys.regenerate': ['key', 'regenerated'],
  'admin-keys.remove': ['key', 'deleted'],
  'admin-websites.create': ['website', 'created'],
  'admin-websites.update': ['website', 'changed'],
  'admin-websites.remove': ['website', 'deleted'],
};

/** The route middlewares of an admin route: the audit hook when the route changes a key or website. */
export const auditMiddlewares = (handler: string) => {
  const audit = AUDITED_HANDLERS[handler];
  return audit ? [audited(...audit)] : [];
};
