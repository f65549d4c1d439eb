/**
 * What the process remembers of keys past their rate limit (http/key-standing.ts): a key refused by the
 * store is refused from memory until its window ends, only under the limit it was refused with (a changed
 * limit asks the store again), a count within the limit forgets it, and memory stays bounded.
 */
import fc from 'fast-check';
import { createKeyStanding } from '../../src/plugins/public-api/server/src/http/key-standing';

const LIMIT = { requests: 600, window: 60 };

const clock = () => {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

test('a key never refused, or counted within its limit, is not known to be spent', () => {
  const standing = createKeyStanding();
  expect(standing.spent('k', LIMIT)).toBeNull();
  standing.learned('k', LIMIT, { exceeded: false, resetMs: 30_000 });
  expect(standing.spent('k', LIMIT)).toBeNull();
  standing.learned('k', LIMIT, null);
  expect(standing.spent('k', LIMIT)).toBeNull();
});

test('a key the store refused is refused from memory until its window ends, with the time left', () => {
  const time = clock();
  const standing = createKeyStanding({ now: time.now });
  standing.learned('k', LIMIT, { exceeded: true, resetMs: 30_000 });
  expect(standing.spent('k', LIMIT)).toEqual({ remaining: 0, resetMs: 30_000 });
  time.advance(29_000);
  expect(standing.spent('k', LIMIT)).toEqual({ remaining: 0, resetMs: 1_000 });
  // Another key is not affected.
  expect(standing.spent('other', LIMIT)).toBeNull();
  time.advance(1_000);
  expect(standing.spent('k', LIMIT)).toBeNull();
});

test('a changed limit asks the store again: the standing holds only under the limit it was learned with', () => {
  const standing = createKeyStanding();
  standing.learned('k', LIMIT, { exceeded: true, resetMs: 30_000 });
  expect(standing.spent('k', { requests: 1_000, window: 60 })).toBeNull();
  // Forgotten once asked under another limit: the store's answer is learned next.
  expect(standing.spent('k', LIMIT)).toBeNull();
  standing.learned('k', LIMIT, { exceeded: true, resetMs: 30_000 });
  expect(standing.spent('k', { requests: 600, window: 120 })).toBeNull();
});

test('a window already ended is not remembered', () => {
  const standing = createKeyStanding();
  standing.learned('k', LIMIT, { exceeded: true, resetMs: 0 });
  expect(standing.spent('k', LIMIT)).toBeNull();
});

test('property: memory stays bounded, and a key is spent only if the last count of it under that limit said so', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({ key: fc.nat(30), exceeded: fc.boolean(), resetMs: fc.integer({ min: 0, max: 10_000 }), advance: fc.nat(3_000) }),
        {
          maxLength: 200,
        },
      ),
      (steps) => {
        const time = clock();
        const standing = createKeyStanding({ now: time.now, capacity: 8 });
        const last = new Map<string, { exceeded: boolean; until: number }>();
        for (const step of steps) {
          const key = `k${step.key}`;
          standing.learned(key, LIMIT, { exceeded: step.exceeded, resetMs: step.resetMs });
          last.set(key, { exceeded: step.exceeded, until: time.now() + step.resetMs });
          time.advance(step.advance);
          for (const [name, expected] of last) {
            const spent = standing.spent(name, LIMIT);
            if (spent) {
              expect(expected.exceeded).toBe(true);
              expect(spent.resetMs).toBe(expected.until - time.now());
              expect(spent.resetMs).toBeGreaterThan(0);
            }
          }
        }
        let remembered = 0;
        for (const name of last.keys()) if (standing.spent(name, LIMIT)) remembered += 1;
        expect(remembered).toBeLessThanOrEqual(8);
      },
    ),
  );
});
