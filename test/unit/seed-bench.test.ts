import { deterministicDocumentId } from '../../src/seed/bench/document-id';
import { benchEvent, benchSlug } from '../../src/seed/bench/events';
import { checkEventSchedule } from '../../src/domain/rules/event-schedule';
import { createRandom, seedOf } from '../../src/seed/random';
import { createSlugRegistry, slugify } from '../../src/seed/slugs';
import { sortValueAt } from '../../src/seed/plan/sort';

test('benchmark event n is a function of n alone', () => {
  expect(benchEvent(42)).toEqual(benchEvent(42));
  expect(benchEvent(42)).not.toEqual(benchEvent(43));
  expect(benchEvent(1).slug).toBe('bench-000001');
  expect(benchSlug(123456)).toBe('bench-123456');
});

test('document ids have the shape Strapi generates, and do not collide', () => {
  const ids = new Set<string>();
  for (let n = 1; n <= 20000; n += 1) {
    const { documentId } = benchEvent(n);
    expect(documentId).toMatch(/^[a-z][a-z0-9]{23}$/);
    ids.add(documentId);
  }
  expect(ids.size).toBe(20000);
  expect(deterministicDocumentId(7)).toBe(deterministicDocumentId(7));
});

test('benchmark events keep the domain rules and carry sort values with nulls and ties', () => {
  const events = Array.from({ length: 2000 }, (_, index) => benchEvent(index + 1));
  for (const event of events) {
    expect(checkEventSchedule(event)).toEqual([]);
    expect(event.price).toBeGreaterThanOrEqual(0);
  }
  const sorts = events.map((event) => event.sort);
  expect(sorts.filter((sort) => sort === null).length).toBeGreaterThan(0);
  expect(new Set(sorts.filter((sort) => sort !== null)).size).toBeLessThan(sorts.filter((sort) => sort !== null).length);
});

test('the generator is seeded: the same seed gives the same sequence', () => {
  const a = createRandom(seedOf('x'));
  const b = createRandom(seedOf('x'));
  expect(Array.from({ length: 5 }, () => a.next())).toEqual(Array.from({ length: 5 }, () => b.next()));
  const c = createRandom(seedOf('y'));
  expect(c.next()).not.toBe(createRandom(seedOf('x')).next());
  expect(c.sample([1, 2, 3, 4], 4).sort()).toEqual([1, 2, 3, 4]);
});

test('slugs transliterate German and get Strapi-style suffixes when taken', () => {
  expect(slugify('Warten auf die Fähre: Premiere')).toBe('warten-auf-die-faehre-premiere');
  expect(slugify('Straßenfotografie & Öl')).toBe('strassenfotografie-and-oel');
  const slugFor = createSlugRegistry();
  expect([slugFor('About us'), slugFor('About us'), slugFor('About us')]).toEqual(['about-us', 'about-us-1', 'about-us-2']);
});

test('sortValueAt leaves some empty and repeats some', () => {
  const values = Array.from({ length: 30 }, (_, index) => sortValueAt(index));
  expect(values.slice(0, 5)).toEqual([10, 20, 30, 40, 50]);
  expect(values[7]).toBeNull();
  expect(values[5]).toBe(values[4]);
});
