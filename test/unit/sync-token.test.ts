/**
 * The sync feed's pure parts: tokens and cursors (query/sync-token.ts), its query (query/sync-query.ts)
 * and how a write's published rows before and after become journal entries (services/journal/changes.ts).
 */
import { deriveCursorKey, encodeCursor } from '../../src/plugins/public-api/server/src/query/cursor';
import {
  SYNC_TIME_GRAIN_MS,
  SYNC_TOKEN_MAX_AGE_MS,
  decodeSyncCursor,
  decodeSyncToken,
  encodeSyncCursor,
  encodeSyncToken,
  syncTime,
} from '../../src/plugins/public-api/server/src/query/sync-token';
import fc from 'fast-check';
import { parseSyncQuery } from '../../src/plugins/public-api/server/src/query/sync-query';
import { changesOf, referenceChanged } from '../../src/plugins/public-api/server/src/services/journal/changes';

const key = deriveCursorKey('a-server-secret-of-at-least-32-characters!');
const otherKey = deriveCursorKey('another-server-secret-of-32-characters!!');
const NOW = 1_800_000_000_000;
const binding = { keyId: 'abcdefghijkl', grants: 'fingerprint', locale: 'en' };
const token = encodeSyncToken({ ...binding, position: { txid: 12, seq: 34 }, issuedAt: NOW }, key);

const reasonOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    const { status, errors } = error as { status: number; errors?: { meta?: { reason?: string } }[] };
    return `${status} ${(error as { reason?: string }).reason ?? errors?.[0]?.meta?.reason ?? ''}`;
  }
  return 'accepted';
};

describe('sync tokens', () => {
  test('round trip', () => {
    expect(decodeSyncToken(token, key, binding, NOW + 1000)).toEqual({ ...binding, position: { txid: 12, seq: 34 }, issuedAt: NOW });
  });

  test('every single changed character is refused', () => {
    for (let index = 0; index < token.length; index += 1) {
      const flipped = `${token.slice(0, index)}${token[index] === 'A' ? 'B' : 'A'}${token.slice(index + 1)}`;
      expect(() => decodeSyncToken(flipped, key, binding, NOW)).toThrow();
    }
  });

  test('refusals: another secret, another key, locale, grants, age, a read cursor, a sync cursor', () => {
    const status = (work: () => unknown) => {
      try {
        work();
        return 0;
      } catch (error) {
        return (error as { status: number }).status;
      }
    };
    expect(status(() => decodeSyncToken(token, otherKey, binding, NOW))).toBe(400);
    expect(status(() => decodeSyncToken(token, key, { ...binding, keyId: 'zzzzzzzzzzzz' }, NOW))).toBe(400);
    expect(status(() => decodeSyncToken(token, key, { ...binding, locale: 'de' }, NOW))).toBe(400);
    expect(status(() => decodeSyncToken(token, key, { ...binding, grants: 'other' }, NOW))).toBe(410);
    expect(status(() => decodeSyncToken(token, key, binding, NOW + SYNC_TOKEN_MAX_AGE_MS + 1))).toBe(410);
    expect(status(() => decodeSyncToken(token, key, binding, NOW + SYNC_TOKEN_MAX_AGE_MS))).toBe(0);
    expect(status(() => decodeSyncToken(token, key, binding, NOW - 10 * 60 * 1000))).toBe(400);
    const readCursor = encodeCursor(
      { keyId: binding.keyId, resourceId: 'native:events', fingerprint: 'f', issuedAt: NOW, position: { values: [], id: 'x' } },
      key,
    );
    expect(status(() => decodeSyncToken(readCursor, key, binding, NOW))).toBe(400);
    expect(status(() => decodeSyncCursor(token, key, binding, NOW))).toBe(400);
    expect(reasonOf(() => decodeSyncToken('', key, binding, NOW))).toMatch(/^400/);
  });
});

describe('sync cursors', () => {
  test('both phases round trip; other keys, grants and old cursors are refused', () => {
    const initial = {
      ...binding,
      phase: 'initial' as const,
      start: { txid: 0, seq: 9 },
      startedAt: NOW,
      resourceId: 'native:events',
      after: 'doc1',
      issuedAt: NOW,
    };
    const delta = {
      ...binding,
      phase: 'delta' as const,
      from: { txid: 5, seq: 1 },
      to: { txid: 7, seq: 0 },
      startedAt: NOW,
      issuedAt: NOW,
    };
    for (const cursor of [initial, delta]) {
      const text = encodeSyncCursor(cursor, key);
      expect(decodeSyncCursor(text, key, binding, NOW)).toEqual(cursor);
      expect(() => decodeSyncCursor(text, key, { ...binding, keyId: 'zzzzzzzzzzzz' }, NOW)).toThrow();
      expect(() => decodeSyncCursor(text, key, { ...binding, grants: 'other' }, NOW)).toThrow();
      expect(() => decodeSyncCursor(text, key, binding, NOW + 25 * 60 * 60 * 1000)).toThrow();
      expect(() => decodeSyncToken(text, key, binding, NOW)).toThrow();
    }
  });
});

describe('the sync query', () => {
  const locales = ['de', 'en'];
  test('defaults, limit, locale lists', () => {
    expect(parseSyncQuery(new URLSearchParams(''), locales)).toEqual({ limit: 100, locales: null, token: null, cursor: null });
    expect(parseSyncQuery(new URLSearchParams('limit=5&locale=de,en&token=t'), locales)).toEqual({
      limit: 5,
      locales: ['de', 'en'],
      token: 't',
      cursor: null,
    });
  });
  test.each(['sort=x', 'limit=0', 'limit=101', 'limit=1&limit=2', 'locale=xx', 'token=', 'cursor=', 'token=a&cursor=b'])(
    '%s: 400',
    (query) => {
      expect(() => parseSyncQuery(new URLSearchParams(query), locales)).toThrow(expect.objectContaining({ status: 400 }));
    },
  );
});

describe('journal entries of a write', () => {
  const row = (id: number, locale: string | null, updatedAt = 't1') => ({ id, locale, updatedAt });
  test('published, updated (replaced or changed), unpublished, deleted, nothing', () => {
    expect(changesOf('create', [], [row(1, 'en')])).toEqual([{ locale: 'en', kind: 'published' }]);
    expect(changesOf('publish', [row(1, 'en')], [row(2, 'en')])).toEqual([{ locale: 'en', kind: 'updated' }]);
    expect(changesOf('update', [row(1, null)], [row(1, null, 't2')])).toEqual([{ locale: null, kind: 'updated' }]);
    expect(changesOf('update', [row(1, 'en')], [row(1, 'en')])).toEqual([]);
    expect(changesOf('unpublish', [row(1, 'en')], [])).toEqual([{ locale: 'en', kind: 'unpublished' }]);
    expect(changesOf('delete', [row(1, 'en'), row(2, 'de')], [])).toEqual([
      { locale: 'en', kind: 'deleted' },
      { locale: 'de', kind: 'deleted' },
    ]);
    expect(changesOf('delete', [row(1, 'en'), row(2, 'de')], [row(1, 'en')])).toEqual([{ locale: 'de', kind: 'deleted' }]);
  });

  test('references change with the slug of a locale kept, not with other fields (issue 33)', () => {
    const slugged = (id: number, locale: string | null, slug: string | null, updatedAt = 't1') => ({ id, locale, updatedAt, slug });
    expect(referenceChanged([slugged(1, 'en', 'a')], [slugged(2, 'en', 'a', 't2')])).toBe(false);
    expect(referenceChanged([slugged(1, 'en', 'a')], [slugged(2, 'en', 'b')])).toBe(true);
    expect(referenceChanged([slugged(1, null, null)], [slugged(1, null, 'b')])).toBe(true);
    // A locale gained or lost is a change of presence (journaled on its own), not of the slug.
    expect(referenceChanged([slugged(1, 'en', 'a')], [slugged(1, 'en', 'a'), slugged(2, 'de', 'x')])).toBe(false);
    expect(referenceChanged([row(1, 'en')], [row(2, 'en', 't2')])).toBe(false);
  });
});

describe('sync times: rounded down to the hour, so one state gives one token (issue 33 item 7)', () => {
  test('property: the time is never later than now, and one grain at most earlier; tokens within a grain are alike', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8_000_000_000_000 }), fc.nat(SYNC_TIME_GRAIN_MS * 3), (now, later) => {
        const time = syncTime(now);
        expect(time).toBeLessThanOrEqual(now);
        expect(now - time).toBeLessThan(SYNC_TIME_GRAIN_MS);
        const position = { txid: 7, seq: 9 };
        const at = (moment: number) => encodeSyncToken({ ...binding, position, issuedAt: syncTime(moment) }, key);
        expect(at(now) === at(now + later)).toBe(syncTime(now) === syncTime(now + later));
      }),
    );
  });

  test('a rounded token is accepted for the retention, less at most one grain, and refused after it', () => {
    const issued = syncTime(NOW);
    const rounded = encodeSyncToken({ ...binding, position: { txid: 1, seq: 1 }, issuedAt: issued }, key);
    expect(reasonOf(() => decodeSyncToken(rounded, key, binding, NOW))).toBe('accepted');
    expect(reasonOf(() => decodeSyncToken(rounded, key, binding, NOW + SYNC_TOKEN_MAX_AGE_MS - SYNC_TIME_GRAIN_MS))).toBe('accepted');
    expect(reasonOf(() => decodeSyncToken(rounded, key, binding, issued + SYNC_TOKEN_MAX_AGE_MS + 1))).toBe('410 sync_token_expired');
  });
});
