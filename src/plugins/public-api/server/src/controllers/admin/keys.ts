/**
 * /public-api/keys: list, read, create, change, revoke, regenerate, delete. Thin: parse, call the
 * keys service, answer. Errors (validation, not found) are thrown and answered by Strapi's error layer.
 * What a key may be given, and who may take its secret, is bounded by the admin's own Content Manager
 * rights (services/admin-access.ts); revoking and deleting only take away, and need no more than the route's action.
 */
import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import type { AdminErrorBody } from '../../../../shared/contracts/errors';
import type { GetKeyAccess } from '../../../../shared/contracts/content-manager-access';
import type { CreateKey, DeleteKey, GetKey, ListKeys, RegenerateKey, RevokeKey, UpdateKey } from '../../../../shared/contracts/keys';
import type { KeyHoldings } from '../../grants/content-manager';
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

/** The Content Manager check of this request's admin, for the keys service to ask before it writes. */
const authorizeFor = async (ctx: Context) => {
  const access = getService('admin-access');
  const admin = await access.adminOf(ctx.state);
  return (before: KeyHoldings | null, after: KeyHoldings) => access.assertMayChangeKey(admin, before, after);
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

  /** What this key holds that the admin may not do in the Content Manager: the key page's notice. */
  async access(ctx: Context) {
    const key = await getService('keys').findOne(idParam(ctx));
    if (!key) throw new errors.NotFoundError(`No key '${idParam(ctx)}'.`);
    const access = getService('admin-access');
    const issues = await access.missingFor(await access.adminOf(ctx.state), { resources: key.grants.resources, preview: key.preview });
    ctx.body = {
      data: { complete: issues.length === 0, issues: issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })) },
    } satisfies GetKeyAccess.Response;
  },

  async create(ctx: Context) {
    const body = parseBody(createKeySchema, ctx.request.body);
    if (await refuseTakenName(ctx, body.name)) return;
    const { key, plaintext } = await getService('keys').create({ ...body, grants: body.grants ?? {} }, await authorizeFor(ctx));
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
    const key = await getService('keys').update(idParam(ctx), body, [], await authorizeFor(ctx));
    ctx.body = { data: toAdminKey(key) } satisfies UpdateKey.Response;
  },

  async revoke(ctx: Context) {
    const key = await getService('keys').revoke(idParam(ctx));
    ctx.body = { data: toAdminKey(key) } satisfies RevokeKey.Response;
  },

  async regenerate(ctx: Context) {
    const current = await getService('keys').findOne(idParam(ctx));
    if (current) {
      // The new secret is the key's whole power: only for an admin who may do all it does.
      const access = getService('admin-access');
      await access.assertMayActAs(await access.adminOf(ctx.state), { resources: current.grants.resources, preview: current.preview });
    }
    const { key, plaintext } = await getService('keys').regenerate(idParam(ctx));
    ctx.body = { data: toAdminKey(key), meta: { plaintext } } satisfies RegenerateKey.Response;
  },

  async remove(ctx: Context) {
    const key = await getService('keys').remove(idParam(ctx));
    ctx.body = { data: toAdminKey(key) } satisfies DeleteKey.Response;
  },
});
