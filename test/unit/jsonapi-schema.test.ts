/**
 * The schema every response is validated against (test/helpers/jsonapi.ts): JSON:API's own, extended for
 * exactly `links.sync` and `atomic:results` (contract preamble and section 2). Any other extra member fails.
 */
import { expectValidJsonApi } from '../helpers/jsonapi';

const record = { type: 'events', id: 'e1', attributes: { title: 'Jazz Night' } };
const jsonapi = { version: '1.1' };

const valid = (body: unknown) => {
  try {
    expectValidJsonApi(body);
    return true;
  } catch {
    return false;
  }
};

test('links.sync and atomic:results, the two members the contract adds, validate', () => {
  expect(
    valid({ jsonapi, data: [record], links: { self: 'https://x.example/api/v2/sync', sync: 'https://x.example/api/v2/sync?token=t' } }),
  ).toBe(true);
  expect(valid({ jsonapi, data: [], meta: {}, links: { sync: { href: 'https://x.example/api/v2/sync?token=t' } } })).toBe(true);
  expect(valid({ jsonapi, 'atomic:results': [{ data: record }, {}, { data: record, meta: { archived: true } }] })).toBe(true);
  expect(valid({ jsonapi, 'atomic:results': [] })).toBe(true);
});

test('every other member beyond the JSON:API schema fails', () => {
  for (const body of [
    { jsonapi, data: record, links: { self: 'https://x.example', syncs: 'https://x.example' } },
    { jsonapi, data: record, links: { sync: 42 } },
    { jsonapi, data: record, extra: true },
    { jsonapi: { version: '1.1', ext: ['https://jsonapi.org/ext/atomic'] }, 'atomic:results': [] },
    { jsonapi, 'atomic:operations': [] },
    { jsonapi, 'atomic:results': [{ data: record, links: {} }] },
    { jsonapi, 'atomic:results': {} },
    { jsonapi, 'atomic:results': [], data: record },
    { jsonapi, 'atomic:results': [], errors: [{ status: '400' }] },
    { jsonapi, errors: [{ status: '400' }, { status: '400' }] },
  ]) {
    expect([body, valid(body)]).toEqual([body, false]);
  }
});
