/**
 * The admin routes of the plugin, typed by the shared contracts. Requests go through the admin's own
 * fetch client (session, token refresh, error envelope).
 */
import { useMemo } from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import type { GetKeyAccess } from '../../../shared/contracts/content-manager-access';
import type { CreateKey, DeleteKey, GetKey, ListKeys, RegenerateKey, RevokeKey, UpdateKey } from '../../../shared/contracts/keys';
import type { PreviewKey } from '../../../shared/contracts/preview';
import type { GetContentTypes, GetRegistry } from '../../../shared/contracts/registry';
import type { CreateWebsite, DeleteWebsite, GetWebsite, ListWebsites, UpdateWebsite } from '../../../shared/contracts/websites';
import { PLUGIN_ID } from '../pluginId';

const base = `/${PLUGIN_ID}`;

export const usePublicApi = () => {
  const { get, post, put, del } = useFetchClient();
  return useMemo(
    () => ({
      registry: () => get<GetRegistry.Response>(`${base}/registry`).then((res) => res.data),
      contentTypes: () => get<GetContentTypes.Response>(`${base}/content-types`).then((res) => res.data),
      preview: (body: PreviewKey.Request['body'], signal?: AbortSignal) =>
        post<PreviewKey.Response>(`${base}/preview`, body, { signal }).then((res) => res.data),

      listKeys: () => get<ListKeys.Response>(`${base}/keys`).then((res) => res.data),
      getKey: (id: string) => get<GetKey.Response>(`${base}/keys/${encodeURIComponent(id)}`).then((res) => res.data),
      keyAccess: (id: number) => get<GetKeyAccess.Response>(`${base}/keys/${id}/access`).then((res) => res.data),
      createKey: (body: CreateKey.Request['body']) => post<CreateKey.Response>(`${base}/keys`, body).then((res) => res.data),
      updateKey: (id: number, body: UpdateKey.Request['body']) =>
        put<UpdateKey.Response>(`${base}/keys/${id}`, body).then((res) => res.data),
      revokeKey: (id: number) => post<RevokeKey.Response>(`${base}/keys/${id}/revoke`).then((res) => res.data),
      regenerateKey: (id: number) => post<RegenerateKey.Response>(`${base}/keys/${id}/regenerate`).then((res) => res.data),
      deleteKey: (id: number) => del<DeleteKey.Response>(`${base}/keys/${id}`).then((res) => res.data),

      listWebsites: () => get<ListWebsites.Response>(`${base}/websites`).then((res) => res.data),
      getWebsite: (id: string) => get<GetWebsite.Response>(`${base}/websites/${encodeURIComponent(id)}`).then((res) => res.data),
      createWebsite: (body: CreateWebsite.Request['body']) =>
        post<CreateWebsite.Response>(`${base}/websites`, body).then((res) => res.data),
      updateWebsite: (id: number, body: UpdateWebsite.Request['body']) =>
        put<UpdateWebsite.Response>(`${base}/websites/${id}`, body).then((res) => res.data),
      deleteWebsite: (id: number) => del<DeleteWebsite.Response>(`${base}/websites/${id}`).then((res) => res.data),
    }),
    [get, post, put, del],
  );
};

export type PublicApi = ReturnType<typeof usePublicApi>;
