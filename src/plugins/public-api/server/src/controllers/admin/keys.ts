/**
 * /public-api/keys: list, read, create, change, revoke, regenerate, delete. Thin: parse, call the
 * keys service, answer. Errors (validation, not found) are thrown and answered by Strapi's error layer.
 */
import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import type { AdminErrorBody } from '../../../../shared/contracts/errors';
import type { CreateKey, DeleteKey, GetKey, ListKeys, RegenerateKey, RevokeKey, UpdateKey } from '../../../../shared/contracts/keys';
import { getService } from '../../utils/get-service';
import { createKeySchema, parseBody, updateKeySchema } from './input';
import { toAdminKey } from './serialize';

const idParam = (ctx: Context): string => String(ctx.params.id);

/**
 * 409 when another key has this name (trimmed, case-folded): two "Shop frontend" keys cannot be told
 * apart in the list, the audit log or a webhook form. Strapi's error envelope, with the issue under
 * `name` so the form shows it under the field. True when it answered.
 */
const refuseTakenName = async (ctx: Context, name: unknown, exceptId?: number): Promise<boolean> => {
  if (typeof name !== 'string') return false;
  const other = await getService('keys').withName(name, exceptId);
  if (!other) return false;
  const message = `A key named '${other.name}' exists already: give this key another name.`;
  ctx.status = 409;
  ctx.body = {
    data: null,
    error: { status: 409, name: 'ConflictError', message, details: { errors: [{ path: ['name'], message }] } },
  } satisfies AdminErrorBody;
  return true;
};

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
    if (await refuseTakenName(ctx, body.name)) return;
    const { key, plaintext } = await getService('keys').create({ ...body, grants: body.grants ?? {} });
    ctx.status = 201;
    ctx.body = { data: toAdminKey(key), meta: { plaintext } } satisfies CreateKey.Response;
  },

  async update(ctx: Context) {
    const body = parseBody(updateKeySchema, ctx.request.body);
    if (body.name !== undefined) {
      const current = await getService('keys').findOne(idParam(ctx));
      if (!current) throw new errors.NotFoundError(`No key '${idParam(ctx)}'.`);
      if (await refuseTakenName(ctx, body.name, current.id)) return;
    }
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
