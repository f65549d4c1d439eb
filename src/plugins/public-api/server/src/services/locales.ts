/**
 * The locales configured in Strapi's i18n plugin. Kept for a few seconds: locales change rarely and
 * every localized read needs them, so one lookup serves many requests.
 */
import type { Core } from '@strapi/strapi';

export type Locales = { codes: string[]; defaultLocale: string };

export const LOCALES_TTL_MS = 5_000;

type LocalesService = {
  find: () => Promise<{ code: string }[]>;
  getDefaultLocale: () => Promise<string | null>;
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let cached: { at: number; value: Promise<Locales> } | null = null;

  const load = async (): Promise<Locales> => {
    const service = strapi.plugin('i18n').service('locales') as LocalesService;
    const [rows, defaultLocale] = await Promise.all([service.find(), service.getDefaultLocale()]);
    const codes = rows.map((row) => row.code).sort();
    return { codes, defaultLocale: defaultLocale ?? codes[0] ?? 'en' };
  };

  return {
    async get(): Promise<Locales> {
      const now = Date.now();
      if (!cached || now - cached.at > LOCALES_TTL_MS) {
        const value = load();
        cached = { at: now, value };
        value.catch(() => {
          cached = null;
        });
      }
      return cached.value;
    },

    forget() {
      cached = null;
    },
  };
};
