/**
 * The key format `pdk_<keyId>_<secret>` (contract section 4): generation, parsing and hashing. Pure
 * apart from the cryptographic random source.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'pdk_';
export const KEY_ID_LENGTH = 12;
export const SECRET_LENGTH = 40;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}([0-9A-Za-z]{${KEY_ID_LENGTH}})_([0-9A-Za-z]{32,128})$`);

/** Uniform base62 from a CSPRNG: bytes >= 248 are rejected so that every symbol is equally likely. */
export const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
};

export type ParsedKey = { keyId: string; secret: string };

export const parseKey = (token: string): ParsedKey | null => {
  const match = KEY_PATTERN.exec(token);
  return match ? { keyId: match[1]!, secret: match[2]! } : null;
};

export const formatKey = (keyId: string, secret: string) => `${KEY_PREFIX}${keyId}_${secret}`;

export const generateKey = (keyId: string = randomBase62(KEY_ID_LENGTH)) => {
  const key = formatKey(keyId, randomBase62(SECRET_LENGTH));
  return { key, keyId, lastFour: key.slice(-4) };
};

/** Only this HMAC of the whole key is stored; the server secret never leaves the environment. */
export const hashKey = (serverSecret: string, key: string): string => createHmac('sha256', serverSecret).update(key, 'utf8').digest('hex');

export const hashesEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
};

/** `pdk_<keyId>`: what the admin and the CLI show, with the last four characters. */
export const displayPrefix = (keyId: string) => `${KEY_PREFIX}${keyId}`;

/** Reads `Authorization: Bearer <key>`; anything else is null. */
export const bearerToken = (authorization: string | undefined): string | null => {
  if (!authorization) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match ? match[1]! : null;
};
