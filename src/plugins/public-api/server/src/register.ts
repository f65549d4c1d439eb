import type { Core } from '@strapi/strapi';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Tags are a JSON array of strings, edited in the content manager as a list (admin/src/components).
  strapi.customFields.register({
    name: 'tags',
    plugin: 'public-api',
    type: 'json',
  });
};
