/**
 * Richtext on reads: Strapi blocks -> the `doc` document, with embedded images pointing at the same
 * stable asset URLs as media fields.
 *
 * The conversion is a pure function of the stored JSON text and the base URL, and the same records are
 * read again and again, so converted documents are kept in a small LRU (bounded by the characters of
 * their source). Callers only serialize the result; nothing mutates it.
 */
import { assetUrl, type AssetKey } from './assets';
import { blocksToDoc, type BlocksImageFile, type BlocksValue, type ImageAttrs, type RichtextDoc } from './richtext';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export const imageAttrs = (baseUrl: string, key: AssetKey, file: BlocksImageFile): ImageAttrs => {
  const documentId = text(file.documentId);
  const hash = text(file.hash);
  const fileName = text(file.name) ?? 'image';
  return {
    id: documentId,
    src: documentId && hash ? assetUrl(baseUrl, key, { documentId, hash, name: fileName }) : text(file.url),
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

