/**
 * The audit log of admin changes to keys and websites (`GET /public-api/audit-log`): who did what to
 * which key or website, and when, with a readable diff. It never holds a key's plaintext or hash.
 */
export const AUDIT_SUBJECT_TYPES = ['key', 'website'] as const;
export type AuditSubjectType = (typeof AUDIT_SUBJECT_TYPES)[number];

export const AUDIT_ACTIONS = ['created', 'changed', 'regenerated', 'revoked', 'deleted'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type ListChange = { added: string[]; removed: string[] };

/** A setting that has one value: from -> to (JSON values; null when unset). */
export type ValueChange = {
  kind: 'value';
  field: 'name' | 'description' | 'expiresAt' | 'limits' | 'cache' | 'preview' | 'revoked' | 'slug';
  from: unknown;
  to: unknown;
};

/** A list of names: what was added and removed. */
export type NamesChange = { kind: 'list'; field: 'commands' | 'origins'; added: string[]; removed: string[] };

/** A key's grant on one resource: granted, withdrawn, or its actions and fields changed. */
export type ResourceGrantChange = {
  kind: 'resource';
  resource: string;
  status: 'added' | 'removed' | 'changed';
  actions: ListChange;
  read: ListChange;
  write: ListChange;
};

/** A website's publication of a collection: added, removed, or its content type, mode or name changed. */
export type PublicationChange = {
  kind: 'publication';
  collection: string;
  status: 'added' | 'removed' | 'changed';
  from: { contentType: string; mode: string; name?: string } | null;
  to: { contentType: string; mode: string; name?: string } | null;
};

export type AuditChange = ValueChange | NamesChange | ResourceGrantChange | PublicationChange;

export type AuditEntry = {
  id: number;
  at: string;
  /** The admin user who made the change (null id: not made by an admin user). */
  actor: { id: number | null; name: string; email: string | null };
  subject: { type: AuditSubjectType; id: number; name: string };
  action: AuditAction;
  changes: AuditChange[];
  /** Why a change was made when no one asked for it directly (a key's grants following a website change). */
  cause: string | null;
};

export declare namespace ListAuditLog {
  export interface Query {
    subjectType?: AuditSubjectType;
    subjectId?: number;
    /** Entries older than this entry id (keyset paging: meta.next of the previous page). */
    before?: number;
    /** 1 to 100; 25 when absent. */
    limit?: number;
  }
  export interface Response {
    data: AuditEntry[];
    /** The `before` of the next page, or null on the last. */
    meta: { next: number | null };
  }
}
