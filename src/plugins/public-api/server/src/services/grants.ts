/**
 * Grants against what exists now: validates and normalizes grant input for storing on a key.
 */
import type { Core } from '@strapi/strapi';
import { allGrants, resolveGrants, type ResolveResult } from '../grants/resolve';
import type { KeyGrants } from '../grants/types';
import { getService } from '../utils/get-service';

export default ({ strapi: _strapi }: { strapi: Core.Strapi }) => ({
  async resolve(input: unknown): Promise<ResolveResult> {
    const resources = await getService('resources').all();
    return resolveGrants(input, resources, getService('commands').names());
  },

  /** Every resource that exists now with every supported action and field (not future ones). */
  async all(): Promise<KeyGrants> {
    return allGrants(await getService('resources').all(), getService('commands').names());
  },
});
