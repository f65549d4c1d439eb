import auditLog from './audit-log';
import keys from './keys';
import preview from './preview';
import registry from './registry';
import usage from './usage';
import websites from './websites';

export default {
  'admin-audit-log': auditLog,
  'admin-keys': keys,
  'admin-preview': preview,
  'admin-registry': registry,
  'admin-usage': usage,
  'admin-websites': websites,
};
