/**
 * /public-api/websites: list, read, create, change, delete. The websites service validates; a new
 * publication needs the admin's Content Manager read of its content type (services/admin-access.ts).
 */
import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import type { CreateWebsite, DeleteWebsite, GetWebsite, ListWebsites, UpdateWebsite } from '../../../../shared/contracts/websites';
import { getService } from '../../utils/get-service';
import type { Publication } from '../../registry/build';
import { toAdminWebsite } from './serialize';

const idParam = (ctx: Context): string => String(ctx.params.id);

/** The Content Manager check of this request's admin, for the websites service to ask before it writes. */
const authorizeFor = async (ctx: Context) => {
  const access = getService('admin-access');
  const admin = await access.adminOf(ctx.state);
  return (before: readonly Publication[] | null, after: readonly Publication[]) => access.assertMayPublish(admin, before, after);
};

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
    const website = await getService('websites').create(ctx.request.body, await authorizeFor(ctx));
    ctx.status = 201;
    ctx.body = { data: toAdminWebsite(website) } satisfies CreateWebsite.Response;
  },

  async update(ctx: Context) {
    const website = await getService('websites').update(idParam(ctx), ctx.request.body, await authorizeFor(ctx));
    ctx.body = { data: toAdminWebsite(website) } satisfies UpdateWebsite.Response;
  },

  async remove(ctx: Context) {
    const website = await getService('websites').remove(idParam(ctx));
    ctx.body = { data: toAdminWebsite(website) } satisfies DeleteWebsite.Response;
  },
});
