/**
 * What the database holds for the seeded content types: documents and published versions per
 * locale. Used for the summary and by tests that prove a rerun changes nothing.
 */
import type { Core } from '@strapi/strapi';
import { UID, type SeededContentType } from '../plan/types';

export type CensusLine = { contentType: SeededContentType; locale: string | null; documents: number; published: number };

export const SEEDED_CONTENT_TYPES: SeededContentType[] = Object.values(UID);

export const takeCensus = async (strapi: Core.Strapi): Promise<CensusLine[]> => {
  const lines: CensusLine[] = [];
  for (const contentType of SEEDED_CONTENT_TYPES) {
    const schema = strapi.contentType(contentType);
    const draftAndPublish = schema.options?.draftAndPublish === true;
    const rows = (await strapi.db.query(contentType).findMany({ select: ['documentId', 'locale', 'publishedAt'] })) as Array<{
      documentId: string;
      locale?: string | null;
      publishedAt: unknown;
    }>;
    const byLocale = new Map<string | null, { documents: Set<string>; published: number }>();
    for (const row of rows) {
      const locale = row.locale ?? null;
      const entry = byLocale.get(locale) ?? { documents: new Set<string>(), published: 0 };
      entry.documents.add(row.documentId);
      // Without draft and publish a row is live as soon as it is saved.
      if (!draftAndPublish || row.publishedAt !== null) entry.published += 1;
      byLocale.set(locale, entry);
    }
    for (const [locale, entry] of [...byLocale.entries()].sort(([a], [b]) => String(a).localeCompare(String(b)))) {
      lines.push({ contentType, locale, documents: entry.documents.size, published: entry.published });
    }
  }
  return lines;
};
