import type { Core } from '@strapi/strapi';
import type { PublicApiCommands } from './plugins/public-api/server/src/public';
import { registerCommands } from './commands';
import { registerDomainRules } from './domain';
import { showWebsiteInPageList } from './editor/page-list';

export default {
  /**
   * Domain rules go in before any plugin bootstraps, so no write can slip past them; the commands too,
   * before the public-api plugin builds its grants and documents from them.
   */
  register({ strapi }: { strapi: Core.Strapi }) {
    registerDomainRules(strapi);
    registerCommands(strapi.plugin('public-api').service('commands') as PublicApiCommands);
  },
  /** After the content manager has generated its views (plugins bootstrap first). */
  async bootstrap({ strapi }: { strapi: Core.Strapi }) {
    await showWebsiteInPageList(strapi);
  },
};
