import { apiError } from './errors';

/** Any query parameter outside the allowed set is a 400 naming it (contract section 5). */
export const assertOnlyParameters = (query: URLSearchParams, allowed: (name: string) => boolean): void => {
  for (const name of query.keys()) {
    if (!allowed(name)) {
      throw apiError(400, `Unknown query parameter '${name}'.`, {
        source: { parameter: name },
        reason: 'unknown_parameter',
      });
    }
  }
};
