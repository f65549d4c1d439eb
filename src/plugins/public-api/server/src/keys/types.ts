import type { AdminKey } from '../../../shared/contracts/keys';

export const API_KEY_UID = 'plugin::public-api.api-key';

/** A key as the rest of the plugin sees it (the admin's view plus its id): never the hash, never the plaintext. */
export type ApiKey = AdminKey & { keyId: string };

export type ApiKeyRow = {
  id: number;
  documentId: string;
  keyId: string;
  secretHash: string;
  name: string;
  description: string | null;
  lastFour: string;
  grants: unknown;
  commands: unknown;
  origins: unknown;
  limits: unknown;
  cache: unknown;
  /** Null on rows written before the flag existed (not a preview key); 0 or 1 as SQLite returns it to raw SQL. */
  preview: boolean | number | null;
  expiresAt: string | Date | null;
  revoked: boolean;
  lastUsedAt: string | Date | null;
  createdAt: string | Date;
  updatedAt: string | Date;
};
