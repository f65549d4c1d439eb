/**
 * Creating keys in tests, through the plugin's own service (the same path as the CLI and admin).
 */
import type { Core } from '@strapi/strapi';
import type keys from '../../src/plugins/public-api/server/src/services/keys';

/** The plugin's keys service, as src defines it. */
type KeysService = ReturnType<typeof keys>;

export const keysService = (strapi: Core.Strapi) => strapi.plugin('public-api').service('keys') as KeysService;

export const createKey = async (
  strapi: Core.Strapi,
  grants: unknown,
  extra: {
    name?: string;
    expiresAt?: string | null;
    limits?: { requests: number; window: number } | null;
    /** A preview key may read drafts (`status=draft`). */
    preview?: boolean;
  } = {},
) => {
  const { key, plaintext } = await keysService(strapi).create({
    name: extra.name ?? 'test key',
    grants,
    expiresAt: extra.expiresAt,
    limits: extra.limits,
    preview: extra.preview,
  });
  return { ...key, token: plaintext, auth: `Bearer ${plaintext}` };
};
