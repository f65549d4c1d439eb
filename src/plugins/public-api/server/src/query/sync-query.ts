/**
 * The query of `GET /sync` (contract section 16), pure: `limit` (1-100, default 100), `locale` (a code or a
 * fallback list, as reads take it), and at most one of `token` (a delta since a sync token) and `cursor`
 * (the next page of a run). Anything else, or a parameter given twice, is a 400 naming it.
 */
import { echo } from '../values/echo';
import { apiError } from '../http/errors';
import { parameterError } from './problems';
import { parseLimit, parseLocaleList } from './parse';

export const SYNC_DEFAULT_LIMIT = 100;

export type SyncQuery = {
  limit: number;
  /** The locales asked for, in order; null when `locale` was not sent (or the key reads nothing localized). */
  locales: string[] | null;
  token: string | null;
  cursor: string | null;
};

const NAMES = new Set(['limit', 'locale', 'token', 'cursor']);

export const parseSyncQuery = (query: URLSearchParams, locales: readonly string[] | null): SyncQuery => {
  const parsed: SyncQuery = { limit: SYNC_DEFAULT_LIMIT, locales: null, token: null, cursor: null };
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    // Repeated before unknown, as the read parsers judge it.
    if (values.length > 1) throw parameterError(name, `The query parameter ${echo(name)} is given more than once.`, 'parameter_repeated');
    if (!NAMES.has(name)) {
      throw apiError(400, `Unknown query parameter ${echo(name)}; /sync takes limit, locale, token and cursor.`, {
        source: { parameter: name },
        reason: 'unknown_parameter',
      });
    }
    const text = values[0]!;
    if (name === 'limit') parsed.limit = parseLimit(text);
    else if (name === 'locale') parsed.locales = parseLocaleList(text, locales);
    else if (text === '') throw parameterError(name, `The ${name} is empty.`, name === 'token' ? 'sync_token_invalid' : 'cursor_invalid');
    else if (name === 'token') parsed.token = text;
    else parsed.cursor = text;
  }
  if (parsed.token !== null && parsed.cursor !== null) {
    throw parameterError(
      'cursor',
      'Send either token (a delta since a sync) or cursor (the next page of a sync), not both.',
      'cursor_invalid',
    );
  }
  return parsed;
};
