/**
 * Contract section 13: the RateLimit header fields, the 429, and the limits config and keys accept.
 */
import config from '../../src/plugins/public-api/server/src/config';
import {
  DEFAULT_KEY_RATE_LIMIT,
  DEFAULT_UNAUTHENTICATED_RATE_LIMIT,
  parseRateLimit,
} from '../../src/plugins/public-api/server/src/config/rate-limits';
import { EXPOSED_RESPONSE_HEADERS } from '../../src/plugins/public-api/server/src/http/cors';
import { rateLimitHeaders, secondsToReset, tooManyRequests } from '../../src/plugins/public-api/server/src/http/rate-limit';
import { splitGrantsFile } from '../../src/plugins/public-api/cli/src/key';

describe('RateLimit header fields (draft-ietf-httpapi-ratelimit-headers)', () => {
  test('the key policy and where its counter stands', () => {
    expect(rateLimitHeaders({ requests: 600, window: 60 }, { remaining: 599, resetMs: 59_001 })).toEqual({
      'RateLimit-Policy': '"key";q=600;w=60',
      RateLimit: '"key";r=599;t=60',
    });
  });

  test('the address policy of failed authentications', () => {
    expect(rateLimitHeaders({ requests: 30, window: 60 }, { remaining: 0, resetMs: 1_000 }, 'address')).toEqual({
      'RateLimit-Policy': '"address";q=30;w=60',
      RateLimit: '"address";r=0;t=1',
    });
  });

  test('remaining never goes below 0; seconds round up', () => {
    expect(rateLimitHeaders({ requests: 2, window: 10 }, { remaining: -3, resetMs: 1 }).RateLimit).toBe('"key";r=0;t=1');
    expect(secondsToReset(0)).toBe(0);
    expect(secondsToReset(1)).toBe(1);
    expect(secondsToReset(1000)).toBe(1);
    expect(secondsToReset(1001)).toBe(2);
    expect(secondsToReset(-5)).toBe(0);
  });

  test('429 too_many_requests with Retry-After of at least one second', () => {
    const error = tooManyRequests({ requests: 5, window: 60 }, { remaining: 0, resetMs: 0 }, 'key');
    expect(error.status).toBe(429);
    expect(error.errors).toEqual([expect.objectContaining({ status: '429', code: 'too_many_requests', meta: { reason: 'rate_limited' } })]);
    expect(error.headers).toEqual({ 'RateLimit-Policy': '"key";q=5;w=60', RateLimit: '"key";r=0;t=0', 'Retry-After': '1' });
    const byAddress = tooManyRequests({ requests: 30, window: 60 }, { remaining: 0, resetMs: 42_500 }, 'address');
    expect(byAddress.errors[0]!.meta).toEqual({ reason: 'unauthenticated_rate_limited' });
    expect(byAddress.headers['Retry-After']).toBe('43');
  });

  test('a browser may read the fields and Retry-After', () => {
    const exposed = EXPOSED_RESPONSE_HEADERS.split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy', 'Retry-After']));
  });
});

describe('limits as written', () => {
  test('a limit is whole requests per whole seconds', () => {
    expect(parseRateLimit({ requests: 600, window: 60 })).toEqual({ ok: true, limit: { requests: 600, window: 60 } });
    expect(parseRateLimit({ requests: 1_000_000, window: 86_400 }).ok).toBe(true);
    expect(parseRateLimit({ requests: 1, window: 1 }).ok).toBe(true);
  });

  test('every problem is named by its field', () => {
    expect(parseRateLimit({ requests: 0, window: 1.5, burst: 3 })).toEqual({
      ok: false,
      issues: [
        { field: 'requests', message: 'requests is a whole number from 1 to 1000000.' },
        { field: 'window', message: 'window is a whole number of seconds from 1 to 86400.' },
        { field: 'burst', message: "A limit has no field 'burst': only requests and window." },
      ],
    });
    expect(parseRateLimit({ requests: '600', window: 60 }).ok).toBe(false);
    expect(parseRateLimit({ requests: 1_000_001, window: 60 }).ok).toBe(false);
    expect(parseRateLimit({ requests: 600, window: 86_401 }).ok).toBe(false);
    expect(parseRateLimit({ requests: 600 }).ok).toBe(false);
    for (const value of [null, 600, 'fast', [600, 60]]) {
      expect(parseRateLimit(value)).toEqual({
        ok: false,
        issues: [{ field: '', message: expect.stringContaining('A limit is an object') }],
      });
    }
  });
});

describe('plugin config', () => {
  const valid = { ...config.default, keySecret: 'x'.repeat(32) };

  test('defaults: 600 requests a minute per key, 30 failed authentications a minute per address, the database', () => {
    expect(config.default.rateLimit).toEqual({ requests: 600, window: 60 });
    expect(DEFAULT_KEY_RATE_LIMIT).toEqual({ requests: 600, window: 60 });
    expect(config.default.unauthenticatedRateLimit).toEqual(DEFAULT_UNAUTHENTICATED_RATE_LIMIT);
    expect(config.default.rateLimitStore).toBe('database');
    expect(config.default.redisUrl).toBe('');
    expect(() => config.validator(valid)).not.toThrow();
  });

  test('refuses limits, stores, Redis URLs and prefixes it cannot use', () => {
    expect(() => config.validator({ ...valid, rateLimit: { requests: 0, window: 60 } })).toThrow(/rateLimit: requests is a whole number/);
    expect(() => config.validator({ ...valid, unauthenticatedRateLimit: { requests: 30, window: 0 } })).toThrow(/unauthenticatedRateLimit/);
    expect(() => config.validator({ ...valid, rateLimitStore: 'disk' as never })).toThrow(/database, memory/);
    expect(() => config.validator({ ...valid, redisUrl: 'http://localhost' })).toThrow(/REDIS_URL/);
    expect(() => config.validator({ ...valid, redisUrl: 'redis://127.0.0.1:6379/2' })).not.toThrow();
    expect(() => config.validator({ ...valid, rateLimitPrefix: 'has space' })).toThrow(/PREFIX/);
    expect(() => config.validator({ ...valid, rateLimitLeaseMs: -1 })).toThrow(/PUBLIC_API_RATE_LIMIT_LEASE_MS/);
    expect(() => config.validator({ ...valid, rateLimitLeaseMs: 1001 })).toThrow(/from 0 to 1000/);
    expect(() => config.validator({ ...valid, rateLimitLeaseMs: 0 })).not.toThrow();
  });

  test('the record cache: 4 Mi characters of inputs by default, 0 for none, a whole number up to 1 Gi', () => {
    expect(config.default.recordCacheChars).toBe(4 * 1024 * 1024);
    expect(() => config.validator({ ...valid, recordCacheChars: 0 })).not.toThrow();
    for (const wrong of [-1, 1.5, 2 ** 30 + 1, '100' as never]) {
      expect(() => config.validator({ ...valid, recordCacheChars: wrong })).toThrow(/PUBLIC_API_RECORD_CACHE_CHARS is a whole number/);
    }
  });
});

describe('the grants file of the key command line', () => {
  test('limits beside the grants are the key limit', () => {
    const grants = { resources: {}, commands: [], origins: [] };
    expect(splitGrantsFile({ ...grants, limits: { requests: 10, window: 1 } })).toEqual({ grants, limits: { requests: 10, window: 1 } });
    expect(splitGrantsFile(grants)).toEqual({ grants });
    expect(splitGrantsFile({ ...grants, preview: true })).toEqual({ grants, preview: true });
    expect(splitGrantsFile([1])).toEqual({ grants: [1] });
  });

  test('a cache policy beside the grants is the key cache policy', () => {
    const grants = { resources: {}, commands: [], origins: [] };
    expect(splitGrantsFile({ ...grants, cache: { sharedMaxAge: 30 } })).toEqual({ grants, cache: { sharedMaxAge: 30 } });
    expect(splitGrantsFile({ ...grants, cache: null, limits: { requests: 1, window: 1 } })).toEqual({
      grants,
      cache: null,
      limits: { requests: 1, window: 1 },
    });
  });
});
