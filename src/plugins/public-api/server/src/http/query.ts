import { echo } from '../values/echo';
import { apiError } from './errors';

/**
 * Any query parameter outside the allowed set is a 400 naming it (contract section 5); a name sent more
 * than once is `parameter_repeated` first, as the read parsers judge it, and named once.
 */
export const assertOnlyParameters = (query: URLSearchParams, allowed: (name: string) => boolean): void => {
  for (const name of new Set(query.keys())) {
    if (query.getAll(name).length > 1) {
      throw apiError(400, `The query parameter ${echo(name)} is given more than once.`, {
        source: { parameter: name },
        reason: 'parameter_repeated',
      });
    }
    if (!allowed(name)) {
      throw apiError(400, `Unknown query parameter '${name}'.`, {
        source: { parameter: name },
        reason: 'unknown_parameter',
      });
    }
  }
};
