import type { Core } from '@strapi/strapi';
import { createSlugMiddleware } from './slugs/middleware';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Tags are a JSON array of strings, edited in the content manager as a list (admin/src/components).
  strapi.customFields.register({
    name: 'tags',
    plugin: 'public-api',
    type: 'json',
  });
  // Slugs unique per website, kept on every write through the document service (the admin's too).
  strapi.documents.use(createSlugMiddleware(strapi));
};
