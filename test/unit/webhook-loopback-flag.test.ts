/**
 * The webhook development flag (issue 33, item 11): a refusal it would lift names it and says where to set
 * it, and it is read in one place, which the server and the key command both reach.
 */
import fc from 'fast-check';
import config from '../../src/plugins/public-api/server/src/config';
import {
  ALLOW_HTTP_LOOPBACK_VARIABLE,
  allowHttpLoopbackFrom,
  LOOPBACK_FLAG_HINT,
} from '../../src/plugins/public-api/server/src/config/webhooks';
import { urlProblem } from '../../src/plugins/public-api/server/src/webhooks/endpoint-input';
import { environmentReads } from '../helpers/env-reads';

const off = { allowLoopback: false, allowHttpLoopback: false };
const on = { allowLoopback: true, allowHttpLoopback: true };

test('the flag is PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK, on for true or 1 only', () => {
  expect(ALLOW_HTTP_LOOPBACK_VARIABLE).toBe('PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK');
  for (const value of ['true', 'TRUE', ' true ', '1']) expect(allowHttpLoopbackFrom({ [ALLOW_HTTP_LOOPBACK_VARIABLE]: value })).toBe(true);
  for (const value of [undefined, '', 'false', '0', 'yes', 'on', 'truee']) {
    expect(allowHttpLoopbackFrom({ [ALLOW_HTTP_LOOPBACK_VARIABLE]: value })).toBe(false);
  }
  expect(allowHttpLoopbackFrom({})).toBe(false);
});

test.each([
  ['http://127.0.0.1:4001/hooks'],
  ['http://localhost:4001/hooks'],
  ['http://[::1]:4001/hooks'],
  ['https://127.0.0.1:4001/hooks'],
  ['https://localhost/hooks'],
  ['https://[::1]/hooks'],
])('%s without the flag: refused, naming the flag and where to set it', (url) => {
  const problem = urlProblem(url, off);
  expect(problem).toContain(`${ALLOW_HTTP_LOOPBACK_VARIABLE}=true`);
  expect(problem).toContain(LOOPBACK_FLAG_HINT);
  expect(problem).toContain('npm run key');
  expect(problem).toContain('.env');
  // With it: accepted.
  expect(urlProblem(url, on)).toBeNull();
});

test('plain http elsewhere is refused with or without the flag, and says the flag is for this machine only', () => {
  for (const rules of [off, on]) {
    expect(urlProblem('http://hooks.example.com/in', rules)).toBe(
      `The URL must use https (plain http only to this machine, with ${ALLOW_HTTP_LOOPBACK_VARIABLE}=true in development).`,
    );
  }
});

test('property: a refusal names the flag exactly when the flag would lift it', () => {
  const host = fc.constantFrom(
    '127.0.0.1',
    '127.8.9.10',
    'localhost',
    'api.localhost',
    '[::1]',
    'hooks.example.com',
    '10.0.0.1',
    '93.184.216.34',
  );
  fc.assert(
    fc.property(fc.constantFrom('http', 'https'), host, fc.integer({ min: 1, max: 65535 }), (scheme, name, port) => {
      const url = `${scheme}://${name}:${port}/in`;
      const refused = urlProblem(url, off);
      const lifted = refused !== null && urlProblem(url, on) === null;
      if (lifted) expect(refused).toContain(LOOPBACK_FLAG_HINT);
      else if (refused) expect(refused).not.toContain(LOOPBACK_FLAG_HINT);
    }),
    { numRuns: 300 },
  );
});

test('one place reads it: the plugin config module that the server and npm run key both load through webhookSettings', () => {
  expect(environmentReads().get(ALLOW_HTTP_LOOPBACK_VARIABLE)).toEqual(['src/plugins/public-api/server/src/config/webhooks.ts']);
});

test('the plugin config cannot set it: a start with webhooks.allowHttpLoopback stops, naming the variable', () => {
  const valid = { ...config.default, keySecret: 'x'.repeat(32) };
  expect(() => config.validator(valid)).not.toThrow();
  expect(() => config.validator({ ...valid, webhooks: { pollIntervalMs: 100 } } as typeof valid)).not.toThrow();
  for (const value of [true, false]) {
    expect(() => config.validator({ ...valid, webhooks: { allowHttpLoopback: value } } as typeof valid)).toThrow(
      "The public-api plugin's webhooks.allowHttpLoopback is not a setting: set PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true in the environment (.env) instead, for development only.",
    );
  }
});
