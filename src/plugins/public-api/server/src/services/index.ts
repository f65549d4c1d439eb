import access from './access';
import assets from './assets';
import fileVersions from './file-versions';
import gracefulShutdown from './graceful-shutdown';
import grants from './grants';
import idempotency from './idempotency';
import indexes from './indexes';
import keys from './keys';
import lastUsed from './last-used';
import locales from './locales';
import metrics from './metrics';
import openapi from './openapi';
import rateLimits from './rate-limits';
import readiness from './readiness';
import records from './records';
import resources from './resources';
import slugs from './slugs';
import uploads from './uploads';
import websites from './websites';
import writes from './writes';

export default {
  access,
  assets,
  'file-versions': fileVersions,
  grants,
  'graceful-shutdown': gracefulShutdown,
  idempotency,
  indexes,
  keys,
  'last-used': lastUsed,
  locales,
  metrics,
  openapi,
  'rate-limits': rateLimits,
  readiness,
  records,
  resources,
  slugs,
  uploads,
  websites,
  writes,
};
