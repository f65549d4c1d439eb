import { documentWriteOf } from '../../src/domain/document-write';
import { effectiveValues, evaluateRules, fieldsRead, rulesAtStake } from '../../src/domain/evaluate';
import { rulesFor, type RuleLookups } from '../../src/domain/rules';
import { validationErrorOf } from '../../src/domain/violations';
import { errors } from '@strapi/utils';

const noLookups: RuleLookups = { documentsWithValue: async () => [] };

describe('documentWriteOf', () => {
  test('reads create, update and clone calls', () => {
    expect(documentWriteOf('create', { data: { title: 'A' }, locale: 'de' })).toEqual({
      kind: 'create',
      locale: 'de',
      data: { title: 'A' },
    });
    expect(documentWriteOf('update', { documentId: 'd1', data: { price: 1 } })).toEqual({
      kind: 'update',
      documentId: 'd1',
      locale: null,
      data: { price: 1 },
    });
    expect(documentWriteOf('clone', { documentId: 'd1', locale: ['en', 'de'] })).toEqual({
      kind: 'clone',
      documentId: 'd1',
      locale: '*',
      data: {},
    });
  });
  test('publishing, discarding, reading and deleting are not writes of new values', () => {
    for (const action of ['publish', 'unpublish', 'discardDraft', 'delete', 'findMany', 'findOne', 'count']) {
      expect(documentWriteOf(action, { documentId: 'd1', data: { price: -1 } })).toBeNull();
    }
    expect(documentWriteOf('update', { data: { price: -1 } })).toBeNull();
  });
});

describe('which rules a write puts at stake', () => {
  const eventRules = rulesFor('api::event.event');
  test('an update that sends none of a rule’s fields cannot break it', () => {
    expect(rulesAtStake(eventRules, 'update', { title: 'New title' })).toEqual([]);
    expect(rulesAtStake(eventRules, 'update', { endsAt: null }).map((rule) => rule.name)).toEqual(['event-schedule']);
  });
  test('create and clone check everything', () => {
    expect(rulesAtStake(eventRules, 'create', {})).toHaveLength(2);
    expect(rulesAtStake(rulesFor('api::product.product'), 'clone', {}).map((rule) => rule.name)).toContain('unique-sku');
  });
  test('fields are read once', () => {
    expect(fieldsRead(rulesFor('api::event.event'))).toEqual(['startsAt', 'endsAt', 'price']);
  });
});

test('the write wins over the stored value, including an explicit null', () => {
  const stored = { startsAt: '2025-03-14T19:00:00Z', endsAt: '2025-03-14T21:00:00Z', price: 5 };
  expect(effectiveValues(stored, { startsAt: '2025-03-15T10:00:00Z', endsAt: null }, ['startsAt', 'endsAt', 'price'])).toEqual({
    startsAt: '2025-03-15T10:00:00Z',
    endsAt: null,
    price: 5,
  });
});

test('a partial update is checked against the stored document', async () => {
  const rules = rulesFor('api::event.event');
  const fields = fieldsRead(rules);
  const stored = { startsAt: '2025-03-14T19:00:00Z', endsAt: '2025-03-14T21:00:00Z', price: 5 };
  const data = { startsAt: '2025-03-15T10:00:00Z' };
  const violations = await evaluateRules(rulesAtStake(rules, 'update', data), effectiveValues(stored, data, fields), {
    contentType: 'api::event.event',
    documentId: 'd1',
    changed: new Set(Object.keys(data)),
    lookups: noLookups,
  });
  expect(violations).toEqual([
    { path: ['startsAt'], message: 'An event must start before it ends.', quote: { field: 'endsAt', value: '2025-03-14T21:00:00.000Z' } },
  ]);
});

test('violations become one Strapi ValidationError with yup-shaped details', () => {
  const one = validationErrorOf([{ path: ['price'], message: 'A price cannot be negative.' }]);
  expect(one).toBeInstanceOf(errors.ValidationError);
  expect(one.message).toBe('A price cannot be negative.');
  expect(one.details).toEqual({ errors: [{ path: ['price'], message: 'A price cannot be negative.', name: 'ValidationError' }] });
  const two = validationErrorOf([
    { path: ['endsAt'], message: 'a' },
    { path: ['price'], message: 'b' },
  ]);
  expect(two.message).toBe('2 errors occurred');
  expect((two.details as { errors: unknown[] }).errors).toHaveLength(2);
});
