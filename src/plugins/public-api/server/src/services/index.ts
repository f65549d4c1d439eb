import access from './access';
import adminAccess from './admin-access';
import assets from './assets';
import commands from './commands';
import components from './components';
import derivedKeys from './derived-keys';
import editorLabels from './editor-labels';
import fileVersions from './file-versions';
import gracefulShutdown from './graceful-shutdown';
import grants from './grants';
import idempotency from './idempotency';
import indexes from './indexes';
import journal from './journal';
import keys from './keys';
import lastUsed from './last-used';
import locales from './locales';
import metrics from './metrics';
import openapi from './openapi';
import rateLimits from './rate-limits';
import readiness from './readiness';
import readCaches from './read-caches';
import records from './records';
import resources from './resources';
import slugs from './slugs';
import uploads from './uploads';
import revalidation from './revalidation';
import usage from './usage';
import auditLog from './audit-log';
import webhookDeliveries from './webhooks/deliveries';
import webhookDispatcher from './webhooks/dispatcher';
import webhookEndpoints from './webhooks/endpoints';
import webhookFanOut from './webhooks/fan-out';
import webhookRemovals from './webhooks/grant-removals';
import webhookSubscriptions from './webhooks/subscriptions';
import websites from './websites';
import writes from './writes';

export default {
  access,
  'admin-access': adminAccess,
  assets,
  commands,
  components,
  'derived-keys': derivedKeys,
  'editor-labels': editorLabels,
  'file-versions': fileVersions,
  grants,
  'graceful-shutdown': gracefulShutdown,
  idempotency,
  indexes,
  journal,
  keys,
  'last-used': lastUsed,
  locales,
  metrics,
  openapi,
  'rate-limits': rateLimits,
  readiness,
  'read-caches': readCaches,
  records,
  resources,
  slugs,
  uploads,
  revalidation,
  usage,
  'audit-log': auditLog,
  'webhook-deliveries': webhookDeliveries,
  'webhook-dispatcher': webhookDispatcher,
  'webhook-endpoints': webhookEndpoints,
  'webhook-fan-out': webhookFanOut,
  'webhook-removals': webhookRemovals,
  'webhook-subscriptions': webhookSubscriptions,
  websites,
  writes,
};
