/**
 * `npm run cluster` starts its instances as production servers (issue 33, item 10): Strapi takes an unset
 * NODE_ENV for development. A NODE_ENV the caller set wins, from its own environment or the cluster's.
 */
import { instanceNodeEnv } from '../../scripts/lib/cluster';

test('unset: production', () => {
  expect(instanceNodeEnv({}, {})).toBe('production');
  expect(instanceNodeEnv({ NODE_ENV: '' }, { NODE_ENV: '' })).toBe('production');
});

test("the caller's NODE_ENV wins: the cluster's env first, then the environment it was started in", () => {
  expect(instanceNodeEnv({ NODE_ENV: 'staging' }, {})).toBe('staging');
  expect(instanceNodeEnv({ NODE_ENV: 'staging' }, { NODE_ENV: 'development' })).toBe('development');
  expect(instanceNodeEnv({}, { NODE_ENV: 'development' })).toBe('development');
});
