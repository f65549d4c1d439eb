/**
 * Writes planned documents through the document service, exactly as the admin would: create the
 * first locale, add the other locales, publish, then save the later draft edits.
 *
 * Idempotency: what already exists is read once per content type (documents found by their
 * identity: the slug, the site name for settings, the single type's only document), and each step
 * is taken only when its result is missing. A rerun finds every document, every locale present,
 * every locale published and every draft edit equal to the plan, and writes nothing; a run
 * interrupted half-way is completed by the next one. Reading up front keeps reruns fast next to
 * 100 000 benchmark events: one scan per content type instead of one per document.
 */
import type { Core, UID as StrapiUID } from '@strapi/strapi';
import type { PlannedDocument, PlannedVersion, PublishableContentType, SeededContentType } from '../plan/types';

export type WriteCounts = { created: number; localized: number; published: number; revised: number; renamed: number };

type Row = Record<string, unknown>;

/** One stored row of a document: its locale, whether it is the published version, the values draft edits compare. */
type StoredRow = { locale: string | null; published: boolean; values: Row };

/** A planned document as stored: its id, the identity value it holds (null for a single type), its rows. */
export type StoredDocuments = ReadonlyMap<string, { documentId: string; identity: string | null; rows: StoredRow[] }>;

/** `$in` lists stay well below both databases' limits on bound parameters. */
const IN_CHUNK = 500;

const chunks = <T>(items: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / IN_CHUNK) }, (_, index) => items.slice(index * IN_CHUNK, (index + 1) * IN_CHUNK));

/** The stored state of the planned documents of one content type, by plan key. */
export const loadStoredDocuments = async (
  strapi: Core.Strapi,
  contentType: SeededContentType,
  planned: readonly PlannedDocument[],
): Promise<StoredDocuments> => {
  const query = strapi.db.query(contentType);
  const found = new Map<string, { documentId: string; identity: string | null }>();
  const singleType = planned.find((document) => document.identity === null);
  if (singleType) {
    const row = (await query.findOne({ select: ['documentId'] })) as Row | null;
    if (row) found.set(singleType.key, { documentId: String(row.documentId), identity: null });
  }
  const byField = new Map<string, PlannedDocument[]>();
  for (const document of planned)
    if (document.identity) byField.set(document.identity.field, [...(byField.get(document.identity.field) ?? []), document]);
  for (const [field, documents] of byField) {
    // Values unique within a website only are matched with the website's slug.
    const scoped = documents.some((document) => document.identity?.website !== undefined);
    for (const batch of chunks(documents)) {
      const values = batch.flatMap((document) => [
        document.identity!.value,
        ...(document.identity!.formerly ? [document.identity!.formerly] : []),
      ]);
      const rows = (await query.findMany({
        select: ['documentId', field, 'locale'],
        where: { [field]: { $in: values } },
        ...(scoped ? { populate: { website: { select: ['slug'] } } } : {}),
        orderBy: { id: 'asc' },
      })) as Row[];
      for (const document of batch) {
        const { value, website, formerly } = document.identity!;
        const locale = document.versions[0].locale;
        const holding = (held: string) =>
          rows.find(
            (candidate) =>
              candidate[field] === held &&
              (locale === null || candidate.locale === locale) &&
              (website === undefined || (candidate.website as Row | null)?.slug === website),
          );
        const row = holding(value) ?? (formerly ? holding(formerly) : undefined);
        if (row) found.set(document.key, { documentId: String(row.documentId), identity: String(row[field]) });
      }
    }
  }

  const compared = [...new Set(planned.flatMap((document) => document.draftChanges.flatMap((change) => Object.keys(change.data))))];
  const rowsByDocument = new Map<string, StoredRow[]>();
  for (const batch of chunks([...found.values()].map(({ documentId }) => documentId))) {
    const rows = (await query.findMany({
      select: ['documentId', 'locale', 'publishedAt', ...compared],
      where: { documentId: { $in: batch } },
    })) as Row[];
    for (const row of rows) {
      const documentId = String(row.documentId);
      rowsByDocument.set(documentId, [
        ...(rowsByDocument.get(documentId) ?? []),
        {
          locale: typeof row.locale === 'string' ? row.locale : null,
          published: row.publishedAt !== null && row.publishedAt !== undefined,
          values: row,
        },
      ]);
    }
  }
  return new Map(
    [...found].map(([key, { documentId, identity }]) => [key, { documentId, identity, rows: rowsByDocument.get(documentId) ?? [] }]),
  );
};

const sameValue = (stored: unknown, planned: unknown): boolean =>
  typeof planned === 'number' ? Number(stored) === planned : stored === planned;

export const ensureDocument = async (
  strapi: Core.Strapi,
  plan: PlannedDocument,
  stored: StoredDocuments,
  resolve: (data: PlannedVersion['data']) => Record<string, unknown>,
  counts: WriteCounts,
): Promise<string> => {
  const [first, ...others] = plan.versions;
  const localized = first.locale !== null;
  const localeOf = (version: PlannedVersion) => (localized && version.locale ? { locale: version.locale } : {});
  const documents = strapi.documents(plan.contentType as StrapiUID.ContentType);
  const existing = stored.get(plan.key);
  // A document created by this run has none of its steps done yet.
  const rows = existing?.rows ?? [];
  const hasRow = (locale: string | null, published: boolean) =>
    rows.some((row) => row.published === published && (!localized || row.locale === locale));

  let documentId = existing?.documentId ?? null;
  if (documentId && plan.identity && existing!.identity !== plan.identity.value) {
    // Found by its former identity (a slug from before slugs were per website): every version, draft and
    // published, takes the planned one. The value is free in its website, or the document would have been
    // found by it. Straight in the table: through the document service the draft would have to be
    // published, and its unpublished edits with it.
    await strapi.db.query(plan.contentType).updateMany({ where: { documentId }, data: { [plan.identity.field]: plan.identity.value } });
    counts.renamed += 1;
  }
  if (!documentId) {
    const created = await documents.create({ data: resolve(first.data), ...localeOf(first) });
    documentId = created.documentId;
    counts.created += 1;
  }

  for (const version of others) {
    if (!hasRow(version.locale, false)) {
      // Updating a locale that does not exist yet creates it, sharing the non-localized fields.
      await documents.update({ documentId, data: resolve(version.data), ...localeOf(version) });
      counts.localized += 1;
    }
  }

  if (plan.publish) {
    // The document service has publish only for a content type with draft and publish: with the types
    // Strapi generates (types/generated, what `strapi develop` compiles with), not for every seeded one.
    const publishing = strapi.documents(plan.contentType as PublishableContentType);
    const unpublished = plan.versions.filter((version) => !hasRow(version.locale, true));
    if (localized && unpublished.length === plan.versions.length && unpublished.length > 1) {
      // One call publishes every locale: the usual case, and half the work.
      await publishing.publish({ documentId, locale: '*' });
    } else {
      for (const version of unpublished) await publishing.publish({ documentId, ...localeOf(version) });
    }
    counts.published += unpublished.length;
  }

  for (const change of plan.draftChanges) {
    const draft = rows.find((row) => !row.published && (!localized || row.locale === change.locale));
    if (!draft || Object.entries(change.data).some(([field, value]) => !sameValue(draft.values[field], value))) {
      await documents.update({ documentId, data: resolve(change.data), ...localeOf(change) });
      counts.revised += 1;
    }
  }
  return documentId;
};
