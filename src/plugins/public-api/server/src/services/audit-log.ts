/**
 * The audit log (issue 19): one row per admin change to a key or a website, in the plugin's table
 * `public_api_audit_log`, written in the change's own transaction (controllers/admin/audited.ts),
 * so an entry exists exactly when its change was committed. Entries are kept: nothing deletes them (admin
 * changes come at human speed; docs/admin.md says how an operator prunes old ones). Read newest first,
 * keyset-paged by id, optionally for one key or website.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import type { AuditAction, AuditChange, AuditEntry, AuditSubjectType } from '../../../shared/contracts/audit';

export const AUDIT_TABLE = 'public_api_audit_log';
export const AUDIT_PAGE_MAX = 100;
const AUDIT_PAGE_DEFAULT = 25;

export type AuditRecord = Omit<AuditEntry, 'id' | 'at'>;
export type AuditQuery = { subjectType?: AuditSubjectType; subjectId?: number; before?: number; limit?: number };

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

const entryOf = (row: Record<string, unknown>): AuditEntry => {
  let changes: AuditChange[] = [];
  try {
    const parsed: unknown = JSON.parse(String(row.changes ?? '[]'));
    if (Array.isArray(parsed)) changes = parsed as AuditChange[];
  } catch {
    // A row edited by hand: shown without its changes.
  }
  return {
    id: Number(row.id),
    at: new Date(Number(row.at)).toISOString(),
    actor: {
      id: row.actor_id === null ? null : Number(row.actor_id),
      name: String(row.actor_name),
      email: (row.actor_email as string | null) ?? null,
    },
    subject: { type: row.subject_type as AuditSubjectType, id: Number(row.subject_id), name: String(row.subject_name) },
    action: row.action as AuditAction,
    changes,
    cause: (row.cause as string | null) ?? null,
  };
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const ensureTable = async () => {
    const schema = (strapi.db.connection as unknown as Knex).schema;
    if (await schema.hasTable(AUDIT_TABLE)) return;
    try {
      await schema.createTable(AUDIT_TABLE, (table) => {
        table.increments('id').primary();
        table.bigInteger('at').notNullable();
        table.integer('actor_id').nullable();
        table.string('actor_name', 255).notNullable();
        table.string('actor_email', 255).nullable();
        table.string('subject_type', 16).notNullable();
        table.integer('subject_id').notNullable();
        table.string('subject_name', 255).notNullable();
        table.string('action', 16).notNullable();
        table.text('changes').notNullable();
        table.string('cause', 255).nullable();
        table.index(['subject_type', 'subject_id', 'id'], `${AUDIT_TABLE}_subject_index`);
      });
    } catch (error) {
      // Another instance created it first.
      if (!(await schema.hasTable(AUDIT_TABLE))) throw error;
    }
  };

  return {
    start: ensureTable,

    /** Writes one entry on `connection`: the transaction of the change it records. */
    async record(entry: AuditRecord, connection: Knex, now = Date.now()): Promise<void> {
      await connection(AUDIT_TABLE).insert({
        at: now,
        actor_id: entry.actor.id,
        actor_name: clip(entry.actor.name, 255),
        actor_email: entry.actor.email === null ? null : clip(entry.actor.email, 255),
        subject_type: entry.subject.type,
        subject_id: entry.subject.id,
        subject_name: clip(entry.subject.name, 255),
        action: entry.action,
        changes: JSON.stringify(entry.changes),
        cause: entry.cause === null ? null : clip(entry.cause, 255),
      });
    },

    /** Newest first; `next` is the `before` of the following page (null: this is the last). */
    async list(query: AuditQuery = {}): Promise<{ entries: AuditEntry[]; next: number | null }> {
      const limit = Math.min(Math.max(query.limit ?? AUDIT_PAGE_DEFAULT, 1), AUDIT_PAGE_MAX);
      const builder = (strapi.db.connection as unknown as Knex)(AUDIT_TABLE).select('*');
      if (query.subjectType) builder.where('subject_type', query.subjectType);
      if (query.subjectId !== undefined) builder.where('subject_id', query.subjectId);
      if (query.before !== undefined) builder.where('id', '<', query.before);
      // One more than the page says whether another follows, without counting.
      const rows = (await builder.orderBy('id', 'desc').limit(limit + 1)) as Record<string, unknown>[];
      const entries = rows.slice(0, limit).map(entryOf);
      return { entries, next: rows.length > limit ? entries[entries.length - 1]!.id : null };
    },
  };
};
