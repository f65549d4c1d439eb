import type { Core } from '@strapi/strapi';
import { addRequestIdsTo } from './http/request-context';
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
  // Every log entry written while a request runs names its request id (docs/deployment.md, Logs).
  addRequestIdsTo(strapi.log as unknown as Parameters<typeof addRequestIdsTo>[0]);
};
