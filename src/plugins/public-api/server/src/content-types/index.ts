import apiKey from './api-key';
import fileVersion from './file-version';
import idempotencyRecord from './idempotency-record';
import webhookDelivery from './webhook-delivery';
import webhookEndpoint from './webhook-endpoint';
import website from './website';

export default {
  'api-key': apiKey,
  'file-version': fileVersion,
  'idempotency-record': idempotencyRecord,
  'webhook-delivery': webhookDelivery,
  'webhook-endpoint': webhookEndpoint,
  website,
};
