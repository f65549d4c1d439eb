import { SettingsRoutes } from '../../components/SettingsRoutes';
import { EditPage } from './EditPage';
import { ListPage } from './ListPage';

/** Settings > Public Data API > Websites. */
const WebsitesPage = () => <SettingsRoutes list={<ListPage />} create={<EditPage />} edit={<EditPage />} />;

export default WebsitesPage;
