/**
 * Checks the plugin's settings when Strapi loads them (the config's `validator`): a setting out of its
 * bounds stops the start with a message that names it as the operator sets it.
 */
import {
  MAX_ATOMIC_TIME_LIMIT_MS,
  MAX_RATE_LIMIT_LEASE_MS,
  MAX_RECORD_CACHE_CHARS,
  MIN_ATOMIC_TIME_LIMIT_MS,
  OVERLOADED_RETRY_AFTER_SECONDS,
  type PluginConfig,
} from './settings';
import { RATE_LIMIT_STORES, parseRateLimit } from './rate-limits';
import { validateOperationsConfig } from './operator';
import { ALLOW_HTTP_LOOPBACK_VARIABLE } from './webhooks';
import { nativeResourcesProblem } from './native-resources';

export const validatePluginConfig = (config: Partial<PluginConfig>): void => {
  // Not a setting of the plugin config: the one flag is read from the environment (config/webhooks.ts), so
  // that the server and `npm run key` cannot disagree about it. Set here, it would be silently ignored.
  if ((config as { webhooks?: { allowHttpLoopback?: unknown } }).webhooks?.allowHttpLoopback !== undefined) {
    throw new Error(
      `The public-api plugin's webhooks.allowHttpLoopback is not a setting: set ${ALLOW_HTTP_LOOPBACK_VARIABLE}=true in the environment (.env) instead, for development only.`,
    );
  }
  const natives = nativeResourcesProblem(config.nativeResources);
  if (natives) throw new Error(natives);
  if (typeof config.keySecret !== 'string' || config.keySecret.length < 32) {
    throw new Error('PUBLIC_API_KEY_SECRET must be set to a random string of at least 32 characters (see .env.example).');
  }
  if (typeof config.assetCacheDir !== 'string' || config.assetCacheDir.trim() === '') {
    throw new Error('PUBLIC_API_ASSET_CACHE_DIR must name a directory.');
  }
  const maxBytes = config.assetCacheMaxBytes;
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new Error('PUBLIC_API_ASSET_CACHE_MAX_BYTES must be a positive whole number of bytes.');
  }
  for (const name of [
    'uploadsInFlight',
    'uploadBytesInFlight',
    'jsonBodyTimeoutMs',
    'multipartBodyTimeoutMs',
    'bodyGapTimeoutMs',
    'responseSendTimeoutMs',
    'requestsPerKey',
    'expandedRecordsInFlight',
    'requestsInFlight',
    'transformsInFlight',
    'transformsPerClient',
    'transformTimeoutMs',
    'assetOriginTimeoutMs',
    'assetOriginMaxBytes',
    'assetOriginFetchesInFlight',
    'transformSourceMaxBytes',
  ] as const) {
    const value = config[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)) {
      throw new Error(`The public-api plugin's ${name} must be a positive whole number.`);
    }
  }
  const shedDelay = config.keyShedDelayMs;
  if (
    shedDelay !== undefined &&
    (typeof shedDelay !== 'number' ||
      !Number.isSafeInteger(shedDelay) ||
      shedDelay < 0 ||
      shedDelay >= OVERLOADED_RETRY_AFTER_SECONDS * 1000)
  ) {
    throw new Error(
      `The public-api plugin's keyShedDelayMs must be a whole number of milliseconds from 0 to ${OVERLOADED_RETRY_AFTER_SECONDS * 1000 - 1} (below the Retry-After of its 503).`,
    );
  }
  for (const name of ['requestsWaiting', 'requestWaitMs', 'cheapTransformsInFlight', 'transformsWaiting'] as const) {
    const value = config[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)) {
      throw new Error(`The public-api plugin's ${name} must be a whole number, 0 or more.`);
    }
  }
  const presets = config.transformPresets;
  if (
    presets !== undefined &&
    presets !== null &&
    (typeof presets !== 'object' ||
      Array.isArray(presets) ||
      Object.keys(presets).length === 0 ||
      Object.values(presets).some((value) => typeof value !== 'string'))
  ) {
    throw new Error(
      'PUBLIC_API_TRANSFORM_PRESETS must be a JSON object of preset names to query strings, e.g. {"thumb":"w=200&format=webp"}.',
    );
  }
  for (const name of ['rateLimit', 'unauthenticatedRateLimit'] as const) {
    const parsed = config[name] === undefined ? null : parseRateLimit(config[name]);
    if (parsed && !parsed.ok) {
      throw new Error(`The public-api plugin's ${name}: ${parsed.issues.map((issue) => issue.message).join(' ')}`);
    }
  }
  if (config.redisUrl !== undefined && config.redisUrl !== '' && !/^rediss?:\/\//.test(String(config.redisUrl))) {
    throw new Error('REDIS_URL must be a redis:// or rediss:// URL.');
  }
  if (config.rateLimitStore !== undefined && !RATE_LIMIT_STORES.includes(config.rateLimitStore)) {
    throw new Error(`PUBLIC_API_RATE_LIMIT_STORE must be one of: ${RATE_LIMIT_STORES.join(', ')}.`);
  }
  if (config.rateLimitPrefix !== undefined && !/^[A-Za-z0-9_.:-]{1,64}$/.test(String(config.rateLimitPrefix))) {
    throw new Error('PUBLIC_API_RATE_LIMIT_PREFIX is 1 to 64 letters, digits, or _ . : -');
  }
  const leaseMs = config.rateLimitLeaseMs;
  if (
    leaseMs !== undefined &&
    (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < 0 || leaseMs > MAX_RATE_LIMIT_LEASE_MS)
  ) {
    throw new Error(`PUBLIC_API_RATE_LIMIT_LEASE_MS is a whole number of milliseconds from 0 to ${MAX_RATE_LIMIT_LEASE_MS}.`);
  }
  const atomicMs = config.atomicTimeLimitMs;
  if (
    atomicMs !== undefined &&
    (typeof atomicMs !== 'number' ||
      !Number.isSafeInteger(atomicMs) ||
      atomicMs < MIN_ATOMIC_TIME_LIMIT_MS ||
      atomicMs > MAX_ATOMIC_TIME_LIMIT_MS)
  ) {
    throw new Error(
      `PUBLIC_API_ATOMIC_TIME_LIMIT_MS is a whole number of milliseconds from ${MIN_ATOMIC_TIME_LIMIT_MS} to ${MAX_ATOMIC_TIME_LIMIT_MS}.`,
    );
  }
  const recordChars = config.recordCacheChars;
  if (
    recordChars !== undefined &&
    (typeof recordChars !== 'number' || !Number.isSafeInteger(recordChars) || recordChars < 0 || recordChars > MAX_RECORD_CACHE_CHARS)
  ) {
    throw new Error(`PUBLIC_API_RECORD_CACHE_CHARS is a whole number of characters from 0 to ${MAX_RECORD_CACHE_CHARS}.`);
  }
  validateOperationsConfig(config);
};
