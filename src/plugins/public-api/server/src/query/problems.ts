/**
 * How the query parsers reject a parameter: always 400, `source.parameter` naming it exactly as sent,
 * a `meta.reason`, and a detail that echoes only what the caller sent (never a field the key cannot read).
 */
import { apiError, type ApiError } from '../http/errors';

/** Echoing is shared with writes and commands; the query parsers reach it here. */
export { echo } from '../values/echo';

export type QueryProblemReason =
  | 'unknown_parameter'
  | 'parameter_repeated'
  | 'limit_invalid'
  | 'cursor_invalid'
  | 'cursor_expired'
  | 'cursor_mismatch'
  | 'sync_token_invalid'
  | 'sync_token_mismatch'
  | 'sort_invalid'
  | 'sort_repeated'
  | 'locale_unknown'
  | 'locale_list_too_long'
  | 'locale_repeated'
  | 'status_invalid'
  | 'include_invalid'
  | 'include_too_deep'
  | 'include_limit'
  | 'include_repeated'
  | 'include_too_large'
  | 'filter_invalid'
  | 'filter_field_invalid'
  | 'filter_operator_invalid'
  | 'filter_value_invalid'
  | 'filter_value_too_long'
  | 'filter_repeated'
  | 'filter_limit'
  | 'fields_invalid'
  | 'fields_limit'
  | 'fields_repeated'
  | 'fields_type_invalid'
  | 'fields_field_invalid';

export const parameterError = (parameter: string, detail: string, reason: QueryProblemReason): ApiError =>
  apiError(400, detail, { source: { parameter }, reason });
