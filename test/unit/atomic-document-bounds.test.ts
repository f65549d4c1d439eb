/**
 * The work a refused atomic document costs stays about what its answer reports (at most
 * MAX_REPORTED_PROBLEMS errors), not one error object per stray member: a 1 MiB body of 100 operations
 * with a thousand unknown members each built 100,000 error objects (about 60 MB and 150 ms) to report 20.
 * Counted through `echo`, which every such problem calls once.
 */
import { MAX_REPORTED_PROBLEMS } from '../../src/plugins/public-api/server/src/write/attributes';
import { parseAtomicDocument } from '../../src/plugins/public-api/server/src/write/atomic-document';
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';

const echoed = { calls: 0 };
jest.mock('../../src/plugins/public-api/server/src/values/echo', () => {
  const actual = jest.requireActual('../../src/plugins/public-api/server/src/values/echo');
  return {
    ...actual,
    echo: (text: string) => {
      echoed.calls += 1;
      return actual.echo(text);
    },
  };
});

const strayMembers = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`stray${index}`, 0]));

const refusal = (body: unknown): ApiError => {
  try {
    parseAtomicDocument(body, 'https://api.example/api/v2');
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the document was accepted');
};

test('100 operations of 1,000 stray members each: the first problems reported, no more built', () => {
  echoed.calls = 0;
  const operation = { op: 'add', data: { type: 'events', attributes: {} }, ...strayMembers(1000) };
  const error = refusal({ 'atomic:operations': Array.from({ length: 100 }, () => operation) });
  expect(error.status).toBe(400);
  expect(error.errors).toHaveLength(MAX_REPORTED_PROBLEMS);
  expect(error.errors[0]!.source).toEqual({ pointer: '/atomic:operations/0/stray0' });
  expect(error.errors[MAX_REPORTED_PROBLEMS - 1]!.source).toEqual({ pointer: `/atomic:operations/0/stray${MAX_REPORTED_PROBLEMS - 1}` });
  expect(echoed.calls).toBeLessThanOrEqual(MAX_REPORTED_PROBLEMS * 2);
});

test('problems of several operations are still reported in order, up to the cap', () => {
  const error = refusal({
    'atomic:operations': [{ op: 'add', data: { type: 'events', attributes: {} }, ...strayMembers(3) }, { op: 'upsert' }],
  });
  expect(error.errors.map((object) => (object.source as { pointer: string }).pointer)).toEqual([
    '/atomic:operations/0/stray0',
    '/atomic:operations/0/stray1',
    '/atomic:operations/0/stray2',
    '/atomic:operations/1/op',
  ]);
});

test("an operation's `data` of 1,000 stray members: the cap holds there too (the single write's parser)", () => {
  const error = refusal({ 'atomic:operations': [{ op: 'add', data: { type: 'events', attributes: {}, ...strayMembers(1000) } }] });
  expect(error.errors).toHaveLength(MAX_REPORTED_PROBLEMS);
  expect(error.errors[0]!.source).toEqual({ pointer: '/atomic:operations/0/data/stray0' });
});
