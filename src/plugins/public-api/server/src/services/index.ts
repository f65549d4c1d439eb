import access from './access';
import assets from './assets';
import components from './components';
import editorLabels from './editor-labels';
import fileVersions from './file-versions';
import grants from './grants';
import idempotency from './idempotency';
import indexes from './indexes';
import journal from './journal';
import keys from './keys';
import lastUsed from './last-used';
import locales from './locales';
import openapi from './openapi';
import rateLimits from './rate-limits';
import records from './records';
import resources from './resources';
import slugs from './slugs';
import uploads from './uploads';
import usage from './usage';
import auditLog from './audit-log';
import websites from './websites';
import writes from './writes';

export default {
  access,
  assets,
  components,
  'editor-labels': editorLabels,
  'file-versions': fileVersions,
  grants,
  idempotency,
  indexes,
  journal,
  keys,
  'last-used': lastUsed,
  locales,
  openapi,
  'rate-limits': rateLimits,
  records,
  resources,
  slugs,
  uploads,
  usage,
  'audit-log': auditLog,
  websites,
  writes,
};
