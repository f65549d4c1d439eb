/**
 * The demo's `.env`: written once with fresh random secrets when none exists, never overwritten.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const secret = (bytes = 24) => randomBytes(bytes).toString('base64url');

export const freshEnvFile = (): string =>
  [
    '# Written by `npm run demo` with fresh random secrets. See .env.example for every setting.',
    `APP_KEYS=${[secret(), secret(), secret(), secret()].join(',')}`,
    `API_TOKEN_SALT=${secret()}`,
    `ADMIN_JWT_SECRET=${secret()}`,
    `TRANSFER_TOKEN_SALT=${secret()}`,
    `ENCRYPTION_KEY=${secret()}`,
    `JWT_SECRET=${secret()}`,
    `PUBLIC_API_KEY_SECRET=${secret(48)}`,
    '',
  ].join('\n');

/** Creates `<root>/.env` when missing; returns whether it did. */
export const ensureEnvFile = (root: string): boolean => {
  const file = path.join(root, '.env');
  if (fs.existsSync(file)) return false;
  fs.writeFileSync(file, freshEnvFile(), { mode: 0o600 });
  return true;
};
