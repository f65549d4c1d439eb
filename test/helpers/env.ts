/**
 * The environment every test process needs: fixed, test-only secrets (never used outside tests), kept in
 * test-secrets.json so that the JavaScript global setups (the admin build) use the very same ones.
 */
import TEST_SECRETS from './test-secrets.json';

export const TEST_ENV = {
  NODE_ENV: 'test',
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
  ...TEST_SECRETS,
  SERVE_ADMIN: 'false',
  HOST: '127.0.0.1',
  PORT: '0',
  // Suites send far more than a minute's default quota from one address; the rate limit suite sets its own.
  PUBLIC_API_RATE_LIMIT_REQUESTS: '1000000',
  PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT_REQUESTS: '1000000',
  // 100 atomic operations can take over 10 s when suites share two busy cores: an outcome must not depend
  // on the machine's load. The atomic time limit suite sets its own.
  PUBLIC_API_ATOMIC_TIME_LIMIT_MS: '600000',
} as const;

export const applyTestEnv = () => Object.assign(process.env, TEST_ENV);
