/**
 * Asset objects and their stable URLs (contract sections 2 and 11). Pure.
 *
 * The token is an HMAC of the file's identity (documentId) and content hash: stable across restarts and
 * instances, unguessable, and different as soon as the file is replaced (Strapi gives a replaced file
 * a new hash). The file name in the URL narrows the lookup when the asset is served.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FileRow } from '../read/rows';

export type AssetKey = { readonly purpose: 'asset'; readonly bytes: Buffer };

export const deriveAssetKey = (serverSecret: string): AssetKey =>
  Object.freeze({ purpose: 'asset', bytes: createHmac('sha256', serverSecret).update('public-api/asset/v1').digest() });

export const ASSET_TOKEN_LENGTH = 32;

export const assetToken = (key: AssetKey, file: Pick<FileRow, 'documentId' | 'hash'>): string =>
  createHmac('sha256', key.bytes).update(`${file.documentId}:${file.hash}`).digest('base64url').slice(0, ASSET_TOKEN_LENGTH);

/** Whether `token` is the file's token, in time that does not depend on where they differ. */
export const assetTokenMatches = (key: AssetKey, file: Pick<FileRow, 'documentId' | 'hash'>, token: string): boolean => {
  const expected = Buffer.from(assetToken(key, file));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
};

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

export const assetUrl = (baseUrl: string, key: AssetKey, file: Pick<FileRow, 'documentId' | 'hash' | 'name'>): string =>
  `${baseUrl}/assets/${assetToken(key, file)}/${encodeURIComponent(file.name)}`;

/** Strapi keeps sizes in kilobytes (bytes / 1000, two decimals); the API speaks bytes. */
export const bytesOf = (kilobytes: number): number => Math.round(kilobytes * 1000);

const isImage = (mime: string) => mime.startsWith('image/');

export const assetObject = (baseUrl: string, key: AssetKey, file: FileRow): Asset => ({
  id: file.documentId,
  url: assetUrl(baseUrl, key, file),
  fileName: file.name,
  mimeType: file.mime,
  size: bytesOf(file.size),
  width: isImage(file.mime) ? file.width : null,
  height: isImage(file.mime) ? file.height : null,
  alt: file.alternativeText,
  caption: file.caption,
});
