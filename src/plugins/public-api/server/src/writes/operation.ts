/**
 * One write operation, transport-free: what the write-operation processor (writes/processor.ts) takes.
 * A single POST, PATCH or DELETE is a list of one (handlers/writes.ts); POST /operations a list of up to
 * 100 (handlers/operations.ts). Everything a transport knows (paths, headers, the query) is judged before:
 * the operation carries the resource as the key may write it, the locale, and the record it names.
 */
import { takesLocale } from '../grants/projection';
import type { ApiKey } from '../keys/types';
import { parseWriteQuery } from '../query/parse';
import type { RecordObject } from '../serialize/record';
import type { ResourceAccess } from '../services/access';
import type { WriteTarget } from '../services/writes/target';
import type { OperationKind, RecordName } from '../write/atomic-document';
import type { ResourceObject } from '../write/resource-object';

/**
 * The record an update or remove writes: found already (a single write's path names it, and is answered
 * 404 before the transaction), or named by the operation (by identifier, lid, or a singleton's one
 * record), found inside the transaction.
 */
export type RecordRef = { by: 'document'; documentId: string } | RecordName;

export type WriteOperation = {
  op: OperationKind;
  /** The resource as this key may write it (its grant checked: 404, 405, 403 are said before). */
  access: ResourceAccess;
  target: WriteTarget;
  /** The record of an update or remove; null for an add. */
  ref: RecordRef | null;
  /** The resource object of an add or update, parsed (write/resource-object.ts); null for a remove. */
  data: ResourceObject | null;
  /** The local id an add gives its record (atomic operations), for later operations to name it by. */
  lid: string | null;
  /** Types the operation states besides `data.type` (an atomic `ref.type`), and where: 409 unless the resource's slug. */
  types: readonly { value: string; at: string }[];
  /**
   * A condition on the record as it is now (If-Match), checked inside the transaction with its rows
   * locked before an update or remove writes; it throws its refusal. Null: none.
   */
  precondition: ((current: RecordObject | null) => void) | null;
};

/** What an operation leaves: the record as a read shows it to this key, or nothing for a removal. */
export type OperationResult = { data: RecordObject | null };

/**
 * Who writes, and in which locale: the `locale` parameter (of the URL, or of an atomic operation's href),
 * else the default, for localized resources, null otherwise; the references a write names are read in
 * that language, also by resources that are not localized (as reads show their references).
 */
export const writeTargetOf = (
  key: ApiKey,
  access: ResourceAccess,
  query: URLSearchParams,
  locales: { codes: string[]; defaultLocale: string },
): WriteTarget => {
  const { locale } = parseWriteQuery(query, { locales: takesLocale(access.projection) ? locales.codes : null });
  const language = locale ?? locales.defaultLocale;
  return { key, projection: access.projection, locale: access.resource.localized ? language : null, language };
};
