import type { Core } from '@strapi/strapi';
import { registerDomainRules } from './domain';
import { showWebsiteInPageList } from './editor/page-list';

export default {
  /** Domain rules go in before any plugin bootstraps, so no write can slip past them. */
  register({ strapi }: { strapi: Core.Strapi }) {
    registerDomainRules(strapi);
  },
  /** After the content manager has generated its views (plugins bootstrap first). */
  async bootstrap({ strapi }: { strapi: Core.Strapi }) {
    await showWebsiteInPageList(strapi);
  },
};
