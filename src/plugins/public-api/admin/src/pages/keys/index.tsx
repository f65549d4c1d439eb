import { Page } from '@strapi/strapi/admin';
import { Route, Routes } from 'react-router-dom';
import { PERMISSIONS } from '../../../../shared/contracts/permissions';
import { CreatePage } from './CreatePage';
import { EditPage } from './EditPage';
import { ListPage } from './ListPage';

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
      {/* The key's tabs: webhooks, usage, changes (details is the key's own URL). */}
      <Route path=":id/:tab" element={<EditPage />} />
    </Routes>
  </Page.Protect>
);

export default KeysPage;
