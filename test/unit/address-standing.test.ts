/**
 * What the process remembers of client addresses' failed-authentication counters (http/address-standing.ts):
 * a spent address's failures are refused from memory until its window ends, a counter with requests left
 * is forgotten, and memory stays bounded whatever addresses arrive.
 */
import { createAddressStanding } from '../../src/plugins/public-api/server/src/http/address-standing';

const clock = () => {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

test('an address never seen is not known to be spent', () => {
  expect(createAddressStanding().spent('192.0.2.1')).toBeNull();
});

test('a counter with requests left, or none, is not spent', () => {
  const standing = createAddressStanding();
  standing.learned('192.0.2.1', null);
  expect(standing.spent('192.0.2.1')).toBeNull();
  standing.learned('192.0.2.1', { remaining: 2, resetMs: 40_000 });
  expect(standing.spent('192.0.2.1')).toBeNull();
});

test('a spent address is refused from memory until its window ends, with the time left', () => {
  const time = clock();
  const standing = createAddressStanding({ now: time.now });
  standing.learned('192.0.2.1', { remaining: 0, resetMs: 30_000 });
  expect(standing.spent('192.0.2.1')).toEqual({ remaining: 0, resetMs: 30_000 });
  time.advance(29_000);
  expect(standing.spent('192.0.2.1')).toEqual({ remaining: 0, resetMs: 1_000 });
  time.advance(1_000);
  expect(standing.spent('192.0.2.1')).toBeNull();
  // Another address is not affected.
  expect(standing.spent('192.0.2.2')).toBeNull();
});

test('a later count with requests left (a new window) replaces a spent one', () => {
  const standing = createAddressStanding();
  standing.learned('192.0.2.1', { remaining: 0, resetMs: 5_000 });
  standing.learned('192.0.2.1', { remaining: 29, resetMs: 60_000 });
  expect(standing.spent('192.0.2.1')).toBeNull();
});

test('at most `capacity` addresses are remembered; a forgotten one is counted in the store again', () => {
  const standing = createAddressStanding({ capacity: 2 });
  standing.learned('a', { remaining: 0, resetMs: 60_000 });
  standing.learned('b', { remaining: 0, resetMs: 60_000 });
  standing.learned('c', { remaining: 0, resetMs: 60_000 });
  expect(standing.spent('a')).toBeNull();
  expect(standing.spent('b')).toMatchObject({ remaining: 0 });
  expect(standing.spent('c')).toMatchObject({ remaining: 0 });
});
