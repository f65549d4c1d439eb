/**
 * The environment `npm run cluster` starts an instance with (scripts/lib/cluster.ts): production servers
 * (issue 33, item 10: they ran as "development", Strapi's default for an unset NODE_ENV), unless the caller
 * set NODE_ENV, in its own environment or the cluster's.
 */
import { DEFAULT_PROXY_CHECKS, drainDelayFor } from '../../scripts/lib/haproxy';
import { instanceEnvironment } from '../../scripts/lib/cluster';

const options = { host: '127.0.0.1', env: { DATABASE_CLIENT: 'postgres' }, checks: DEFAULT_PROXY_CHECKS };

test('NODE_ENV unset: the instance runs as production', () => {
  expect(instanceEnvironment({ PATH: '/usr/bin' }, options, 0, 4571).NODE_ENV).toBe('production');
  expect(instanceEnvironment({ NODE_ENV: '' }, { ...options, env: { NODE_ENV: '' } }, 0, 4571).NODE_ENV).toBe('production');
});

test("the caller's NODE_ENV wins: the instance's, then the cluster's env, then the environment it was started in", () => {
  expect(instanceEnvironment({ NODE_ENV: 'staging' }, options, 0, 4571).NODE_ENV).toBe('staging');
  expect(instanceEnvironment({ NODE_ENV: 'staging' }, { ...options, env: { NODE_ENV: 'development' } }, 0, 4571).NODE_ENV).toBe(
    'development',
  );
  const perInstance = { ...options, instanceEnv: (index: number): Record<string, string> => (index === 1 ? { NODE_ENV: 'test' } : {}) };
  expect(instanceEnvironment({}, perInstance, 1, 4572).NODE_ENV).toBe('test');
  expect(instanceEnvironment({}, perInstance, 0, 4571).NODE_ENV).toBe('production');
});

test('the rest of what the cluster decides, over the inherited and given environment', () => {
  const env = instanceEnvironment({ PATH: '/usr/bin', PORT: '1337', IS_PROXIED: 'false' }, options, 1, 4572);
  expect(env).toEqual({
    PATH: '/usr/bin',
    DATABASE_CLIENT: 'postgres',
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '4572',
    IS_PROXIED: 'true',
    PROXY_HOPS: '1',
    SHUTDOWN_DRAIN_DELAY_MS: String(drainDelayFor(DEFAULT_PROXY_CHECKS)),
  });
});
