import type { ComponentType } from 'react';
import type { StrapiApp } from '@strapi/strapi/admin';
import { PERMISSIONS } from '../../shared/contracts/permissions';
import { PLUGIN_ID, getTranslation } from './pluginId';

type TranslationModule = { default: Record<string, string> };

const prefixTranslations = (translations: Record<string, string>) =>
  Object.fromEntries(Object.entries(translations).map(([key, value]) => [`${PLUGIN_ID}.${key}`, value]));

export default {
  register(app: StrapiApp) {
    app.customFields.register({
      name: 'tags',
      pluginId: PLUGIN_ID,
      type: 'json',
      intlLabel: { id: getTranslation('tags.label'), defaultMessage: 'Tags' },
      intlDescription: { id: getTranslation('tags.description'), defaultMessage: 'A list of short tags' },
      components: {
        // The content manager passes the field's props (name, label, hint, required, disabled).
        Input: async () => import('./components/TagsInput').then((mod) => ({ default: mod.default as ComponentType })),
      },
    });
    app.registerPlugin({ id: PLUGIN_ID, name: 'Public Data API' });
  },

  bootstrap(app: StrapiApp) {
    // Settings > Public Data API: keys and websites, each shown to admins whose role may read them.
    app.addSettingsLink({ id: PLUGIN_ID, intlLabel: { id: getTranslation('plugin.name'), defaultMessage: 'Public Data API' } }, [
      {
        id: `${PLUGIN_ID}-keys`,
        intlLabel: { id: getTranslation('settings.keys'), defaultMessage: 'API keys' },
        to: `${PLUGIN_ID}/keys`,
        Component: () => import('./pages/keys'),
        permissions: PERMISSIONS.read,
      },
      {
        id: `${PLUGIN_ID}-websites`,
        intlLabel: { id: getTranslation('settings.websites'), defaultMessage: 'Websites' },
        to: `${PLUGIN_ID}/websites`,
        Component: () => import('./pages/websites'),
        permissions: PERMISSIONS.read,
      },
      {
        id: `${PLUGIN_ID}-audit-log`,
        intlLabel: { id: getTranslation('settings.auditLog'), defaultMessage: 'Audit log' },
        to: `${PLUGIN_ID}/audit-log`,
        Component: () => import('./pages/audit'),
        permissions: PERMISSIONS.read,
      },
    ]);
  },

  async registerTrads({ locales }: { locales: string[] }) {
    return Promise.all(
      locales.map(async (locale) => {
        try {
          const { default: data } = (await import(`./translations/${locale}.json`)) as TranslationModule;
          return { data: prefixTranslations(data), locale };
        } catch {
          return { data: {}, locale };
        }
      }),
    );
  },
};
