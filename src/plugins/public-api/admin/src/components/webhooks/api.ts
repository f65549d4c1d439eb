/**
 * The webhook admin routes, typed by the shared contracts, through the admin's own fetch client.
 */
import { useMemo } from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import type {
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  ListWebhookDeliveries,
  ListWebhookEndpoints,
  RedeliverWebhook,
  RotateWebhookSecret,
  UpdateWebhookEndpoint,
} from '../../../../shared/contracts/webhooks';
import { PLUGIN_ID } from '../../pluginId';

const base = `/${PLUGIN_ID}`;

export const useWebhooksApi = () => {
  const { get, post, put, del } = useFetchClient();
  return useMemo(
    () => ({
      list: (keyId: number) => get<ListWebhookEndpoints.Response>(`${base}/keys/${keyId}/webhooks`).then((res) => res.data),
      create: (keyId: number, body: CreateWebhookEndpoint.Request['body']) =>
        post<CreateWebhookEndpoint.Response>(`${base}/keys/${keyId}/webhooks`, body).then((res) => res.data),
      update: (id: number, body: UpdateWebhookEndpoint.Request['body']) =>
        put<UpdateWebhookEndpoint.Response>(`${base}/webhooks/${id}`, body).then((res) => res.data),
      rotate: (id: number) => post<RotateWebhookSecret.Response>(`${base}/webhooks/${id}/rotate`).then((res) => res.data),
      remove: (id: number) => del<DeleteWebhookEndpoint.Response>(`${base}/webhooks/${id}`).then((res) => res.data),
      deliveries: (id: number, before?: number) =>
        get<ListWebhookDeliveries.Response>(`${base}/webhooks/${id}/deliveries${before ? `?before=${before}` : ''}`).then(
          (res) => res.data,
        ),
      redeliver: (id: number, delivery: number) =>
        post<RedeliverWebhook.Response>(`${base}/webhooks/${id}/deliveries/${delivery}/redeliver`).then((res) => res.data),
    }),
    [get, post, put, del],
  );
};

export type WebhooksApi = ReturnType<typeof useWebhooksApi>;
