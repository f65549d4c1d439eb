import keys from './keys';
import preview from './preview';
import registry from './registry';
import webhooks from './webhooks';
import websites from './websites';

export default {
  'admin-keys': keys,
  'admin-preview': preview,
  'admin-registry': registry,
  'admin-webhooks': webhooks,
  'admin-websites': websites,
};
