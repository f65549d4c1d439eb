/**
 * Asset tokens (contract section 11): the capability in an asset's URL. Pure.
 *
 * The token is an HMAC of the file's identity (documentId, Strapi's hash) and its content version: stable
 * across restarts and instances, unguessable, and different as soon as the file is replaced. Strapi keeps
 * a replaced file's hash and URL, so the content version is the plugin's own (services/file-versions: the
 * SHA-256 of the new bytes, recorded when a file's content changes; none for a file never replaced).
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { FileRow } from '../serialize/rows';

/** `secret`: the key as a KeyObject, made once (an HMAC keyed by a Buffer makes one per asset URL). */
export type AssetKey = { readonly purpose: 'asset'; readonly bytes: Buffer; readonly secret: KeyObject };

export const deriveAssetKey = (serverSecret: string): AssetKey => {
  const bytes = createHmac('sha256', serverSecret).update('public-api/asset/v1').digest();
  return Object.freeze({ purpose: 'asset', bytes, secret: createSecretKey(bytes) });
};

export const ASSET_TOKEN_LENGTH = 32;

/** What a file's token is made of. */
export type FileIdentity = Pick<FileRow, 'documentId' | 'hash' | 'version'>;

/** Names a file's content, for tokens, ETags and variant keys: changes when the file is replaced. */
export const contentIdentity = (file: FileIdentity): string =>
  file.version ? `${file.documentId}:${file.hash}:${file.version}` : `${file.documentId}:${file.hash}`;

export const assetToken = (key: AssetKey, file: FileIdentity): string =>
  createHmac('sha256', key.secret).update(contentIdentity(file)).digest('base64url').slice(0, ASSET_TOKEN_LENGTH);

/** Whether `token` is the file's token, in time that does not depend on where they differ. */
export const assetTokenMatches = (key: AssetKey, file: FileIdentity, token: string): boolean => {
  const expected = Buffer.from(assetToken(key, file));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
};
