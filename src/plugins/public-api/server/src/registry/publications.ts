/**
 * What a website may publish: validated whenever a website is saved. Pure.
 */
import { z } from 'zod';
import { RESERVED_FIELD_NAMES } from '../fields/system-keys';
import type { ContentTypeSchema, Publication } from './build';

export const COLLECTION_SLUG = /^[a-z][a-z0-9-]{0,62}[a-z0-9]$|^[a-z]$/;

export const publicationSchema = z
  .object({
    collection: z
      .string()
      .regex(COLLECTION_SLUG, 'Collection slugs are lowercase letters, digits and dashes, starting with a letter (at most 64).'),
    contentType: z.string().min(1, 'Choose a content type.'),
    mode: z.enum(['collection', 'singleton']).default('collection'),
    name: z.string().trim().max(120).optional(),
  })
  .strict();

export type PublicationIssue = { path: (string | number)[]; message: string };

export const validatePublications = (
  input: unknown,
  schemas: Map<string, ContentTypeSchema>,
): { ok: true; value: Publication[] } | { ok: false; issues: PublicationIssue[] } => {
  const parsed = z
    .array(publicationSchema)
    .max(100, 'A website publishes at most 100 collections.')
    .safeParse(input ?? []);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({ path: issue.path as (string | number)[], message: issue.message })),
    };
  }
  const issues: PublicationIssue[] = [];
  const seen = new Map<string, number>();
  parsed.data.forEach((publication, index) => {
    const previous = seen.get(publication.collection);
    if (previous !== undefined) {
      issues.push({
        path: [index, 'collection'],
        message: `The collection slug '${publication.collection}' is already used by publication ${previous + 1} of this website.`,
      });
    }
    seen.set(publication.collection, index);
    const schema = schemas.get(publication.contentType);
    if (!schema || !publication.contentType.startsWith('api::')) {
      issues.push({ path: [index, 'contentType'], message: `Content type '${publication.contentType}' does not exist.` });
      return;
    }
    if (schema.kind === 'singleType' && publication.mode !== 'singleton') {
      issues.push({ path: [index, 'mode'], message: `${publication.contentType} is a single type; publish it as a singleton.` });
    }
    for (const name of RESERVED_FIELD_NAMES) {
      if (Object.prototype.hasOwnProperty.call(schema.attributes, name)) {
        issues.push({
          path: [index, 'contentType'],
          message: `${publication.contentType} has an attribute named '${name}', which JSON:API reserves.`,
        });
      }
    }
  });
  return issues.length ? { ok: false, issues } : { ok: true, value: parsed.data as Publication[] };
};
