/**
 * /public-api/keys/:id/usage?window=24h|7d|30d: a key's usage over the window (services/usage.ts).
 */
import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import { z } from 'zod';
import { USAGE_WINDOWS, type GetKeyUsage } from '../../../../shared/contracts/usage';
import { getService } from '../../utils/get-service';
import { parseBody } from './input';

const usageQuery = z
  .object({ window: z.enum(USAGE_WINDOWS, { error: `The window is one of ${USAGE_WINDOWS.join(', ')}.` }).default('24h') })
  .strict();

export default () => ({
  async find(ctx: Context) {
    const { window } = parseBody(usageQuery, ctx.query);
    const key = await getService('keys').findOne(String(ctx.params.id));
    if (!key) throw new errors.NotFoundError(`No key '${String(ctx.params.id)}'.`);
    ctx.body = { data: await getService('usage').series(key.id, window) } satisfies GetKeyUsage.Response;
  },
});
