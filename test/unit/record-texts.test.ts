/**
 * The cache of records by their inputs (serialize/record-texts.ts): a record is found only for the very
 * inputs it was made of, in its own partition; the bounds hold; a kept record's JSON is written once.
 */
import {
  createRecordTextCache,
  inputValue,
  keptRecordBytes,
  objectId,
} from '../../src/plugins/public-api/server/src/serialize/record-texts';

type Made = { id: string };

test('inputs compare as they are, dates by their time, objects by their JSON', () => {
  for (const value of ['a', 1, 0, -1.5, true, false, null, undefined, 10n]) expect(inputValue(value)).toBe(value);
  expect(inputValue(new Date(1_700_000_000_000))).toBe(1_700_000_000_000);
  expect(inputValue({ b: [1, 'x'] })).toBe('{"b":[1,"x"]}');
  expect(inputValue([{ id: 1 }])).toBe('[{"id":1}]');
});

test('a record is found for the very inputs it was made of, in its partition and row only', () => {
  const cache = createRecordTextCache(1_000_000);
  const events = cache.partition<Made>('events');
  const record = { id: 'r1' };
  events.keep(1, ['doc1', 'Opening', 10, null], record);
  expect(events.get(1, ['doc1', 'Opening', 10, null])).toBe(record);
  // Any one input other: not found.
  expect(events.get(1, ['doc1', 'Opening!', 10, null])).toBeUndefined();
  expect(events.get(1, ['doc1', 'Opening', '10', null])).toBeUndefined();
  expect(events.get(1, ['doc1', 'Opening', 10, undefined])).toBeUndefined();
  expect(events.get(1, ['doc1', 'Opening', 10])).toBeUndefined();
  expect(events.get(1, ['doc1', 'Opening', 10, null, null])).toBeUndefined();
  // Another row, another partition: not found.
  expect(events.get(2, ['doc1', 'Opening', 10, null])).toBeUndefined();
  expect(cache.partition<Made>('events-other-fields').get(1, ['doc1', 'Opening', 10, null])).toBeUndefined();
  // The same partition asked again by name finds it.
  expect(cache.partition<Made>('events').get(1, ['doc1', 'Opening', 10, null])).toBe(record);
});

test('a row kept again replaces its record, and is counted once', () => {
  const cache = createRecordTextCache(1_000_000);
  const events = cache.partition<Made>('events');
  events.keep(1, ['abc'], { id: 'old' });
  const fresh = { id: 'new' };
  events.keep(1, ['abcd'], fresh);
  expect(events.get(1, ['abc'])).toBeUndefined();
  expect(events.get(1, ['abcd'])).toBe(fresh);
  expect(cache.stats()).toEqual({ records: 1, chars: 4, partitions: 1 });
});

test('the characters of the inputs held stay within the bound; records found since are kept longer', () => {
  const cache = createRecordTextCache(100);
  const events = cache.partition<Made>('events');
  const input = (row: number) => [`${row}`.padStart(10, '0')];
  for (let row = 1; row <= 10; row += 1) events.keep(row, input(row), { id: `r${row}` });
  expect(cache.stats()).toEqual({ records: 10, chars: 100, partitions: 1 });
  // Row 1 is read again: the next record pushes out row 2, the oldest not read since.
  expect(events.get(1, input(1))).toBeDefined();
  events.keep(11, input(11), { id: 'r11' });
  expect(cache.stats().chars).toBeLessThanOrEqual(100);
  expect(events.get(1, input(1))).toBeDefined();
  expect(events.get(2, input(2))).toBeUndefined();
  for (let row = 12; row <= 200; row += 1) events.keep(row, input(row), { id: `r${row}` });
  expect(cache.stats().chars).toBeLessThanOrEqual(100);
  expect(cache.stats().records).toBe(10);
});

test('the number of records is bounded too, and a record of over a tenth of the bound is not kept', () => {
  const cache = createRecordTextCache(1_000, 3);
  const events = cache.partition<Made>('events');
  for (let row = 1; row <= 5; row += 1) events.keep(row, [row], { id: `r${row}` });
  expect(cache.stats().records).toBe(3);
  events.keep(9, ['x'.repeat(101)], { id: 'large' });
  expect(events.get(9, ['x'.repeat(101)])).toBeUndefined();
  // Numbers and other values weigh 8 each.
  expect(cache.stats().chars).toBe(24);
});

test('partitions whose records all went are forgotten', () => {
  const cache = createRecordTextCache(800);
  // Each request with new sparse fieldsets is a partition of its own: they do not pile up.
  for (let request = 0; request < 1_000; request += 1) cache.partition<Made>(`fields-${request}`).keep(1, ['0123456789'], { id: 'r' });
  expect(cache.stats()).toEqual({ records: 80, chars: 800, partitions: 80 });
  // Asking for a partition holds nothing.
  for (let request = 0; request < 1_000; request += 1) cache.partition<Made>(`asked-${request}`).get(1, ['0123456789']);
  expect(cache.stats().partitions).toBe(80);
});

test("a kept record's JSON is written once, when first asked; other values are the caller's to write", () => {
  const cache = createRecordTextCache(1_000);
  const record = { id: 'r1', attributes: { title: 'Caf\u00e9' } };
  expect(keptRecordBytes(record)).toBeNull();
  cache.partition<typeof record>('events').keep(1, ['doc'], record);
  const bytes = keptRecordBytes(record)!;
  expect(bytes.toString('utf8')).toBe(JSON.stringify(record));
  expect(bytes.length).toBe(Buffer.byteLength(JSON.stringify(record)));
  expect(keptRecordBytes(record)).toBe(bytes);
  expect(keptRecordBytes(null)).toBeNull();
  expect(keptRecordBytes('text')).toBeNull();
});

test('objects are named by numbers of their own', () => {
  const a = {};
  const b = {};
  expect(objectId(a)).toBe(objectId(a));
  expect(objectId(a)).not.toBe(objectId(b));
});
