/**
 * The demo seed: locales, media library, then every planned document in order.
 */
import type { Core } from '@strapi/strapi';
import { buildDemoPlan } from '../plan';
import type { SeededContentType } from '../plan/types';
import { ensureDocument, loadStoredDocuments, type StoredDocuments, type WriteCounts } from './documents';
import { ensureFiles } from './files';
import { ensureLocales } from './locales';
import { createResolver, documentKey, type DocumentIds } from './references';

export type SeedLog = (line: string) => void;

export type DemoSeedResult = {
  localesCreated: string[];
  files: { uploaded: number; reused: number };
  /** What this run wrote, per content type; all zeros on a rerun. */
  writes: Partial<Record<SeededContentType, WriteCounts>>;
  durationMs: number;
};

export const isUnchanged = (result: DemoSeedResult): boolean =>
  result.localesCreated.length === 0 &&
  result.files.uploaded === 0 &&
  Object.values(result.writes).every(
    (counts) => counts && counts.created + counts.localized + counts.published + counts.revised + counts.renamed === 0,
  );

export const seedDemo = async (strapi: Core.Strapi, { log }: { log: SeedLog }): Promise<DemoSeedResult> => {
  const started = Date.now();
  const plan = buildDemoPlan();

  const localesCreated = await ensureLocales(strapi);
  if (localesCreated.length > 0) log(`Locales created: ${localesCreated.join(', ')}`);

  const filesStarted = Date.now();
  const files = await ensureFiles(strapi, plan.files);
  log(`Media library: ${files.uploaded} uploaded, ${files.reused} reused (${((Date.now() - filesStarted) / 1000).toFixed(1)} s)`);

  const documentIds: DocumentIds = new Map();
  const resolve = createResolver(documentIds, files.ids);
  const writes: Partial<Record<SeededContentType, WriteCounts>> = {};
  const stored = new Map<SeededContentType, StoredDocuments>();
  for (const planned of plan.documents) {
    const { contentType } = planned;
    // Read before the first write of a content type, so the state is what the previous run left.
    let state = stored.get(contentType);
    if (!state) {
      state = await loadStoredDocuments(
        strapi,
        contentType,
        plan.documents.filter((document) => document.contentType === contentType),
      );
      stored.set(contentType, state);
    }
    const counts = (writes[contentType] ??= { created: 0, localized: 0, published: 0, revised: 0, renamed: 0 });
    documentIds.set(documentKey(contentType, planned.key), await ensureDocument(strapi, planned, state, resolve, counts));
  }
  return { localesCreated, files: { uploaded: files.uploaded, reused: files.reused }, writes, durationMs: Date.now() - started };
};
