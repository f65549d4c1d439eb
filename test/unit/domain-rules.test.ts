import { checkEventSchedule, eventScheduleRule } from '../../src/domain/rules/event-schedule';
import { checkFestivalDates } from '../../src/domain/rules/festival-dates';
import { checkNonNegativePrice, nonNegativePriceRule } from '../../src/domain/rules/non-negative-price';
import { checkSalaryRange } from '../../src/domain/rules/salary-range';
import { checkUniqueSku, uniqueSkuRule } from '../../src/domain/rules/unique-sku';
import { DOMAIN_RULES, rulesFor, type RuleContext, type RuleLookups } from '../../src/domain/rules';

const changed = (...fields: string[]) => new Set(fields);

describe('event schedule', () => {
  test('an event that ends after it starts, or has no end, is fine', () => {
    expect(checkEventSchedule({ startsAt: '2025-03-14T19:00:00Z', endsAt: '2025-03-14T21:00:00Z' })).toEqual([]);
    expect(checkEventSchedule({ startsAt: '2025-03-14T19:00:00Z', endsAt: null })).toEqual([]);
    expect(checkEventSchedule({ startsAt: '2025-03-14T19:00:00Z' })).toEqual([]);
  });
  test('an end at or before the start is reported on endsAt', () => {
    for (const endsAt of ['2025-03-14T19:00:00Z', '2025-03-14T18:59:59Z']) {
      expect(checkEventSchedule({ startsAt: '2025-03-14T19:00:00Z', endsAt })).toEqual([
        {
          path: ['endsAt'],
          message: 'An event must end after it starts.',
          quote: { field: 'startsAt', value: '2025-03-14T19:00:00.000Z' },
        },
      ]);
    }
  });
  test('moving only the start past the end is reported on startsAt, the field the writer sent', () => {
    const record = { startsAt: '2025-03-15T10:00:00Z', endsAt: '2025-03-14T21:00:00Z' };
    expect(checkEventSchedule(record, changed('startsAt'))).toEqual([
      { path: ['startsAt'], message: 'An event must start before it ends.', quote: { field: 'endsAt', value: '2025-03-14T21:00:00.000Z' } },
    ]);
    expect(checkEventSchedule(record, changed('startsAt', 'endsAt'))[0].path).toEqual(['endsAt']);
  });
  test('unreadable values are left to Strapi', () => {
    expect(checkEventSchedule({ startsAt: 'tomorrow', endsAt: '2025-03-14T21:00:00Z' })).toEqual([]);
  });
});

describe('festival dates', () => {
  test('a festival may last one day', () => {
    expect(checkFestivalDates({ startsOn: '2025-07-04', endsOn: '2025-07-04' })).toEqual([]);
    expect(checkFestivalDates({ startsOn: '2025-07-04', endsOn: '2025-07-06' })).toEqual([]);
  });
  test('ending before the first day is refused', () => {
    expect(checkFestivalDates({ startsOn: '2025-07-04', endsOn: '2025-07-03' })).toEqual([
      { path: ['endsOn'], message: 'A festival cannot end before its first day.', quote: { field: 'startsOn', value: '2025-07-04' } },
    ]);
    expect(checkFestivalDates({ startsOn: '2025-07-04', endsOn: '2025-07-03' }, changed('startsOn'))).toEqual([
      { path: ['startsOn'], message: 'A festival cannot start after its last day.', quote: { field: 'endsOn', value: '2025-07-03' } },
    ]);
  });
  test('compares calendar days, not strings that merely look alike', () => {
    expect(checkFestivalDates({ startsOn: '2025-07-04T23:00:00.000Z', endsOn: '2025-07-04' })).toEqual([]);
    expect(checkFestivalDates({ startsOn: '2025-12-31', endsOn: '2026-01-01' })).toEqual([]);
  });
});

describe('salary range', () => {
  test('an ordered or half-open range is fine', () => {
    expect(checkSalaryRange({ salaryMin: 50000, salaryMax: 50000 })).toEqual([]);
    expect(checkSalaryRange({ salaryMin: 50000, salaryMax: null })).toEqual([]);
    expect(checkSalaryRange({ salaryMax: 1 })).toEqual([]);
  });
  test('a minimum above the maximum is refused, on the field that was sent', () => {
    expect(checkSalaryRange({ salaryMin: 70000, salaryMax: 60000 })).toEqual([
      {
        path: ['salaryMax'],
        message: 'The maximum salary cannot be below the minimum salary.',
        quote: { field: 'salaryMin', value: '70000' },
      },
    ]);
    expect(checkSalaryRange({ salaryMin: '70000', salaryMax: 60000 }, changed('salaryMin'))).toEqual([
      {
        path: ['salaryMin'],
        message: 'The minimum salary cannot exceed the maximum salary.',
        quote: { field: 'salaryMax', value: '60000' },
      },
    ]);
  });
});

describe('non-negative price', () => {
  test('free and priced are fine; negative is not, as number or decimal string', () => {
    expect(checkNonNegativePrice({ price: 0 })).toEqual([]);
    expect(checkNonNegativePrice({ price: '19.90' })).toEqual([]);
    expect(checkNonNegativePrice({})).toEqual([]);
    expect(checkNonNegativePrice({ price: -1 })).toEqual([{ path: ['price'], message: 'A price cannot be negative.' }]);
    expect(checkNonNegativePrice({ price: '-0.01' })).toHaveLength(1);
  });
  test('governs events and products', () => {
    expect(nonNegativePriceRule.contentTypes).toEqual(['api::event.event', 'api::product.product']);
  });
});

describe('unique SKU', () => {
  const lookupsWith = (holders: Record<string, string[]>) => {
    const calls: Array<[string, string, string, string | null]> = [];
    const lookups: RuleLookups = {
      documentsWithValue: async (contentType, field, value, except) => {
        calls.push([contentType, field, value, except]);
        return (holders[value] ?? []).filter((documentId) => documentId !== except);
      },
    };
    return { lookups, calls };
  };
  const context = (lookups: RuleLookups, documentId: string | null): RuleContext => ({
    contentType: 'api::product.product',
    documentId,
    changed: new Set(['sku']),
    lookups,
  });

  test('the pure check refuses a SKU held by another document', () => {
    expect(checkUniqueSku('TKT-1', [])).toEqual([]);
    expect(checkUniqueSku('TKT-1', ['abc'])).toEqual([
      { path: ['sku'], message: 'This SKU is already used by another product.', quote: { field: 'sku', value: 'TKT-1' } },
    ]);
  });

  test('asks for other documents only, so a document never conflicts with its own locales', async () => {
    const { lookups, calls } = lookupsWith({ 'TKT-1': ['doc-a'] });
    expect(await uniqueSkuRule.check({ sku: 'TKT-1' }, context(lookups, 'doc-a'))).toEqual([]);
    expect(await uniqueSkuRule.check({ sku: ' TKT-1 ' }, context(lookups, 'doc-b'))).toHaveLength(1);
    expect(await uniqueSkuRule.check({ sku: 'TKT-1' }, context(lookups, null))).toHaveLength(1);
    expect(calls).toEqual([
      ['api::product.product', 'sku', 'TKT-1', 'doc-a'],
      ['api::product.product', 'sku', 'TKT-1', 'doc-b'],
      ['api::product.product', 'sku', 'TKT-1', null],
    ]);
  });

  test('no SKU, no lookup', async () => {
    const { lookups, calls } = lookupsWith({});
    expect(await uniqueSkuRule.check({ sku: null }, context(lookups, null))).toEqual([]);
    expect(calls).toEqual([]);
  });
});

test('each content type is governed by its rules and no others', () => {
  const names = (uid: string) => rulesFor(uid).map((rule) => rule.name);
  expect(names('api::event.event')).toEqual(['event-schedule', 'non-negative-price']);
  expect(names('api::festival.festival')).toEqual(['festival-dates']);
  expect(names('api::job.job')).toEqual(['salary-range']);
  expect(names('api::product.product')).toEqual(['non-negative-price', 'unique-sku']);
  expect(names('api::page.page')).toEqual([]);
  expect(DOMAIN_RULES).toContain(eventScheduleRule);
});
