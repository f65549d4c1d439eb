/**
 * Richtext on reads: Strapi blocks -> the `doc` document, with embedded images pointing at the same
 * stable asset URLs as media fields.
 *
 * The conversion is a pure function of the stored JSON text and the base URL, and the same records are
 * read again and again, so converted documents are kept in a small LRU (bounded by the characters of
 * their source). Callers only serialize the result; nothing mutates it.
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

/** An LRU of converted documents, bounded by the total length of the JSON they came from. */
export const createRichtextReader = (maxSourceChars = 8_000_000) => {
  const cache = new Map<string, { doc: RichtextDoc | null; size: number }>();
  let size = 0;

  return (raw: unknown, baseUrl: string, key: AssetKey): RichtextDoc | null => {
    if (typeof raw !== 'string') return convert(raw, baseUrl, key);
    const cacheKey = `${baseUrl}\n${raw}`;
    const hit = cache.get(cacheKey);
    if (hit) {
      cache.delete(cacheKey);
      cache.set(cacheKey, hit);
      return hit.doc;
    }
    let blocks: unknown;
    try {
      blocks = JSON.parse(raw);
    } catch {
      return null;
    }
    const doc = convert(blocks, baseUrl, key);
    if (raw.length <= maxSourceChars / 10) {
      cache.set(cacheKey, { doc, size: raw.length });
      size += raw.length;
      for (const [oldest, entry] of cache) {
        if (size <= maxSourceChars) break;
        cache.delete(oldest);
        size -= entry.size;
      }
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
