/**
 * The pure parts of webhooks (contract section 16): which addresses a webhook may reach, which URLs an
 * endpoint may have, the retry schedule, the sealed secret, and the signed message as the Standard
 * Webhooks reference library verifies it.
 */
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_RETRY_POLICY } from '../../src/plugins/public-api/server/src/config/webhooks';
import { isLoopbackHost, mappedIpv4, refusedAddress } from '../../src/plugins/public-api/server/src/webhooks/addresses';
import { normalizeSettings, parseCreate, parseUpdate, urlProblem } from '../../src/plugins/public-api/server/src/webhooks/endpoint-input';
import type { ChangeKind } from '../../src/plugins/public-api/server/src/webhooks/events';
import {
  eventForChange,
  readableBefore,
  readableSince,
  scopeIncludes,
  scopeValue,
} from '../../src/plugins/public-api/server/src/webhooks/visibility';
import { keyUnusable } from '../../src/plugins/public-api/server/src/webhooks/key-state';
import { eventBody, eventIdOf, removalOf, signedHeaders } from '../../src/plugins/public-api/server/src/webhooks/message';
import { backoffMs, failedTooLong, nextAttemptAt } from '../../src/plugins/public-api/server/src/webhooks/retry';
import { generateSecret, openSecret, sealSecret, secretHint } from '../../src/plugins/public-api/server/src/webhooks/secret';

const strict = { allowLoopback: false };
const dev = { allowLoopback: true };

describe('addresses', () => {
  test.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared address space (CGNAT)'],
    ['100.127.255.254', 'shared address space (CGNAT)'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved (and broadcast)'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.10', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique local (ULA)'],
    ['fd12:3456::1', 'unique local (ULA)'],
    ['ff02::1', 'multicast'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['2002:a00:1::', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['[::1]', 'loopback'],
  ])('%s is refused (%s)', (address, why) => {
    expect(refusedAddress(address, strict)).toBe(why);
  });

  test.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
  ])('%s is public', (address) => {
    expect(refusedAddress(address, strict)).toBeNull();
  });

  test('loopback only with the development flag; private ranges never', () => {
    expect(refusedAddress('127.0.0.1', dev)).toBeNull();
    expect(refusedAddress('::1', dev)).toBeNull();
    expect(refusedAddress('::ffff:127.0.0.1', dev)).toBeNull();
    expect(refusedAddress('10.0.0.1', dev)).toBe('private');
    expect(refusedAddress('169.254.169.254', dev)).toBe('link-local');
  });

  test('what is not an address is refused', () => {
    expect(refusedAddress('example.com', strict)).toBe('not an IP address');
    expect(refusedAddress('', strict)).toBe('not an IP address');
  });

  test('mapped IPv4 addresses in both notations', () => {
    expect(mappedIpv4('::ffff:192.168.0.1')).toBe('192.168.0.1');
    expect(mappedIpv4('::FFFF:c0a8:1')).toBe('192.168.0.1');
    expect(mappedIpv4('::1')).toBeNull();
  });

  test('every IPv4 address in a private range is refused, mapped or not (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), (a, b, c) => {
        for (const address of [`10.${a}.${b}.${c}`, `192.168.${b}.${c}`, `172.${16 + (a % 16)}.${b}.${c}`, `169.254.${b}.${c}`]) {
          expect(refusedAddress(address, dev)).not.toBeNull();
          expect(refusedAddress(`::ffff:${address}`, dev)).not.toBeNull();
        }
      }),
    );
  });

  test('loopback host names', () => {
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('api.localhost')).toBe(true);
    expect(isLoopbackHost('127.0.0.2')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('example.com')).toBe(false);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
  });
});

describe('endpoint URLs', () => {
  const prod = { allowLoopback: false, allowHttpLoopback: false };
  const development = { allowLoopback: true, allowHttpLoopback: true };

  test('https to a public host is accepted', () => {
    expect(urlProblem('https://hooks.example.com/in?x=1', prod)).toBeNull();
    expect(urlProblem('https://93.184.216.34:8443/in', prod)).toBeNull();
  });

  test.each([
    ['http://hooks.example.com/in', 'https'],
    ['ftp://hooks.example.com/in', 'https'],
    ['https://user:pw@hooks.example.com/in', 'user name or password'],
    ['https://hooks.example.com/in#frag', 'fragment'],
    ['https://10.0.0.1/in', 'not public (private)'],
    ['https://[fd00::1]/in', 'not public (unique local (ULA))'],
    ['https://[::ffff:169.254.169.254]/in', 'not public (link-local)'],
    ['https://169.254.169.254/latest/meta-data', 'not public (link-local)'],
    ['https://localhost/in', 'loopback'],
    ['https://127.0.0.1/in', 'loopback'],
    ['https://intranet/in', 'fully qualified'],
    ['not a url', 'not a URL'],
    [`https://example.com/${'a'.repeat(2100)}`, 'longer than'],
  ])('%s is refused (%s)', (url, words) => {
    expect(urlProblem(url, prod)).toContain(words);
  });

  test('plain http and loopback only with the development flag, and only to loopback', () => {
    expect(urlProblem('http://127.0.0.1:4000/in', development)).toBeNull();
    expect(urlProblem('http://localhost:4000/in', development)).toBeNull();
    expect(urlProblem('http://[::1]:4000/in', development)).toBeNull();
    expect(urlProblem('http://hooks.example.com/in', development)).toContain('https');
    expect(urlProblem('http://10.0.0.1/in', development)).toContain('https');
    expect(urlProblem('https://10.0.0.1/in', development)).toContain('private');
  });

  test('create: defaults, shapes and every issue at once', () => {
    expect(parseCreate({ url: 'https://a.example.com/h' }, prod)).toEqual({
      ok: true,
      value: {
        url: 'https://a.example.com/h',
        events: ['record.published', 'record.updated', 'record.unpublished', 'record.deleted'],
        resources: [],
        description: null,
        enabled: true,
      },
    });
    const refused = parseCreate({ url: 'http://10.0.0.1', events: [] }, prod);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.issues.map((issue) => issue.path)).toEqual([['url'], ['events']]);
    const unknown = parseCreate({ url: 'https://a.example.com', events: ['record.created'], secret: 'x' }, prod);
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) {
      expect(unknown.issues.map((issue) => issue.message).join(' ')).toContain('Unknown member: secret.');
      expect(unknown.issues.some((issue) => issue.path.join('.') === 'events.0')).toBe(true);
    }
    expect(parseCreate(null, prod).ok).toBe(false);
    expect(parseCreate({ url: 42 }, prod).ok).toBe(false);
  });

  test('update checks only what it changes', () => {
    expect(parseUpdate({ enabled: false }, prod)).toEqual({ ok: true, value: { enabled: false } });
    expect(parseUpdate({ url: 'http://example.com' }, prod).ok).toBe(false);
    expect(parseUpdate({ events: [] }, prod).ok).toBe(false);
  });

  test('normalized: events in their order without repeats, resources sorted without repeats', () => {
    expect(
      normalizeSettings({
        events: ['record.deleted', 'record.published', 'record.deleted'],
        resources: ['native:jobs', 'native:events', 'native:jobs'],
      }),
    ).toEqual({ events: ['record.published', 'record.deleted'], resources: ['native:events', 'native:jobs'] });
  });
});

describe('retries', () => {
  const policy = DEFAULT_RETRY_POLICY;

  test('waits grow from seconds to hours, each within [base, min(cap, base * 2^(n-1))]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (failures, random) => {
        const wait = backoffMs(policy, failures, () => random);
        expect(wait).toBeGreaterThanOrEqual(policy.baseMs);
        expect(wait).toBeLessThanOrEqual(Math.min(policy.capMs, policy.baseMs * 2 ** (failures - 1)));
      }),
    );
    expect(backoffMs(policy, 1, () => 0.99)).toBe(policy.baseMs);
    expect(backoffMs(policy, 20, () => 0.999999)).toBeGreaterThan(3.9 * 3_600_000);
  });

  test('full jitter: the same failure count waits different times', () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffMs(policy, 8)));
    expect(waits.size).toBeGreaterThan(40);
  });

  test('a delivery is tried for about 24 hours, then given up', () => {
    const first = 1_000_000;
    let now = first;
    let failures = 0;
    let next: number | null = first;
    while (next !== null) {
      now = next;
      failures += 1;
      next = nextAttemptAt(policy, first, failures, now, () => 0.5);
    }
    expect(now - first).toBeLessThanOrEqual(policy.windowMs);
    expect(now - first).toBeGreaterThan(policy.windowMs - policy.capMs);
    expect(failures).toBeGreaterThan(10);
    expect(failures).toBeLessThan(40);
  });

  test('an endpoint failing for the window is to be disabled', () => {
    expect(failedTooLong(policy, null, 10 ** 12)).toBe(false);
    expect(failedTooLong(policy, 0, policy.windowMs - 1)).toBe(false);
    expect(failedTooLong(policy, 0, policy.windowMs)).toBe(true);
  });
});

describe('secrets', () => {
  test('whsec_ secrets, sealed and opened with the server secret only', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const sealed = sealSecret('server-secret', secret);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(openSecret('server-secret', sealed)).toBe(secret);
    expect(openSecret('another-secret', sealed)).toBeNull();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = `${v}.${iv}.${tag}.${body!.slice(0, -2)}${body!.slice(-2) === 'AA' ? 'AB' : 'AA'}`;
    expect(openSecret('server-secret', flipped)).toBeNull();
    expect(openSecret('server-secret', 'garbage')).toBeNull();
    expect(secretHint(secret)).toBe(secret.slice(-4));
    expect(generateSecret()).not.toBe(secret);
  });
});

describe('messages', () => {
  test('signed as Standard Webhooks: the reference library verifies them', () => {
    const secret = generateSecret();
    const body = eventBody('record.updated', new Date('2027-01-01T10:00:00Z'), { type: 'events', id: 'e1', attributes: { title: 'T' } });
    const headers = signedHeaders(eventIdOf(3, 17), body, [secret], new Date());
    expect(headers['webhook-id']).toBe('msg_3_17');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual({
      type: 'record.updated',
      timestamp: '2027-01-01T10:00:00.000Z',
      data: { type: 'events', id: 'e1', attributes: { title: 'T' } },
    });
    // Another secret, another body or an old timestamp: refused.
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('"T"', '"U"'), headers)).toThrow();
    const old = signedHeaders('msg_1_1', body, [secret], new Date(Date.now() - 3_600_000));
    expect(() => new Webhook(secret).verify(body, old)).toThrow();
  });

  test('during a rotation both secrets sign, and either verifies', () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const body = eventBody('record.deleted', new Date(), removalOf('events', 'e1', new Date('2027-01-01T00:00:00Z')));
    const headers = signedHeaders('msg_1_2', body, [current, previous], new Date());
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toMatchObject({
      data: { type: 'events', id: 'e1', meta: { deletedAt: '2027-01-01T00:00:00.000Z' } },
    });
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
  });

  test('a change is the record when the key reads it now, a removal only when it could read it before, else nothing', () => {
    const own = (kind: ChangeKind, scope: string | null = null) => ({ kind, via: null, scope });
    const anywhere = { websiteId: null };
    const cityGuide = { websiteId: 3 };
    expect(eventForChange(own('published'), anywhere, true, true)).toEqual({ event: 'record.published', removal: false });
    expect(eventForChange(own('updated'), anywhere, true, true)).toEqual({ event: 'record.updated', removal: false });
    expect(eventForChange(own('updated'), anywhere, false, true)).toEqual({ event: 'record.unpublished', removal: true });
    expect(eventForChange(own('unpublished'), anywhere, true, true)).toEqual({ event: 'record.unpublished', removal: true });
    expect(eventForChange(own('deleted'), anywhere, false, true)).toEqual({ event: 'record.deleted', removal: true });
    // Published and gone again before the event was made: it was never readable before its change.
    expect(eventForChange(own('published'), anywhere, false, true)).toBeNull();
    // Another website's record (issue 33): not before, not now, nothing; its own website's record: a removal.
    expect(eventForChange(own('updated', ',4,'), cityGuide, false, true)).toBeNull();
    expect(eventForChange(own('unpublished', ',4,'), cityGuide, false, true)).toBeNull();
    expect(eventForChange(own('unpublished', ',3,4,'), cityGuide, false, true)).toEqual({ event: 'record.unpublished', removal: true });
    expect(eventForChange(own('updated', ',13,'), cityGuide, false, true)).toBeNull();
    // Entries written before the scope was recorded: no removal for a website's resource.
    expect(eventForChange(own('deleted', null), cityGuide, false, true)).toBeNull();
    // A record that only shows the changed one: sent when the key reads that field, never a removal.
    const via = { kind: 'updated' as const, via: 'events', scope: null };
    expect(eventForChange(via, anywhere, true, true)).toEqual({ event: 'record.updated', removal: false });
    expect(eventForChange(via, anywhere, true, false)).toBeNull();
    expect(eventForChange(via, anywhere, false, true)).toBeNull();
  });

  test('property: an event names only a record the key reads now or read before; a removal only one it read before', () => {
    const kinds: ChangeKind[] = ['published', 'updated', 'unpublished', 'deleted'];
    const websites = fc.option(fc.integer({ min: 1, max: 6 }), { nil: null });
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.option(fc.constantFrom('venue', 'events', 'sections'), { nil: null }),
        fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 3 }), { nil: null }),
        websites,
        fc.boolean(),
        fc.boolean(),
        (kind, via, before, websiteId, readableNow, readsVia) => {
          const facts = { kind, via, scope: before === null ? null : scopeValue(before) };
          const audience = { websiteId };
          const decided = eventForChange(facts, audience, readableNow, readsVia);
          // Readable before: its own rows changed, it was published, and of this resource's website.
          const wasReadable = via === null && kind !== 'published' && (websiteId === null || (before ?? []).includes(websiteId));
          if (decided === null) return;
          if (decided.removal) {
            expect(wasReadable).toBe(true);
            expect(decided.event).toBe(kind === 'deleted' ? 'record.deleted' : 'record.unpublished');
          } else {
            expect(readableNow).toBe(true);
            expect(kind === 'published' || kind === 'updated').toBe(true);
            if (via !== null) expect(readsVia).toBe(true);
          }
          // And nothing is left out: a change the key reads is sent, a record it could read and cannot now is removed.
          if (readableNow && (kind === 'published' || kind === 'updated') && (via === null || readsVia))
            expect(decided.removal).toBe(false);
          if (!readableNow && wasReadable) expect(decided.removal).toBe(true);
        },
      ),
    );
    expect(readableBefore({ kind: 'updated', via: null, scope: ',2,' }, { websiteId: 2 })).toBe(true);
  });

  test('the scope column names exactly the websites given, and no id that merely contains one', () => {
    expect(scopeValue([])).toBe(',');
    expect(scopeValue([13, 3, 3])).toBe(',3,13,');
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { maxLength: 5 }), fc.integer({ min: 1, max: 200 }), (ids, id) => {
        expect(scopeIncludes(scopeValue(ids), id)).toBe(ids.includes(id));
      }),
    );
    expect(scopeIncludes(null, 1)).toBe(false);
  });

  test('a record unreadable now was readable since a token when a prior state was of the website and a locale read', () => {
    expect(readableSince([{ locale: null, scope: ',1,' }], { websiteId: 1 }, null)).toBe(true);
    expect(readableSince([{ locale: null, scope: ',2,' }], { websiteId: 1 }, null)).toBe(false);
    expect(readableSince([], { websiteId: null }, null)).toBe(false);
    expect(readableSince([{ locale: 'de', scope: null }], { websiteId: null }, ['en'])).toBe(false);
    expect(readableSince([{ locale: 'de', scope: null }], { websiteId: null }, ['en', 'de'])).toBe(true);
  });
});

test('a key that reads nothing (deleted, revoked, expired) turns its endpoints off, with the reason', () => {
  const now = Date.parse('2027-01-01T00:00:00Z');
  expect(keyUnusable(null, now)).toBe('The key was deleted.');
  expect(keyUnusable({ revoked: true, expiresAt: null }, now)).toBe('The key was revoked.');
  expect(keyUnusable({ revoked: false, expiresAt: '2026-12-31T23:59:59Z' }, now)).toBe('The key has expired.');
  expect(keyUnusable({ revoked: false, expiresAt: '2027-01-02T00:00:00Z' }, now)).toBeNull();
  expect(keyUnusable({ revoked: false, expiresAt: null }, now)).toBeNull();
});
