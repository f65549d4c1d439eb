/**
 * The note a request leaves in its scratch directory before it writes a file through the upload
 * provider: which bytes it is about to write. The file's row commits with the request's transaction; a
 * crash in between leaves the note, and the sweep at the next start deletes the bytes unless their row
 * exists (services/uploads.ts). Pure.
 */
export type StoredIntent = { hash: string; ext: string; mime: string };

export const INTENT_SUFFIX = '.intent.json';

/** What Strapi's upload service generates (a slug with a random suffix): never a path out of the upload folder. */
const HASH = /^[^/\\\0]{1,255}$/;
const EXT = /^\.[A-Za-z0-9]{1,16}$/;

export const serializeIntent = (intent: StoredIntent): string => JSON.stringify({ hash: intent.hash, ext: intent.ext, mime: intent.mime });

/** The note's content -> the intent, or null when it is not one (never acted on). */
export const parseIntent = (text: string): StoredIntent | null => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const { hash, ext, mime } = value as Record<string, unknown>;
  if (typeof hash !== 'string' || !HASH.test(hash) || hash.includes('..')) return null;
  if (typeof ext !== 'string' || !EXT.test(ext)) return null;
  if (typeof mime !== 'string' || mime.length > 255) return null;
  return { hash, ext, mime };
};
