/**
 * What reads keep between requests: the records kept by their inputs (serialize/record-texts.ts, one
 * cache per size setting, `recordCacheChars`; none at 0), and the richtext converted for reads and for
 * the records the sync feed and webhooks render (serialize/richtext-read.ts, a cache each). Kept by the
 * service, so they live and die with the Strapi instance: two applications booted one after another in
 * one process never share a kept record.
 */
import type { Core } from '@strapi/strapi';
import { pluginConfig } from '../config';
import { createRecordTextCache, type RecordTextCache } from '../serialize/record-texts';
import { createRichtextReader } from '../serialize/richtext-read';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let recordTexts: { chars: number; cache: RecordTextCache | undefined } | undefined;
  const richtext = { reads: createRichtextReader(), changes: createRichtextReader() };
  return {
    /** The records kept by their inputs, for the application's size setting (none: 0). */
    recordTexts(): RecordTextCache | undefined {
      const chars = pluginConfig(strapi).recordCacheChars;
      if (recordTexts?.chars !== chars) recordTexts = { chars, cache: chars > 0 ? createRecordTextCache(chars) : undefined };
      return recordTexts.cache;
    },
    /** Richtext converted for the API's reads (read/load-context.ts). */
    readsRichtext: richtext.reads,
    /** Richtext converted for the sync feed and webhooks (serialize/current-records.ts). */
    changesRichtext: richtext.changes,
  };
};
