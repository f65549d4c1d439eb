/**
 * What an admin change did, as the audit log shows it: the settings that changed (from -> to), the
 * grants added and removed per resource (actions, readable and writable fields), commands, origins, and a
 * website's publications. Reads only the admin view of a key (AdminKey), which never holds its secret or
 * its hash, so no diff can. Pure.
 */
import type { AuditChange, ListChange, PublicationChange, ValueChange } from '../../../shared/contracts/audit';
import type { AdminKey } from '../../../shared/contracts/keys';
import type { AdminWebsite } from '../../../shared/contracts/websites';

/** The members of a key the log compares. */
export type KeySnapshot = Pick<AdminKey, 'name' | 'description' | 'expiresAt' | 'limits' | 'cache' | 'preview' | 'revoked' | 'grants'>;
export type WebsiteSnapshot = Pick<AdminWebsite, 'name' | 'slug' | 'publications'>;

/** JSON with object members in sorted order: equal values compare equal whatever the order they were stored in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value ?? null, (_name, member: unknown) =>
    member && typeof member === 'object' && !Array.isArray(member)
      ? Object.fromEntries(Object.entries(member as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : member,
  );

const listChange = (before: readonly string[] = [], after: readonly string[] = []): ListChange => {
  const was = new Set(before);
  const is = new Set(after);
  return { added: after.filter((name) => !was.has(name)), removed: before.filter((name) => !is.has(name)) };
};

const changed = (list: ListChange) => list.added.length > 0 || list.removed.length > 0;

const valueChanges = <T extends object>(
  before: T | null,
  after: T | null,
  fields: readonly (keyof T & ValueChange['field'])[],
): ValueChange[] =>
  fields.flatMap((field) => {
    const from = before ? (before[field] ?? null) : null;
    const to = after ? (after[field] ?? null) : null;
    return canonical(from) === canonical(to) ? [] : [{ kind: 'value' as const, field, from, to }];
  });

const KEY_VALUES = ['name', 'description', 'expiresAt', 'limits', 'cache', 'preview', 'revoked'] as const;

/** From `before` (null: created) to `after` (null: deleted). */
export const keyChanges = (before: KeySnapshot | null, after: KeySnapshot | null): AuditChange[] => {
  const changes: AuditChange[] = valueChanges(before, after, KEY_VALUES);
  const was = before?.grants.resources ?? {};
  const is = after?.grants.resources ?? {};
  const ids = [...new Set([...Object.keys(was), ...Object.keys(is)])].sort();
  for (const resource of ids) {
    const from = was[resource];
    const to = is[resource];
    const change = {
      kind: 'resource' as const,
      resource,
      status: !from ? ('added' as const) : !to ? ('removed' as const) : ('changed' as const),
      actions: listChange(from?.actions, to?.actions),
      read: listChange(from?.read, to?.read),
      write: listChange(from?.write, to?.write),
    };
    if (change.status !== 'changed' || changed(change.actions) || changed(change.read) || changed(change.write)) changes.push(change);
  }
  for (const field of ['commands', 'origins'] as const) {
    const list = listChange(before?.grants[field], after?.grants[field]);
    if (changed(list)) changes.push({ kind: 'list', field, ...list });
  }
  return changes;
};

const publicationOf = (publication: AdminWebsite['publications'][number]) => ({
  contentType: publication.contentType,
  mode: publication.mode,
  ...(publication.name ? { name: publication.name } : {}),
});

export const websiteChanges = (before: WebsiteSnapshot | null, after: WebsiteSnapshot | null): AuditChange[] => {
  const changes: AuditChange[] = valueChanges(before, after, ['name', 'slug'] as const);
  const was = new Map((before?.publications ?? []).map((publication) => [publication.collection, publicationOf(publication)]));
  const is = new Map((after?.publications ?? []).map((publication) => [publication.collection, publicationOf(publication)]));
  for (const collection of [...new Set([...was.keys(), ...is.keys()])].sort()) {
    const from = was.get(collection) ?? null;
    const to = is.get(collection) ?? null;
    if (from && to && canonical(from) === canonical(to)) continue;
    const status: PublicationChange['status'] = !from ? 'added' : !to ? 'removed' : 'changed';
    changes.push({ kind: 'publication', collection, status, from, to });
  }
  return changes;
};
