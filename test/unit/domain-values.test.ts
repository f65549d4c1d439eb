import { amountOf, calendarDayOf, instantOf, textOf } from '../../src/domain/values';

describe('instantOf', () => {
  test('reads ISO strings, Dates and epoch milliseconds alike', () => {
    const ms = Date.UTC(2025, 2, 14, 19, 30);
    expect(instantOf('2025-03-14T19:30:00.000Z')).toBe(ms);
    expect(instantOf(new Date(ms))).toBe(ms);
    expect(instantOf(ms)).toBe(ms);
  });
  test('is null for absent or unreadable values, which Strapi itself rejects', () => {
    for (const value of [null, undefined, '', '  ', 'soon', new Date('nope'), Number.NaN, {}, true]) {
      expect(instantOf(value)).toBeNull();
    }
  });
});

describe('calendarDayOf', () => {
  test('keeps the calendar day of dates and datetimes', () => {
    expect(calendarDayOf('2025-07-04')).toBe('2025-07-04');
    expect(calendarDayOf('2025-07-04T00:00:00.000Z')).toBe('2025-07-04');
    expect(calendarDayOf(new Date(Date.UTC(2025, 6, 4)))).toBe('2025-07-04');
  });
  test('refuses days that do not exist instead of rolling them over', () => {
    expect(calendarDayOf('2025-02-30')).toBeNull();
    expect(calendarDayOf('2025-13-01')).toBeNull();
    expect(calendarDayOf('04.07.2025')).toBeNull();
    expect(calendarDayOf(20250704)).toBeNull();
  });
});

describe('amountOf', () => {
  test('reads numbers and decimal strings', () => {
    expect(amountOf(12.5)).toBe(12.5);
    expect(amountOf('12.50')).toBe(12.5);
    expect(amountOf('-0.01')).toBe(-0.01);
    expect(amountOf(0)).toBe(0);
  });
  test('is null for what is not a number', () => {
    for (const value of [null, undefined, '', 'twelve', Number.POSITIVE_INFINITY, [], {}]) {
      expect(amountOf(value)).toBeNull();
    }
  });
});

test('textOf trims and treats blank as absent', () => {
  expect(textOf('  TKT-1 ')).toBe('TKT-1');
  expect(textOf('   ')).toBeNull();
  expect(textOf(42)).toBeNull();
});
