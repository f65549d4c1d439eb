/**
 * Path segments and query parameters that no database can store (values/storable.ts) are refused at the
 * edge, before any handler looks a resource, record or filter up: 400, the same on every database. A
 * query parameter is named in `source.parameter` (its name or its value may be at fault); a path has no
 * JSON:API source member, so the detail says it. Pure.
 */
import { apiErrors, errorObject, type ErrorObject } from './errors';
import { UNSTORABLE_TEXT, isStorableText } from '../values/storable';

/** As many as the query parsers report at once. */
const MAX_PROBLEMS = 20;

export const assertStorableRequest = (params: Record<string, string>, query: URLSearchParams): void => {
  const problems: ErrorObject[] = [];
  if (!Object.values(params).every(isStorableText)) {
    problems.push(errorObject(400, `The path holds text no database stores: ${UNSTORABLE_TEXT}.`, { reason: 'unstorable_text' }));
  }
  for (const [name, value] of query) {
    if (problems.length >= MAX_PROBLEMS) break;
    if (isStorableText(name) && isStorableText(value)) continue;
    problems.push(
      errorObject(400, `The query parameter holds text no database stores: ${UNSTORABLE_TEXT}.`, {
        source: { parameter: name },
        reason: 'unstorable_text',
      }),
    );
  }
  if (problems.length) throw apiErrors(400, problems);
};
