/**
 * Revalidations answered without reading the records again (issue 16, contract 14).
 *
 * A read's 304 used to cost as much as its 200: the document was loaded, serialized and hashed to learn
 * its tag. Caches in front (a CDN, a browser) revalidate far more often than content changes, so each
 * instance remembers, for the reads it answered with a 200 to a request that carried If-None-Match (a
 * client that revalidates), what a 304 of the same read needs: the document's identity tag, whether it
 * is large enough to be content-coded, and the headers the 304 repeats. The next revalidation of the same
 * read answers 304 from that memo when nothing the document depends on can have changed:
 *
 * - **Content**: every change to a published record writes an entry to the change journal in its own
 *   transaction (services/journal). The memo holds the journal's horizon taken *before* the read ran;
 *   one index probe (`changedSince`) tells whether any entry was written at or after it. Any change to
 *   any record spends every memo (coarse, and never stale): an included record, a relation target, a
 *   component, a media file replaced under a record all reach the journal as changes of the records that
 *   show them.
 * - **The key**: its grants, origins, limits and cache policy (the parsed members, one object per key for
 *   as long as their text is the same: services/keys.ts) and its preview flag, compared per request;
 *   revocation and expiry refuse the request before the memo is looked at.
 * - **Websites and locales**: the websites' rows as read (services/resources.ts) and the locale list.
 * - **Time**: a page's cursors carry the hour they were issued, so a memo lasts until the end of the hour
 *   it was made in; reads of a later page (`cursor` in the query) are not memoized.
 *
 * The memo's key is the key id, the scheme and host the links are built from, the path and query as
 * sent, and the Accept header. Memory: at most MEMO_BYTES of entries, counted as the characters of their
 * key and headers (a page's Cache-Tag names every record in it: a few kilobytes), least recently used first
 * out. A draft read (Cache-Control: no-store) is never memoized.
 */
import type { Core } from '@strapi/strapi';
import type { ApiKey } from '../keys/types';
import type { RevalidationMemo } from '../http/respond';
import type { JournalPosition } from './journal';
import { getService } from '../utils/get-service';

/** How much each instance remembers, in characters of keys and headers (about as many bytes and more). */
export const MEMO_BYTES = 16 * 1024 * 1024;

/** What an entry is counted as: its key, its headers and a fixed allowance for the rest. */
const sizeOf = (id: string, memo: RevalidationMemo): number => {
  let size = 256 + id.length + memo.tag.length;
  for (const [name, value] of Object.entries(memo.headers)) size += name.length + value.length;
  for (const field of memo.vary) size += field.length;
  return size;
};

const HOUR_MS = 60 * 60 * 1000;

/** What the document of a read depended on besides its records, as read for this request. */
export type ReadState = {
  grants: ApiKey['grants'];
  preview: boolean;
  websites: string | null;
  locales: string;
  hour: number;
};

type Entry = RevalidationMemo & { state: ReadState; mark: JournalPosition; size: number };

const sameState = (a: ReadState, b: ReadState) =>
  a.grants === b.grants && a.preview === b.preview && a.websites === b.websites && a.locales === b.locales && a.hour === b.hour;

export default ({ strapi: _strapi }: { strapi: Core.Strapi }) => {
  // Map order is recency order: the first entry is the least recently used.
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const stats = { hits: 0, misses: 0, stored: 0 };
  const forget = (id: string) => {
    const entry = entries.get(id);
    if (!entry) return;
    entries.delete(id);
    bytes -= entry.size;
  };
  const recall = (id: string): Entry | undefined => {
    const entry = entries.get(id);
    if (entry) {
      entries.delete(id);
      entries.set(id, entry);
    }
    return entry;
  };

  return {
    /** The identity of a read: who asks (the key), where links point, what was asked. */
    readId(key: ApiKey, origin: string, pathAndQuery: string, accept: string): string {
      return `${key.id}\u0000${origin}\u0000${pathAndQuery}\u0000${accept}`;
    },

    /** What the read depends on besides its records, now. */
    async state(key: ApiKey, cms: boolean, now = Date.now()): Promise<ReadState> {
      const locales = await getService('locales').get();
      return {
        grants: key.grants,
        preview: key.preview,
        // Only CMS reads depend on the websites (a native resource is the same whatever they publish).
        websites: cms ? (await getService('resources').snapshot()).rows : null,
        locales: `${locales.defaultLocale}\u0000${locales.codes.join(',')}`,
        hour: now - (now % HOUR_MS),
      };
    },

    /**
     * What a 304 of `id` repeats, when the request's If-None-Match holds the remembered tag (`matches`) and
     * nothing the document depends on changed since it was remembered; else null (the read runs as usual).
     */
    async answer(id: string, state: ReadState, matches: (tag: string) => boolean): Promise<RevalidationMemo | null> {
      const entry = recall(id);
      if (!entry || !sameState(entry.state, state) || !matches(entry.tag)) {
        stats.misses += 1;
        return null;
      }
      if (await getService('journal').changedSince(entry.mark)) {
        forget(id);
        stats.misses += 1;
        return null;
      }
      stats.hits += 1;
      return entry;
    },

    /** The journal's horizon, taken before a read runs: the memo of its document is valid from there. */
    mark(): Promise<JournalPosition> {
      return getService('journal').horizon();
    },

    /** Remembers what a 304 of the read `id` needs. */
    remember(id: string, state: ReadState, mark: JournalPosition, memo: RevalidationMemo): void {
      const size = sizeOf(id, memo);
      if (size > MEMO_BYTES) return;
      stats.stored += 1;
      forget(id);
      entries.set(id, { ...memo, state, mark, size });
      bytes += size;
      for (const [oldest] of entries) {
        if (bytes <= MEMO_BYTES) break;
        forget(oldest);
      }
    },

    stats: () => ({ ...stats, entries: entries.size, bytes }),

    clear: () => {
      entries.clear();
      bytes = 0;
    },
  };
};
