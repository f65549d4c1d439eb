/**
 * The database lookups rules may make. Strapi glue.
 */
import type { Core } from '@strapi/strapi';
import type { RuleLookups } from './rules';

export const createRuleLookups = (strapi: Core.Strapi): RuleLookups => ({
  async documentsWithValue(contentType, field, value, exceptDocumentId) {
    const rows = (await strapi.db.query(contentType as Parameters<typeof strapi.db.query>[0]).findMany({
      select: ['documentId'],
      where: { [field]: value, ...(exceptDocumentId ? { documentId: { $ne: exceptDocumentId } } : {}) },
      // One holder is enough to refuse; a few keep the answer honest if the rule ever reports them.
      limit: 5,
    })) as Array<{ documentId: string }>;
    return [...new Set(rows.map((row) => row.documentId))];
  },
});
