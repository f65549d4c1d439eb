import { Page } from '@strapi/strapi/admin';
import { Route, Routes } from 'react-router-dom';
import { PERMISSIONS } from '../../../../shared/contracts/permissions';
import { EditPage } from './EditPage';
import { ListPage } from './ListPage';

/** Settings > Public Data API > Websites. */
const WebsitesPage = () => (
  <Page.Protect permissions={PERMISSIONS.read}>
    <Routes>
      <Route index element={<ListPage />} />
      <Route
        path="create"
        element={
          <Page.Protect permissions={PERMISSIONS.create}>
            <EditPage />
          </Page.Protect>
        }
      />
      <Route path=":id" element={<EditPage />} />
    </Routes>
  </Page.Protect>
);

export default WebsitesPage;
