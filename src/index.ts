import type { Core } from '@strapi/strapi';
import { registerDomainRules } from './domain';

export default {
  /** Domain rules go in before any plugin bootstraps, so no write can slip past them. */
  register({ strapi }: { strapi: Core.Strapi }) {
    registerDomainRules(strapi);
  },
  bootstrap({ strapi: _strapi }: { strapi: Core.Strapi }) {},
};
