import access from './access';
import assets from './assets';
import components from './components';
import fileVersions from './file-versions';
import grants from './grants';
import idempotency from './idempotency';
import indexes from './indexes';
import keys from './keys';
import lastUsed from './last-used';
import locales from './locales';
import openapi from './openapi';
import rateLimits from './rate-limits';
import records from './records';
import resources from './resources';
import slugs from './slugs';
import uploads from './uploads';
import websites from './websites';
import writes from './writes';

export default {
  access,
  assets,
  components,
  'file-versions': fileVersions,
  grants,
  idempotency,
  indexes,
  keys,
  'last-used': lastUsed,
  locales,
  openapi,
  'rate-limits': rateLimits,
  records,
  resources,
  slugs,
  uploads,
  websites,
  writes,
};
