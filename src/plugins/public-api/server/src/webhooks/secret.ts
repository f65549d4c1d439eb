/**
 * Endpoint signing secrets. A secret is `whsec_` and 32 random bytes in base64 (the Standard Webhooks
 * form, which its libraries take as is). It is shown once, when made; to sign later the server must have
 * it, so it is stored encrypted (AES-256-GCM under a key derived from the plugin's server secret) and
 * never returned by any route: a copy of the database alone does not give the signing secrets away.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export const generateSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

const encryptionKey = (serverSecret: string): Buffer => createHmac('sha256', serverSecret).update('public-api webhook secrets v1').digest();

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export const sealSecret = (serverSecret: string, secret: string): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(serverSecret), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
};

/** The secret sealed by `sealSecret`, or null when it was sealed under another server secret or altered. */
export const openSecret = (serverSecret: string, sealed: string): string | null => {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', encryptionKey(serverSecret), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
};

/** What the admin shows of a secret after it was made: its last four characters. */
export const secretHint = (secret: string): string => secret.slice(-4);
