/**
 * The routes of a settings section of the plugin (API keys, websites): its list, a create page that needs
 * the create permission, and a record's page (with its tabs, where it has them), all behind read.
 */
import type { ReactElement } from 'react';
import { Page } from '@strapi/strapi/admin';
import { Route, Routes } from 'react-router-dom';
import { PERMISSIONS } from '../../../shared/contracts/permissions';

type Props = { list: ReactElement; create: ReactElement; edit: ReactElement; withTabs?: boolean };

export const SettingsRoutes = ({ list, create, edit, withTabs = false }: Props) => (
  <Page.Protect permissions={PERMISSIONS.read}>
    <Routes>
      <Route index element={list} />
      <Route path="create" element={<Page.Protect permissions={PERMISSIONS.create}>{create}</Page.Protect>} />
      <Route path=":id" element={edit} />
      {/* A record's tabs (a key's webhooks, usage, changes; details is the record's own URL). */}
      {withTabs && <Route path=":id/:tab" element={edit} />}
    </Routes>
  </Page.Protect>
);
