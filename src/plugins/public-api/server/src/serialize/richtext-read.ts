/**
 * Richtext on reads: Strapi blocks -> the `doc` document, with embedded images pointing at the same
 * stable asset URLs as media fields.
 *
 * The conversion is a pure function of the stored JSON text and the base URL, and the same records are
 * read again and again, so converted documents are kept in a small cache keyed by the record's identity and
 * version (bounded by the characters of their source). Callers only serialize the result; nothing
 * mutates it.
 *
 * Strapi stores an embedded image as a copy of its file row, taken when it was inserted. A file renamed or
 * replaced since then has another URL; `withCurrentImages` points the images at the files as they are now.
 */
import type { AssetKey } from '../assets/token';
import type { CurrentImageFile } from './rows';
import { assetUrl } from './assets';
import { blocksToDoc, type BlockNode, type BlocksImageFile, type BlocksValue, type ImageAttrs, type RichtextDoc } from '../richtext';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export const imageAttrs = (baseUrl: string, key: AssetKey, file: BlocksImageFile): ImageAttrs => {
  const documentId = text(file.documentId);
  const hash = text(file.hash);
  const fileName = text(file.name) ?? 'image';
  return {
    id: documentId,
    // The copy carries no content version: this is the URL of a file never replaced, until withCurrentImages.
    src: documentId && hash ? assetUrl(baseUrl, key, { documentId, hash, version: null, name: fileName }) : text(file.url),
    alt: text(file.alternativeText),
    caption: text(file.caption),
    width: number(file.width),
    height: number(file.height),
    mimeType: text(file.mime),
    fileName,
  };
};

const convert = (blocks: unknown, baseUrl: string, key: AssetKey): RichtextDoc | null =>
  Array.isArray(blocks) ? blocksToDoc(blocks as BlocksValue, { imageToAttrs: (file) => imageAttrs(baseUrl, key, file) }) : null;

const stamp = (updatedAt: unknown): string => (updatedAt instanceof Date ? String(updatedAt.getTime()) : String(updatedAt));

/**
 * Which stored value a conversion is of: the record's row, the field and the row's last change
 * (`updatedAt`, which Strapi sets on every write). With the base URL, the key of the cache: a hit costs
 * the hash of this short text, not of the whole JSON body.
 */
export const richtextIdentity = (uid: string, rowId: number, field: string, updatedAt: unknown): string =>
  `${uid}\n${rowId}\n${field}\n${stamp(updatedAt)}`;

/**
 * The version of a record's row that its component rows share (`RecordRow.version`): the row and its
 * `updatedAt`. Strapi sets `updatedAt` on every write of the document, also one that changes only a
 * component, and the content manager edits a component's row in place (same row id): so a component's
 * richtext is keyed by its own row and field and by this, never by its row id alone.
 */
export const recordVersion = (uid: string, rowId: number, updatedAt: unknown): string => `${uid}#${rowId}@${stamp(updatedAt)}`;

/** The identity of a richtext value inside a component row (`richtextIdentity` with the record's version for its last change). */
export const componentRichtextIdentity = (componentUid: string, rowId: number, field: string, version: string): string =>
  richtextIdentity(componentUid, rowId, field, version);

/**
 * A cache of converted documents by record identity (`richtextIdentity`), bounded by the total length of
 * the JSON they came from and by a number of entries. A hit also needs the value to have the length it
 * had: a value changed without a new `updatedAt` (SQL by hand) is converted again unless its length is
 * the same too. Without an identity a value is converted every time.
 */
export const createRichtextReader = (maxSourceChars = 8_000_000, maxEntries = 50_000) => {
  // Least recently used first, approximately (CLOCK, "second chance"): a hit only marks its entry, and
  // the eviction moves a marked entry to the back instead of dropping it. Moving every hit to the back
  // (a delete and a set on a map of up to 50,000 entries) was most of a hit's cost, and a page hits once
  // per record (issue 16).
  const cache = new Map<string, { doc: RichtextDoc | null; size: number; used: boolean }>();
  let size = 0;

  const parse = (raw: unknown): { blocks: unknown; size: number } | null => {
    if (typeof raw !== 'string') return { blocks: raw, size: JSON.stringify(raw ?? null).length };
    try {
      return { blocks: JSON.parse(raw), size: raw.length };
    } catch {
      return null;
    }
  };

  const evict = () => {
    for (const [oldest, entry] of cache) {
      if (size <= maxSourceChars && cache.size <= maxEntries) return;
      cache.delete(oldest);
      if (entry.used) {
        // A second chance: to the back, unmarked. Each entry is moved at most once per pass.
        entry.used = false;
        cache.set(oldest, entry);
      } else size -= entry.size;
    }
  };

  return (raw: unknown, baseUrl: string, key: AssetKey, identity?: string): RichtextDoc | null => {
    const cacheKey = identity === undefined ? null : `${baseUrl}\n${identity}`;
    const length = typeof raw === 'string' ? raw.length : null;
    if (cacheKey !== null) {
      const hit = cache.get(cacheKey);
      if (hit && (length === null || hit.size === length)) {
        hit.used = true;
        return hit.doc;
      }
    }
    const parsed = parse(raw);
    if (!parsed) return null;
    const doc = convert(parsed.blocks, baseUrl, key);
    if (cacheKey !== null && parsed.size <= maxSourceChars / 10) {
      const previous = cache.get(cacheKey);
      if (previous) {
        cache.delete(cacheKey);
        size -= previous.size;
      }
      cache.set(cacheKey, { doc, size: parsed.size, used: false });
      size += parsed.size;
      evict();
    }
    return doc;
  };
};

/** A file as an embedded image's URL names it now, with what describes its bytes. */
const isImage = (node: BlockNode): node is Extract<BlockNode, { type: 'image' }> => node.type === 'image';

/** The files a document's images name (root blocks: Strapi places images nowhere else). */
export const imageIdsOf = (doc: RichtextDoc | null): string[] =>
  (doc?.content ?? []).flatMap((node) => (isImage(node) && typeof node.attrs.id === 'string' ? [node.attrs.id] : []));

/**
 * The document with each image's `src`, `fileName`, dimensions and type as its file is now (`current`, by
 * documentId); the very same document when nothing differs. Alt text and caption stay as stored (the
 * blocks editor shows those). Images of files that are gone keep what was stored.
 */
export const withCurrentImages = (
  doc: RichtextDoc | null,
  current: ReadonlyMap<string, CurrentImageFile>,
  baseUrl: string,
  key: AssetKey,
): RichtextDoc | null => {
  if (!doc || current.size === 0) return doc;
  let changed = false;
  const content = doc.content.map((node) => {
    if (!isImage(node) || typeof node.attrs.id !== 'string') return node;
    const file = current.get(node.attrs.id);
    if (!file) return node;
    const now = { src: assetUrl(baseUrl, key, file), fileName: file.name, width: file.width, height: file.height, mimeType: file.mime };
    if ((Object.keys(now) as (keyof typeof now)[]).every((name) => node.attrs[name] === now[name])) return node;
    changed = true;
    return { ...node, attrs: { ...node.attrs, ...now } };
  });
  return changed ? { ...doc, content } : doc;
};
