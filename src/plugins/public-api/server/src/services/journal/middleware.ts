/**
 * The document service middleware that writes the change journal (index.ts) on every write to an
 * application content type (`api::*`), whoever makes it: the content manager, /api/v2 writes and atomic
 * operations, commands, scripts.
 *
 * It runs the write inside `strapi.db.transaction`, which joins the caller's transaction when there is
 * one (an /api/v2 write, an atomic request) and else opens the one the write then joins (Strapi's own
 * per-action transaction nests into it). The document's published rows are read before and after the
 * write in that transaction, and the difference (changes.ts) is appended in it too: a write that rolls
 * back takes its entries along, a committed write always has them, and a draft-only save writes none.
 *
 * A record that links to the changed one shows it as a reference (its id, slug, and whether it is there
 * at all), so its published referrers get an `updated` entry too (referrers.ts).
 *
 * In a batch of writes (atomic operations) the entries of plain creates are written together, before the
 * batch's next other write and at its end (deferred.ts): the same entries, in the same order.
 */
import type { Core, Modules } from '@strapi/strapi';
import type { Knex } from 'knex';
import { databaseClient, lockUntilCommit } from '../../database/connection';
import { JOURNAL_ORDER_LOCK } from './table';
import { isPluginSlug, websiteScopeAttributeOf } from '../../registry/fields';
import { scopeValue } from '../../webhooks/visibility';
import { changesOf, referenceChanged, type PublishedRow } from './changes';
import { currentBatch, flushDeferredCreates, type CreatedDocument } from './deferred';
import type { JournalChange } from './index';
import { createReferrers, type InverseReferrers, type Referrer, type Referrers } from './referrers';
import { readModelOf } from '../../read/model';

/** Actions that only read. */
const READS = new Set(['findOne', 'findMany', 'findFirst', 'count']);
/** Actions that may take published versions away (and with them the links other records hold to them). */
const REMOVALS = new Set(['delete', 'unpublish']);

type Meta = { tableName: string; attributes: Record<string, unknown> };
type Schema = {
  options?: { draftAndPublish?: boolean };
  pluginOptions?: { i18n?: { localized?: boolean } };
  attributes?: Record<string, { type?: string; target?: string; relation?: string; pluginOptions?: Record<string, unknown> }>;
};

/** Attribute types whose values link to other records (directly or from the component rows they make). */
const LINKING_TYPES = new Set(['relation', 'component', 'dynamiczone']);
type Entry = { documentId?: unknown };

const isEntry = (value: unknown): value is Entry => typeof value === 'object' && value !== null;

/** The document a call wrote: named by the call, or (create, clone) the new one its result names. */
const documentIdOf = (action: string, params: unknown, result: unknown): string | null => {
  const named = isEntry(params) && typeof params.documentId === 'string' ? params.documentId : null;
  const made = isEntry(result) && typeof result.documentId === 'string' ? result.documentId : null;
  return action === 'create' || action === 'clone' ? made : (named ?? made);
};

/**
 * Where a content type's published rows are, how to read them, which of its attributes link to records,
 * the column of its slug (what references to its records show), and the join table linking its records to
 * websites (for a website-scoped type).
 */
type Source = {
  table: string;
  localized: boolean;
  draftAndPublish: boolean;
  linking: ReadonlySet<string>;
  slugColumn: string | null;
  scope: { table: string; ownerColumn: string; targetColumn: string } | null;
};

const referrerKey = (referrer: Referrer) => `${referrer.documentId}\u0000${referrer.locale ?? ''}`;

/** The records an inverse path reached before a write and not after, or after and not before. */
const symmetricDifference = (before: readonly Referrer[], after: readonly Referrer[]): Referrer[] => {
  const was = new Set(before.map(referrerKey));
  const is = new Set(after.map(referrerKey));
  return [...before.filter((referrer) => !is.has(referrerKey(referrer))), ...after.filter((referrer) => !was.has(referrerKey(referrer)))];
};

export const createJournalMiddleware = (
  strapi: Core.Strapi,
  append: (connection: Knex, changes: readonly JournalChange[]) => Promise<void>,
): Modules.Documents.Middleware.Middleware => {
  let referrers: Referrers | null = null;
  const referrersOf = () => (referrers ??= createReferrers(strapi));
  const sources = new Map<string, Source>();
  const sourceOf = (uid: string): Source => {
    let source = sources.get(uid);
    if (!source) {
      const meta = strapi.db.metadata.get(uid) as unknown as Meta;
      const schema = strapi.contentTypes[uid as keyof typeof strapi.contentTypes] as unknown as Schema | undefined;
      const attributes = (schema?.attributes ?? {}) as Parameters<typeof websiteScopeAttributeOf>[0];
      const model = readModelOf(strapi, uid);
      const isSlug = (name: string) =>
        attributes[name]?.type === 'uid' || (attributes[name] !== undefined && isPluginSlug(attributes[name]));
      // As the registry names a record's slug (registry/build.ts): `slug` when it is one, else the first.
      const slugAttribute = isSlug('slug') ? 'slug' : Object.keys(attributes).find(isSlug);
      const scopeAttribute = websiteScopeAttributeOf(attributes);
      const scopeJoin = scopeAttribute ? model.relations[scopeAttribute] : undefined;
      source = {
        slugColumn: slugAttribute ? (model.columns[slugAttribute] ?? null) : null,
        scope: scopeJoin ? { table: scopeJoin.table, ownerColumn: scopeJoin.ownerColumn, targetColumn: scopeJoin.targetColumn } : null,
        table: meta.tableName,
        localized: schema?.pluginOptions?.i18n?.localized === true && 'locale' in meta.attributes,
        draftAndPublish: schema?.options?.draftAndPublish === true,
        linking: new Set(
          Object.entries(schema?.attributes ?? {})
            .filter(([, attribute]) => LINKING_TYPES.has(attribute.type ?? ''))
            .map(([name]) => name),
        ),
      };
      sources.set(uid, source);
    }
    return source;
  };

  /** The document's published rows (every row of a type without draft & publish: it has no drafts). */
  const publishedRows = async (connection: Knex, source: Source, documentId: string): Promise<PublishedRow[]> => {
    const query = connection(source.table).select('id', 'updated_at').where('document_id', documentId);
    if (source.localized) query.select('locale');
    if (source.slugColumn) query.select({ slug: source.slugColumn });
    if (source.draftAndPublish) query.whereNotNull('published_at');
    const rows = (await query) as { id: number; updated_at: unknown; locale?: string | null; slug?: unknown }[];
    return rows.map((row) => ({
      id: Number(row.id),
      locale: source.localized ? (row.locale ?? null) : null,
      updatedAt: row.updated_at instanceof Date ? row.updated_at.toISOString() : String(row.updated_at),
      slug: row.slug === undefined || row.slug === null ? null : String(row.slug),
    }));
  };

  /**
   * The websites each published row belongs to, as the journal's `scope` (by locale key), for a
   * website-scoped type; empty otherwise. One query.
   */
  const scopesOf = async (connection: Knex, source: Source, rows: readonly PublishedRow[]): Promise<Map<string, string>> => {
    const scopes = new Map<string, string>();
    if (!source.scope || rows.length === 0) return scopes;
    const links = (await connection(source.scope.table)
      .select({ owner: source.scope.ownerColumn, website: source.scope.targetColumn })
      .whereIn(
        source.scope.ownerColumn,
        rows.map((row) => row.id),
      )) as { owner: number | string; website: number | string | null }[];
    for (const row of rows) {
      const websites = links.filter((link) => Number(link.owner) === row.id && link.website !== null).map((link) => Number(link.website));
      scopes.set(row.locale ?? '', scopeValue(websites));
    }
    return scopes;
  };

  /**
   * After a write that kept every published locale of the document (only `updated` changes): entries for
   * the records whose references to it changed, and no others (issue 33). All its referrers when its
   * slug or its website changed; else those that gained or lost a link to it through its own relation fields (the
   * inverse paths, compared before and after; a path with too many to compare journals all of its own).
   */
  const journalChangedReferences = async (
    connection: Knex,
    uid: string,
    documentId: string,
    rows: { before: readonly PublishedRow[]; after: readonly PublishedRow[] },
    inverseBefore: InverseReferrers,
    scopes: { source: Source; before: ReadonlyMap<string, string> },
  ): Promise<void> => {
    // A record moved to another website is shown by references from that website's records, and no more
    // by those of the website it left (a reference to another website's record is left out).
    const after = scopes.source.scope ? await scopesOf(connection, scopes.source, rows.after) : new Map<string, string>();
    const moved = [...after].some(([locale, scope]) => scopes.before.has(locale) && scopes.before.get(locale) !== scope);
    if (moved) {
      // The records of the websites it left and joined: their references to it went or came.
      const websites = [...scopes.before.values(), ...after.values()].flatMap((scope) => scope.split(',').filter(Boolean).map(Number));
      await referrersOf().journal(connection, uid, [documentId], [...new Set(websites)]);
      return;
    }
    if (referenceChanged(rows.before, rows.after)) {
      await referrersOf().journal(connection, uid, [documentId]);
      return;
    }
    if (inverseBefore.size === 0) return;
    const inverseAfter = await referrersOf().inverse(connection, uid, documentId);
    const changed: Referrer[] = [];
    for (const [path, before] of inverseBefore) {
      const after = inverseAfter.get(path) ?? [];
      if (before === null || after === null) {
        // Too many to compare: every record of the path now (those of before were journaled before the write).
        await referrersOf().journalPaths(connection, uid, documentId, [path]);
        continue;
      }
      changed.push(...symmetricDifference(before, after));
    }
    await append(
      connection,
      changed.map((referrer) => ({ ...referrer, kind: 'updated' as const })),
    );
  };

  /** The published rows of several documents of one content type, by document, in one query. */
  const publishedRowsOf = async (connection: Knex, source: Source, documentIds: readonly string[]) => {
    const query = connection(source.table)
      .select('id', 'updated_at', 'document_id')
      .whereIn('document_id', [...documentIds]);
    if (source.localized) query.select('locale');
    if (source.draftAndPublish) query.whereNotNull('published_at');
    const rows = (await query) as { id: number; updated_at: unknown; document_id: string; locale?: string | null }[];
    const byDocument = new Map<string, PublishedRow[]>();
    for (const row of rows) {
      const list = byDocument.get(row.document_id) ?? [];
      list.push({
        id: Number(row.id),
        locale: source.localized ? (row.locale ?? null) : null,
        updatedAt: row.updated_at instanceof Date ? row.updated_at.toISOString() : String(row.updated_at),
      });
      byDocument.set(row.document_id, list);
    }
    return byDocument;
  };

  /** The entries of deferred creates (deferred.ts): what each create would have written, in creation order. */
  const journalCreates = async (connection: Knex, created: readonly CreatedDocument[]): Promise<void> => {
    const byUid = new Map<string, string[]>();
    for (const { uid, documentId } of created) byUid.set(uid, [...(byUid.get(uid) ?? []), documentId]);
    const rows = new Map<string, Map<string, PublishedRow[]>>();
    for (const [uid, documentIds] of byUid) rows.set(uid, await publishedRowsOf(connection, sourceOf(uid), documentIds));
    const published = new Map<string, string[]>();
    const changes: JournalChange[] = [];
    for (const { uid, documentId } of created) {
      for (const change of changesOf('create', [], rows.get(uid)!.get(documentId) ?? [])) {
        changes.push({ uid, documentId, locale: change.locale, kind: change.kind });
        if (change.kind === 'published' || change.kind === 'updated') published.set(uid, [...(published.get(uid) ?? []), documentId]);
      }
    }
    await append(connection, changes);
    for (const [uid, documentIds] of published) await referrersOf().journal(connection, uid, [...new Set(documentIds)]);
  };

  /** A create whose data sets no link: no record can link to its document until a later write sets one. */
  const isPlainCreate = (action: string, params: unknown, source: Source): boolean => {
    if (action !== 'create') return false;
    const data = isEntry(params) ? (params as { data?: unknown }).data : undefined;
    return typeof data === 'object' && data !== null && !Object.keys(data).some((name) => source.linking.has(name));
  };

  /** A write that changes only a draft: an update or a discard of a type with draft & publish, not asked to publish. */
  const isDraftSave = (action: string, params: unknown, source: Source): boolean =>
    source.draftAndPublish &&
    (action === 'update' || action === 'discardDraft') &&
    !(isEntry(params) && (params as { status?: unknown }).status === 'published');

  /**
   * MySQL and MariaDB: the journal's order lock (table.ts, JOURNAL_ORDER_LOCK) taken before the write
   * touches a row, in the write's transaction. Taken at the first entry instead, after the write's rows,
   * it closed cycles with writes holding those rows (InnoDB's gap locks make them common among concurrent
   * creates): taken first, every content write waits for it before any other lock, so there is no cycle,
   * and content writes commit one after the other, as on SQLite.
   */
  const holdJournalOrder = async (connection?: Knex): Promise<void> => {
    if (databaseClient(strapi) !== 'mysql') return;
    if (connection) await lockUntilCommit(strapi, JOURNAL_ORDER_LOCK, connection);
    else await strapi.db.transaction(({ trx }) => lockUntilCommit(strapi, JOURNAL_ORDER_LOCK, trx as unknown as Knex));
  };

  return async (context, next) => {
    if (READS.has(context.action) || !context.uid.startsWith('api::')) return next();
    const source = sourceOf(context.uid);
    const batch = currentBatch();
    if (batch && isPlainCreate(context.action, context.params, source)) {
      await holdJournalOrder();
      const result = await next();
      const documentId = documentIdOf(context.action, context.params, result);
      if (documentId) batch.defer({ uid: context.uid, documentId }, journalCreates);
      return result;
    }
    // Any other write of a batch comes after the entries of the creates before it.
    if (batch) await flushDeferredCreates(strapi);
    return strapi.db.transaction(async ({ trx }) => {
      const connection = trx as unknown as Knex;
      await holdJournalOrder(connection);
      const named = documentIdOf(context.action, context.params, null);
      const before = named && context.action !== 'create' ? await publishedRows(connection, source, named) : [];
      // The websites the record's published rows belong to before the write: whose keys could read it (issue 33).
      const scopes = await scopesOf(connection, source, before);
      // Links to published versions that the write may take away are read while they still exist.
      const removal = named !== null && before.length > 0 && REMOVALS.has(context.action);
      if (removal) await referrersOf().journal(connection, context.uid, [named]);
      // The records the document's own links reach from the other side, to compare after the write (not for
      // a draft save, which leaves the published rows and their links as they are).
      const inverse: InverseReferrers =
        named && before.length > 0 && !removal && !isDraftSave(context.action, context.params, source)
          ? await referrersOf().inverse(connection, context.uid, named)
          : new Map();
      for (const [path, referrers] of inverse)
        if (referrers === null) await referrersOf().journalPaths(connection, context.uid, named!, [path]);
      const result = await next();
      const documentId = documentIdOf(context.action, context.params, result);
      if (!documentId) return result;
      const after = await publishedRows(connection, source, documentId);
      const changes = changesOf(context.action, before, after);
      await append(
        connection,
        changes.map((change) => ({
          uid: context.uid,
          documentId,
          locale: change.locale,
          kind: change.kind,
          scope: change.kind === 'published' ? null : (scopes.get(change.locale ?? '') ?? null),
        })),
      );
      if (changes.some((change) => change.kind === 'published')) {
        // A locale gained a published version: references to it appear wherever records link to it.
        await referrersOf().journal(connection, context.uid, [documentId]);
      } else if (changes.some((change) => change.kind === 'updated')) {
        await journalChangedReferences(connection, context.uid, documentId, { before, after }, documentId === named ? inverse : new Map(), {
          source,
          before: scopes,
        });
      }
      return result;
    });
  };
};
