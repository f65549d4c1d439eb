/**
 * The draft and published versions of the record an update writes, and the refusal to publish an
 * editor's pending changes along with it.
 */
import type { Core } from '@strapi/strapi';
import { apiError } from '../../http/errors';
import type { Resource } from '../../registry/types';

type VersionRow = { id: number; publishedAt: unknown; updatedAt: unknown; [attribute: string]: unknown };

const millis = (value: unknown): number => (value instanceof Date ? value.getTime() : new Date(value as string | number).getTime());

export type Versions = { draft: VersionRow | null; published: VersionRow | null };

/** The draft and published rows of a document in the write's locale. */
export const versionsOf = async (
  strapi: Core.Strapi,
  resource: Resource,
  documentId: string,
  locale: string | null,
  select: string[] = [],
): Promise<Versions> => {
  const where: Record<string, unknown> = { documentId };
  if (locale) where.locale = locale;
  const rows = (await strapi.db
    .query(resource.uid as Parameters<typeof strapi.db.query>[0])
    .findMany({ where, select: ['id', 'publishedAt', 'updatedAt', ...select] })) as VersionRow[];
  return { draft: rows.find((row) => row.publishedAt == null) ?? null, published: rows.find((row) => row.publishedAt != null) ?? null };
};

/**
 * An update publishes the draft; when an editor has saved changes to the draft that are not published
 * yet (the admin shows the record as "modified"), publishing would put them live and change fields the
 * request did not send. Refused instead: the editor publishes or discards them first.
 */
export const assertNoPendingChanges = (resource: Resource, versions: Versions) => {
  const { draft, published } = versions;
  if (!resource.draftAndPublish || !draft || !published) return;
  if (millis(draft.updatedAt) > millis(published.updatedAt)) {
    throw apiError(
      409,
      'This record has unpublished changes in the admin; they must be published or discarded before it can be written here.',
      {
        reason: 'unpublished_changes',
      },
    );
  }
};
