/**
 * /public-api/websites: list, read, create, change, delete. The websites service validates.
 */
import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import type { CreateWebsite, DeleteWebsite, GetWebsite, ListWebsites, UpdateWebsite } from '../../../../shared/contracts/websites';
import { getService } from '../../utils/get-service';
import { toAdminWebsite } from './serialize';

const idParam = (ctx: Context): string => String(ctx.params.id);

export default () => ({
  async list(ctx: Context) {
    const websites = await getService('websites').list();
    ctx.body = { data: websites.map(toAdminWebsite) } satisfies ListWebsites.Response;
  },

  async findOne(ctx: Context) {
    const website = await getService('websites').findOne(idParam(ctx));
    if (!website) throw new errors.NotFoundError(`No website '${idParam(ctx)}'.`);
    ctx.body = { data: toAdminWebsite(website) } satisfies GetWebsite.Response;
  },

  async create(ctx: Context) {
    const website = await getService('websites').create(ctx.request.body);
    ctx.status = 201;
    ctx.body = { data: toAdminWebsite(website) } satisfies CreateWebsite.Response;
  },

  async update(ctx: Context) {
    const website = await getService('websites').update(idParam(ctx), ctx.request.body);
    ctx.body = { data: toAdminWebsite(website) } satisfies UpdateWebsite.Response;
  },

  async remove(ctx: Context) {
    const website = await getService('websites').remove(idParam(ctx));
    ctx.body = { data: toAdminWebsite(website) } satisfies DeleteWebsite.Response;
  },
});
