import type { Core } from '@strapi/strapi';
import { getService } from './utils/get-service';

export default async ({ strapi: _strapi }: { strapi: Core.Strapi }) => {
  getService('idempotency').stopCleanup();
  await getService('last-used').flush();
  await getService('assets').settled();
};
