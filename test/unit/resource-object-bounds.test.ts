/**
 * A single write's body with stray members in `data` is refused with the first MAX_REPORTED_PROBLEMS
 * problems, as every other refusal: it answered one error per member (1 MiB of members, a 400 of many MB).
 */
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';
import { MAX_REPORTED_PROBLEMS } from '../../src/plugins/public-api/server/src/write/attributes';
import { parseResourceDocument } from '../../src/plugins/public-api/server/src/write/resource-object';

test('1,000 stray members in data: the first problems, in order, and no more', () => {
  const data = { type: 'events', attributes: {}, ...Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`stray${i}`, 0])) };
  let error: unknown;
  try {
    parseResourceDocument({ data });
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ApiError);
  const { errors } = error as ApiError;
  expect(errors).toHaveLength(MAX_REPORTED_PROBLEMS);
  expect(errors[0]!.source).toEqual({ pointer: '/data/stray0' });
});
