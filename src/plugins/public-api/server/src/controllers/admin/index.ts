import keys from './keys';
import preview from './preview';
import registry from './registry';
import websites from './websites';

export default {
  'admin-keys': keys,
  'admin-preview': preview,
  'admin-registry': registry,
  'admin-websites': websites,
};
