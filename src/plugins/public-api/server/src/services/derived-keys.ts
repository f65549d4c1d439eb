/**
 * The keys derived from this application's server secret (keys/derived.ts): derived once per secret; a
 * changed secret derives new ones at once. Kept by the service, so they live and die with the Strapi
 * instance: two applications booted one after another in one process never share them.
 */
import type { Core } from '@strapi/strapi';
import { pluginConfig } from '../config';
import { deriveKeys, type DerivedKeys } from '../keys/derived';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let derived: { secret: string; keys: DerivedKeys } | null = null;
  return {
    current(): DerivedKeys {
      const secret = pluginConfig(strapi).keySecret;
      if (!derived || derived.secret !== secret) derived = { secret, keys: deriveKeys(secret) };
      return derived.keys;
    },
  };
};
