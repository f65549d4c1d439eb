/**
 * What the process remembers of client addresses' failed-authentication counters (http/address-standing.ts):
 * a spent address is refused from memory until its window ends, a clear one is trusted for a second and
 * then read again, and memory stays bounded whatever addresses arrive.
 */
import { createAddressStanding } from '../../src/plugins/public-api/server/src/http/address-standing';

const clock = () => {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

test('an address never seen is read from the store', () => {
  expect(createAddressStanding().known('192.0.2.1')).toBeNull();
});

test('a clear address is trusted for trustMs, then read again', () => {
  const time = clock();
  const standing = createAddressStanding({ trustMs: 1000, now: time.now });
  standing.learned('192.0.2.1', null);
  expect(standing.known('192.0.2.1')).toBe('clear');
  time.advance(999);
  expect(standing.known('192.0.2.1')).toBe('clear');
  time.advance(1);
  expect(standing.known('192.0.2.1')).toBeNull();
  // A counter with requests left is clear too.
  standing.learned('192.0.2.1', { remaining: 2, resetMs: 40_000 });
  expect(standing.known('192.0.2.1')).toBe('clear');
});

test('a spent address is refused from memory until its window ends, with the time left', () => {
  const time = clock();
  const standing = createAddressStanding({ trustMs: 1000, now: time.now });
  standing.learned('192.0.2.1', { remaining: 0, resetMs: 30_000 });
  expect(standing.known('192.0.2.1')).toEqual({ remaining: 0, resetMs: 30_000 });
  time.advance(29_000);
  expect(standing.known('192.0.2.1')).toEqual({ remaining: 0, resetMs: 1_000 });
  time.advance(1_000);
  expect(standing.known('192.0.2.1')).toBeNull();
  // Another address is not affected.
  expect(standing.known('192.0.2.2')).toBeNull();
});

test('a failure counted after a clear read replaces what was known', () => {
  const standing = createAddressStanding();
  standing.learned('192.0.2.1', null);
  standing.learned('192.0.2.1', { remaining: 0, resetMs: 5_000 });
  expect(standing.known('192.0.2.1')).toMatchObject({ remaining: 0 });
});

test('at most `capacity` addresses are remembered; a forgotten one is read again', () => {
  const standing = createAddressStanding({ capacity: 2 });
  standing.learned('a', { remaining: 0, resetMs: 60_000 });
  standing.learned('b', null);
  standing.learned('c', null);
  expect(standing.known('a')).toBeNull();
  expect(standing.known('b')).toBe('clear');
  expect(standing.known('c')).toBe('clear');
});
