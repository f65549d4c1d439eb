/**
 * /public-api/keys/:id/webhooks and /public-api/webhooks/:id: a key's webhook endpoints and their
 * delivery log. Thin: parse, call the webhook services, answer. The signing secret is in the answers of
 * create and rotate only.
 */
import type { Context } from 'koa';
import { errors } from '@strapi/utils';
import type {
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  ListWebhookDeliveries,
  ListWebhookEndpoints,
  RedeliverWebhook,
  RotateWebhookSecret,
  UpdateWebhookEndpoint,
} from '../../../../shared/contracts/webhooks';
import { webhookSettings } from '../../config/webhooks';
import { getService } from '../../utils/get-service';

const param = (ctx: Context, name: string): string => String(ctx.params[name]);

/** A positive integer from the query string, or null when absent; anything else is refused. */
const positiveQuery = (ctx: Context, name: string): number | null => {
  const value = ctx.query[name];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !/^[1-9]\d{0,15}$/.test(value)) throw new errors.ValidationError(`'${name}' is a positive integer.`);
  return Number(value);
};

/**
 * A webhook sends what its key reads to a URL the admin chooses: only an admin who may do all the key
 * does (in the Content Manager) may add one, point one elsewhere, send more events or resources through
 * it, or turn it back on (services/admin-access.ts). A description, or turning it off, needs no more.
 */
const assertMayActAs = async (ctx: Context, keyId: string | number) => {
  const key = await getService('keys').findOne(keyId);
  if (!key) return;
  const access = getService('admin-access');
  await access.assertMayActAs(await access.adminOf(ctx.state), { resources: key.grants.resources, preview: key.preview });
};

const widens = (body: unknown): boolean => {
  if (typeof body !== 'object' || body === null) return false;
  const change = body as Record<string, unknown>;
  return change.url !== undefined || change.events !== undefined || change.resources !== undefined || change.enabled === true;
};

export default () => ({
  async list(ctx: Context) {
    ctx.body = { data: await getService('webhook-endpoints').list(param(ctx, 'id')) } satisfies ListWebhookEndpoints.Response;
  },

  async create(ctx: Context) {
    await assertMayActAs(ctx, param(ctx, 'id'));
    const { endpoint, secret } = await getService('webhook-endpoints').create(param(ctx, 'id'), ctx.request.body);
    ctx.status = 201;
    ctx.body = { data: endpoint, meta: { secret } } satisfies CreateWebhookEndpoint.Response;
  },

  async update(ctx: Context) {
    if (widens(ctx.request.body)) {
      const row = await getService('webhook-endpoints').requireRow(param(ctx, 'id'));
      await assertMayActAs(ctx, row.apiKey);
    }
    const endpoint = await getService('webhook-endpoints').update(param(ctx, 'id'), ctx.request.body);
    ctx.body = { data: endpoint } satisfies UpdateWebhookEndpoint.Response;
  },

  async rotate(ctx: Context) {
    const { endpoint, secret } = await getService('webhook-endpoints').rotate(param(ctx, 'id'));
    ctx.body = { data: endpoint, meta: { secret } } satisfies RotateWebhookSecret.Response;
  },

  async remove(ctx: Context) {
    ctx.body = { data: await getService('webhook-endpoints').remove(param(ctx, 'id')) } satisfies DeleteWebhookEndpoint.Response;
  },

  async deliveries(ctx: Context) {
    const endpoint = await getService('webhook-endpoints').requireRow(param(ctx, 'id'));
    const { data, next } = await getService('webhook-deliveries').list(endpoint.id, positiveQuery(ctx, 'before'));
    ctx.body = { data, meta: { next } } satisfies ListWebhookDeliveries.Response;
  },

  async redeliver(ctx: Context) {
    const endpoint = await getService('webhook-endpoints').requireRow(param(ctx, 'id'));
    const delivery = param(ctx, 'delivery');
    if (!/^\d{1,16}$/.test(delivery)) throw new errors.NotFoundError(`No delivery '${delivery}' of this endpoint.`);
    const data = await getService('webhook-deliveries').redeliver(endpoint.id, Number(delivery), webhookSettings(strapi).queuePerEndpoint);
    getService('webhook-dispatcher').trimLater(endpoint.id);
    getService('webhook-dispatcher').wake();
    ctx.status = 201;
    ctx.body = { data } satisfies RedeliverWebhook.Response;
  },
});
