import apiKey from './api-key';
import idempotencyRecord from './idempotency-record';
import website from './website';

export default {
  'api-key': apiKey,
  'idempotency-record': idempotencyRecord,
  website,
};
