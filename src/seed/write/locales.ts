/**
 * The locales the demo content is written in: English (the default) and German, created through
 * the i18n plugin's own service so its permissions hooks run as they would from the admin.
 */
import type { Core } from '@strapi/strapi';

type LocalesService = {
  findByCode: (code: string) => Promise<{ code: string } | null>;
  create: (locale: { code: string; name: string }) => Promise<unknown>;
  getDefaultLocale: () => Promise<string | null>;
  setDefaultLocale: (locale: { code: string }) => Promise<unknown>;
};

export const SEED_LOCALES = [
  { code: 'en', name: 'English (en)' },
  { code: 'de', name: 'German (de)' },
] as const;

/** Returns the codes it had to create. */
export const ensureLocales = async (strapi: Core.Strapi): Promise<string[]> => {
  const locales = strapi.plugin('i18n').service('locales') as LocalesService;
  const created: string[] = [];
  for (const locale of SEED_LOCALES) {
    if (!(await locales.findByCode(locale.code))) {
      await locales.create({ code: locale.code, name: locale.name });
      created.push(locale.code);
    }
  }
  if ((await locales.getDefaultLocale()) !== 'en') await locales.setDefaultLocale({ code: 'en' });
  return created;
};
