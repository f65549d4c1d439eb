/**
 * Creating keys in tests, through the plugin's own service (the same path as the CLI and admin).
 */
import type { Core } from '@strapi/strapi';

type KeysService = {
  create: (input: { name: string; description?: string | null; expiresAt?: string | null; grants: unknown }) => Promise<{
    key: { id: number; keyId: string };
    plaintext: string;
  }>;
  revoke: (id: string | number) => Promise<unknown>;
  regenerate: (id: string | number) => Promise<{ plaintext: string }>;
  update: (id: string | number, input: Record<string, unknown>) => Promise<unknown>;
  remove: (id: string | number) => Promise<unknown>;
};

export const keysService = (strapi: Core.Strapi) => strapi.plugin('public-api').service('keys') as KeysService;

export const createKey = async (strapi: Core.Strapi, grants: unknown, extra: { name?: string; expiresAt?: string | null } = {}) => {
  const { key, plaintext } = await keysService(strapi).create({ name: extra.name ?? 'test key', grants, expiresAt: extra.expiresAt });
  return { ...key, token: plaintext, auth: `Bearer ${plaintext}` };
};
