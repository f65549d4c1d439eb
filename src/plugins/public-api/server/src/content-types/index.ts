import apiKey from './api-key';
import fileVersion from './file-version';
import idempotencyRecord from './idempotency-record';
import website from './website';

export default {
  'api-key': apiKey,
  'file-version': fileVersion,
  'idempotency-record': idempotencyRecord,
  website,
};
