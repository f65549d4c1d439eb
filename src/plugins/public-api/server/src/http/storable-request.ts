/**
 * Path segments and query parameters that no database can store (values/storable-text.ts) are refused at the
 * edge, before any handler looks a resource, record or filter up: 400, the same on every database. A
 * query parameter is named in `source.parameter` (its name or its value may be at fault); a path has no
 * JSON:API source member, so the detail says it. Pure.
 *
 * Each parameter name is judged once, however often it is sent: `?sort=%00&sort=%00` is one problem, not two
 * identical error objects (JSON:API requires the errors of a document to be unique). A name sent more than
 * once with unstorable text is `parameter_repeated`, as the query parsers say it (unless the name itself is
 * unstorable); a repeated name with storable values is left to the parsers, which report it with the rest.
 */
import { apiErrors, errorObject, type ErrorObject } from './errors';
import { UNSTORABLE_TEXT, isStorableText } from '../values/storable-text';
import { echo } from '../values/echo';

/** As many as the query parsers report at once. */
const MAX_PROBLEMS = 20;

export const assertStorableRequest = (params: Record<string, string>, query: URLSearchParams): void => {
  const problems: ErrorObject[] = [];
  if (!Object.values(params).every(isStorableText)) {
    problems.push(errorObject(400, `The path holds text no database stores: ${UNSTORABLE_TEXT}.`, { reason: 'unstorable_text' }));
  }
  for (const name of new Set(query.keys())) {
    if (problems.length >= MAX_PROBLEMS) break;
    const values = query.getAll(name);
    const storableName = isStorableText(name);
    if (storableName && values.every(isStorableText)) continue;
    // A repeated name is refused as the query parsers refuse it, whatever its values; none is looked up.
    problems.push(
      storableName && values.length > 1
        ? errorObject(400, `The query parameter ${echo(name)} is given more than once.`, {
            source: { parameter: name },
            reason: 'parameter_repeated',
          })
        : errorObject(400, `The query parameter holds text no database stores: ${UNSTORABLE_TEXT}.`, {
            source: { parameter: name },
            reason: 'unstorable_text',
          }),
    );
  }
  if (problems.length) throw apiErrors(400, problems);
};
