import { SettingsRoutes } from '../../components/SettingsRoutes';
import { CreatePage } from './CreatePage';
import { EditPage } from './EditPage';
import { ListPage } from './ListPage';

/** Settings > Public Data API > API keys. */
const KeysPage = () => <SettingsRoutes list={<ListPage />} create={<CreatePage />} edit={<EditPage />} withTabs />;

export default KeysPage;
