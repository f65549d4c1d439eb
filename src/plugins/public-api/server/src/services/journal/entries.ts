/**
 * The entries of the change journal as its readers see them: one change, the row it is read back as, and
 * what concerns a key (its content types, and the fields through which it reads changes). Pure.
 */
import type { ChangeKind } from './changes';
import type { JournalPosition } from './positions';

/**
 * One change: `via` and `scope` as the table's columns say (table.ts): the field through which a record only
 * shows the changed one (null: its own rows changed), and the websites its published row belonged to before.
 */
export type JournalChange = {
  uid: string;
  documentId: string;
  locale: string | null;
  kind: ChangeKind;
  via?: string | null;
  scope?: string | null;
};

export type JournalEntry = Required<JournalChange> & { txid: number; seq: number; occurredAt: number };

/** A key's interest in one content type: its entries of own changes, and those via these fields (sync feed). */
export type ContentTypeInterest = { uid: string; via: readonly string[] };

/** What an own change said of the record's state before it: its locale and websites (the `scope` column). */
export type PriorState = { locale: string | null; scope: string | null };

export type JournalRead = { entries: JournalEntry[]; next: JournalPosition | null };

export type RawEntry = {
  txid: number | string;
  seq: number | string;
  content_type: string;
  document_id: string;
  locale: string | null;
  kind: string;
  occurred_at: number | string;
  via: string | null;
  scope: string | null;
};

export const toEntry = (raw: RawEntry): JournalEntry => ({
  txid: Number(raw.txid),
  seq: Number(raw.seq),
  uid: raw.content_type,
  documentId: raw.document_id,
  locale: raw.locale ?? null,
  kind: raw.kind as ChangeKind,
  occurredAt: Number(raw.occurred_at),
  via: raw.via ?? null,
  scope: raw.scope ?? null,
});

export const COLUMNS = 'c.txid, c.seq, c.content_type, c.document_id, c.locale, c.kind, c.occurred_at, c.via, c.scope';

/**
 * The entries of `alias` that concern a key (the sync feed): of the content types it reads, own changes, and
 * changes via a field it reads. As SQL and its bindings.
 */
export const interestSql = (alias: string, interests: readonly ContentTypeInterest[]) => {
  const clauses = interests.map(({ via }) =>
    via.length === 0
      ? `(${alias}.content_type = ? AND ${alias}.via IS NULL)`
      : `(${alias}.content_type = ? AND (${alias}.via IS NULL OR ${alias}.via IN (${via.map(() => '?').join(', ')})))`,
  );
  return { sql: `(${clauses.join(' OR ')})`, bindings: interests.flatMap(({ uid, via }) => [uid, ...via]) };
};
