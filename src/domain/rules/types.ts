/**
 * What a domain rule is: a check of one record's effective values (what the record will hold once
 * the write is applied), for the content types it governs.
 */
import type { Violation } from '../violations';

/** A record's values by attribute name: the stored document merged with the incoming data. */
export type RecordValues = Readonly<Record<string, unknown>>;

/** The only I/O a rule may do, injected so that rules stay testable without a database. */
export type RuleLookups = {
  /** documentIds of other documents of `contentType` (any locale, draft or published) whose `field` equals `value`. */
  documentsWithValue: (contentType: string, field: string, value: string, exceptDocumentId: string | null) => Promise<string[]>;
};

export type RuleContext = {
  contentType: string;
  /** The document being written, or null when the write creates a new document (create, clone). */
  documentId: string | null;
  /** Attributes present in the incoming data: a violation points at a field the writer sent when it can. */
  changed: ReadonlySet<string>;
  lookups: RuleLookups;
};

export type DomainRule = {
  name: string;
  contentTypes: readonly string[];
  /** The attributes the rule reads; a write that sends none of them cannot break it. */
  fields: readonly string[];
  check: (record: RecordValues, context: RuleContext) => Violation[] | Promise<Violation[]>;
};
