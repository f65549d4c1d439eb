/**
 * Turns the plan's references into what the document service takes: documentIds for relations,
 * upload ids for media, wherever they are (top level, inside components and dynamic zone entries).
 */
import type { DocumentRef, FileRef, SeedData, SeededContentType } from '../plan/types';
import type { FileIds } from './files';

export type DocumentIds = Map<string, string>;

export const documentKey = (contentType: SeededContentType, key: string): string => `${contentType}|${key}`;

const isDocumentRef = (value: unknown): value is DocumentRef =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'document-ref';
const isFileRef = (value: unknown): value is FileRef =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'file-ref';

export const createResolver = (documents: DocumentIds, files: FileIds) => {
  const resolveOne = (value: unknown): unknown => {
    if (isDocumentRef(value)) {
      const documentId = documents.get(documentKey(value.contentType, value.key));
      // The plan orders documents so that targets come first: a miss is a bug in the plan.
      if (!documentId) throw new Error(`Seed plan refers to ${value.contentType} '${value.key}' before it is written.`);
      return documentId;
    }
    if (isFileRef(value)) {
      const id = files.get(value.key);
      if (id === undefined) throw new Error(`Seed plan refers to the unknown file '${value.key}'.`);
      return id;
    }
    return value;
  };
  // Components and dynamic zone entries are plain objects holding references of their own, at any depth.
  // Blocks are plain objects too; they hold no references and come out equal.
  const resolveDeep = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolveDeep);
    if (isDocumentRef(value) || isFileRef(value)) return resolveOne(value);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([field, inner]) => [field, resolveDeep(inner)]));
    return value;
  };
  return (data: SeedData): Record<string, unknown> => resolveDeep(data) as Record<string, unknown>;
};
