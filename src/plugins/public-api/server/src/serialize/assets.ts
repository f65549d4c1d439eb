/**
 * Asset objects and their stable URLs (contract sections 2 and 11). Pure. The token in the URL is
 * `assets/token.ts`'s; the file name in the URL narrows the lookup when the asset is served.
 */
import { assetToken, type AssetKey, type FileIdentity } from '../assets/token';
import type { FileRow } from './rows';

export type Asset = {
  id: string;
  url: string;
  fileName: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  alt: string | null;
  caption: string | null;
};

export const assetUrl = (baseUrl: string, key: AssetKey, file: FileIdentity & Pick<FileRow, 'name'>): string =>
  `${baseUrl}/assets/${assetToken(key, file)}/${encodeURIComponent(file.name)}`;

/**
 * The API speaks bytes. The exact count is the plugin's record; Strapi's own `size` (kilobytes, two
 * decimals, so within 5 bytes) is the fallback for a file the plugin could not measure (a remote provider's
 * file written before the plugin recorded sizes).
 */
export const bytesOf = (file: Pick<FileRow, 'size' | 'bytes'>): number => file.bytes ?? Math.round(file.size * 1000);

const isImage = (mime: string) => mime.startsWith('image/');

export const assetObject = (baseUrl: string, key: AssetKey, file: FileRow): Asset => ({
  id: file.documentId,
  url: assetUrl(baseUrl, key, file),
  fileName: file.name,
  mimeType: file.mime,
  size: bytesOf(file),
  width: isImage(file.mime) ? file.width : null,
  height: isImage(file.mime) ? file.height : null,
  alt: file.alternativeText,
  caption: file.caption,
});
