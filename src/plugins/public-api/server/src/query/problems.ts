/**
 * How the query parsers reject a parameter: always 400, `source.parameter` naming it exactly as sent,
 * a `meta.reason`, and a detail that echoes only what the caller sent (never a field the key cannot read).
 */
import { apiError, type ApiError } from '../http/errors';

export type QueryProblemReason =
  | 'unknown_parameter'
  | 'parameter_repeated'
  | 'limit_invalid'
  | 'cursor_invalid'
  | 'cursor_expired'
  | 'cursor_mismatch'
  | 'sort_invalid'
  | 'sort_repeated'
  | 'locale_unknown'
  | 'include_invalid'
  | 'include_too_deep'
  | 'include_limit'
  | 'include_repeated'
  | 'filter_invalid'
  | 'filter_field_invalid'
  | 'filter_operator_invalid'
  | 'filter_value_invalid'
  | 'filter_value_too_long'
  | 'filter_repeated'
  | 'filter_limit';

const ECHO_LIMIT = 80;

/** The caller's own text, quoted and cut short so that a huge parameter cannot inflate the error. */
export const echo = (text: string): string => {
  const codePoints = Array.from(text);
  return `'${codePoints.length > ECHO_LIMIT ? `${codePoints.slice(0, ECHO_LIMIT).join('')}…` : text}'`;
};

export const parameterError = (parameter: string, detail: string, reason: QueryProblemReason): ApiError =>
  apiError(400, detail, { source: { parameter }, reason });
