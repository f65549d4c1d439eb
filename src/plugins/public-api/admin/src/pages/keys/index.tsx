import { Page } from '@strapi/strapi/admin';
import { Route, Routes } from 'react-router-dom';
import { PERMISSIONS } from '../../../../shared/contracts/permissions';
import { CreatePage } from './CreatePage';
import { EditPage } from './EditPage';
import { ListPage } from './ListPage';
import { WebhooksPage } from './WebhooksPage';

/** Settings > Public Data API > API keys. */
const KeysPage = () => (
  <Page.Protect permissions={PERMISSIONS.read}>
    <Routes>
      <Route index element={<ListPage />} />
      <Route
        path="create"
        element={
          <Page.Protect permissions={PERMISSIONS.create}>
            <CreatePage />
          </Page.Protect>
        }
      />
      <Route path=":id" element={<EditPage />} />
      <Route path=":id/webhooks" element={<WebhooksPage />} />
    </Routes>
  </Page.Protect>
);

export default KeysPage;
