/**
 * /public-api/keys: list, read, create, change, revoke, regenerate, delete. Thin: parse, call the
 * keys service, answer. Errors (validation, not found) are thrown and answered by Strapi's error layer.
 */
import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import type { CreateKey, DeleteKey, GetKey, ListKeys, RegenerateKey, RevokeKey, UpdateKey } from '../../../../shared/contracts/keys';
import { getService } from '../../utils/get-service';
import { createKeySchema, parseBody, updateKeySchema } from './input';
import { toAdminKey } from './serialize';

const idParam = (ctx: Context): string => String(ctx.params.id);

export default () => ({
  async list(ctx: Context) {
    const keys = await getService('keys').list();
    ctx.body = { data: keys.map(toAdminKey) } satisfies ListKeys.Response;
  },

  async findOne(ctx: Context) {
    const key = await getService('keys').findOne(idParam(ctx));
    if (!key) throw new errors.NotFoundError(`No key '${idParam(ctx)}'.`);
    ctx.body = { data: toAdminKey(key) } satisfies GetKey.Response;
  },

  async create(ctx: Context) {
    const body = parseBody(createKeySchema, ctx.request.body);
    const { key, plaintext } = await getService('keys').create({ ...body, grants: body.grants ?? {} });
    ctx.status = 201;
    ctx.body = { data: toAdminKey(key), meta: { plaintext } } satisfies CreateKey.Response;
  },

  async update(ctx: Context) {
    const body = parseBody(updateKeySchema, ctx.request.body);
    const key = await getService('keys').update(idParam(ctx), body);
    ctx.body = { data: toAdminKey(key) } satisfies UpdateKey.Response;
  },

  async revoke(ctx: Context) {
    const key = await getService('keys').revoke(idParam(ctx));
    ctx.body = { data: toAdminKey(key) } satisfies RevokeKey.Response;
  },

  async regenerate(ctx: Context) {
    const { key, plaintext } = await getService('keys').regenerate(idParam(ctx));
    ctx.body = { data: toAdminKey(key), meta: { plaintext } } satisfies RegenerateKey.Response;
  },

  async remove(ctx: Context) {
    const key = await getService('keys').remove(idParam(ctx));
    ctx.body = { data: toAdminKey(key) } satisfies DeleteKey.Response;
  },
});
