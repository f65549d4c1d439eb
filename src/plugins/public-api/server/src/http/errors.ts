/**
 * The one error vocabulary of /api/v2: a status maps to exactly one code and title (contract section 8).
 * Everything that fails under /api/v2 becomes an ApiError, and the error layer serializes it.
 */
import type { CommandReason, ReasonOf } from './error-reasons';

export { commandReason } from './error-reasons';
export type { CommandReason, ErrorReason, ReasonOf } from './error-reasons';

export const ERROR_STATUSES = {
  400: { code: 'bad_request', title: 'Bad Request' },
  401: { code: 'unauthorized', title: 'Unauthorized' },
  403: { code: 'forbidden', title: 'Forbidden' },
  404: { code: 'not_found', title: 'Not Found' },
  405: { code: 'method_not_allowed', title: 'Method Not Allowed' },
  406: { code: 'not_acceptable', title: 'Not Acceptable' },
  408: { code: 'request_timeout', title: 'Request Timeout' },
  409: { code: 'conflict', title: 'Conflict' },
  410: { code: 'gone', title: 'Gone' },
  412: { code: 'precondition_failed', title: 'Precondition Failed' },
  413: { code: 'payload_too_large', title: 'Payload Too Large' },
  415: { code: 'unsupported_media_type', title: 'Unsupported Media Type' },
  416: { code: 'range_not_satisfiable', title: 'Range Not Satisfiable' },
  422: { code: 'unprocessable_entity', title: 'Unprocessable Entity' },
  429: { code: 'too_many_requests', title: 'Too Many Requests' },
  431: { code: 'request_header_fields_too_large', title: 'Request Header Fields Too Large' },
  500: { code: 'internal_error', title: 'Internal Server Error' },
  502: { code: 'bad_gateway', title: 'Bad Gateway' },
  503: { code: 'service_unavailable', title: 'Service Unavailable' },
  504: { code: 'gateway_timeout', title: 'Gateway Timeout' },
} as const;

export type ErrorStatus = keyof typeof ERROR_STATUSES;

export type ErrorSource = { pointer: string } | { parameter: string } | { header: string };

export type ErrorObject = {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: ErrorSource;
  meta?: { reason: ReasonOf<ErrorStatus> | CommandReason };
};

/** `reason` is one the table of http/error-reasons.ts gives with `status` (or a command's own). */
export type ErrorInit<S extends ErrorStatus = ErrorStatus> = {
  source?: ErrorSource;
  reason?: ReasonOf<S> | CommandReason;
};

export const errorObject = <S extends ErrorStatus>(status: S, detail: string, init: ErrorInit<S> = {}): ErrorObject => {
  const { code, title } = ERROR_STATUSES[status];
  return {
    status: String(status),
    code,
    title,
    detail,
    ...(init.source ? { source: init.source } : {}),
    ...(init.reason ? { meta: { reason: init.reason } } : {}),
  };
};

/**
 * An answer of the API, not a fault: it carries no stack trace. Capturing one is most of the cost of
 * building the error, and every refused request (a 401 of a missing key, a 404) builds one; the error
 * layer never shows or logs an ApiError's stack.
 */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly errors: ErrorObject[];
  readonly headers: Record<string, string>;

  constructor(status: ErrorStatus, errors: ErrorObject[], headers: Record<string, string> = {}) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(errors[0]?.detail ?? ERROR_STATUSES[status].title);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors;
    this.headers = headers;
  }
}

/** One error object, thrown: `throw apiError(400, 'Unknown parameter', { source: { parameter: 'x' } })`. */
export const apiError = <S extends ErrorStatus>(
  status: S,
  detail: string,
  init: ErrorInit<S> & { headers?: Record<string, string> } = {},
): ApiError => new ApiError(status, [errorObject(status, detail, init)], init.headers);

/** Several error objects of one status, e.g. one 422 per offending field. */
export const apiErrors = (status: ErrorStatus, errors: ErrorObject[], headers?: Record<string, string>): ApiError =>
  new ApiError(status, errors, headers);

export const errorDocument = (errors: ErrorObject[]) => ({ jsonapi: { version: '1.1' as const }, errors });

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;
