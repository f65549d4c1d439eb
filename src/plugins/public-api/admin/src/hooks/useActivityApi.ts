/**
 * The admin routes of a key's activity: its usage over a window and the audit log. Typed by the
 * shared contracts, through the admin's own fetch client.
 */
import { useMemo } from 'react';
import { useFetchClient } from '@strapi/strapi/admin';
import type { ListAuditLog } from '../../../shared/contracts/audit';
import type { GetKeyUsage, UsageWindow } from '../../../shared/contracts/usage';
import { PLUGIN_ID } from '../pluginId';

export const useActivityApi = () => {
  const { get } = useFetchClient();
  return useMemo(
    () => ({
      keyUsage: (id: number, window: UsageWindow) =>
        get<GetKeyUsage.Response>(`/${PLUGIN_ID}/keys/${id}/usage`, { params: { window } }).then((res) => res.data),
      auditLog: (query: ListAuditLog.Query) =>
        get<ListAuditLog.Response>(`/${PLUGIN_ID}/audit-log`, {
          params: Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)),
        }).then((res) => res.data),
    }),
    [get],
  );
};
