/**
 * The error document and the error responses of every status (contract section 8), as http/errors.ts
 * writes them: each status's response declares `meta.reason` as the enum of the reasons that status
 * comes with (http/error-reasons.ts, contract section 22). The enum is per status, not per key: the
 * table is the API's public vocabulary, so naming all of a status's reasons tells a key nothing about
 * what it may read, and a response component stays one shared definition for every key.
 */
import { reasonsOf } from '../http/error-reasons';
import { ERROR_STATUSES, type ErrorStatus } from '../http/errors';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
import { operationStatuses } from '../http/statuses';
import type { Components } from './document-components';
import { jsonApi } from './envelope';
import { object } from './schema';
import type { Ref, ResponseObject, Schema } from './types';

export const errorDocument = (c: Components): Ref =>
  c.schema('ErrorDocument', () =>
    object(
      {
        jsonapi: jsonApi(c),
        errors: {
          type: 'array',
          minItems: 1,
          items: c.schema('ErrorObject', () =>
            object(
              {
                status: { type: 'string', description: 'The HTTP status, as a string.', enum: Object.keys(ERROR_STATUSES) },
                code: {
                  type: 'string',
                  description: 'The machine-readable code of the status.',
                  enum: Object.values(ERROR_STATUSES).map((entry) => entry.code),
                },
                title: { type: 'string', description: 'The status title.' },
                detail: { type: 'string', description: 'What went wrong, for people.' },
                source: {
                  description: 'What in the request the error is about.',
                  oneOf: [
                    object({ pointer: { type: 'string', description: 'A JSON pointer into the request body.' } }),
                    object({ parameter: { type: 'string', description: 'The query parameter, as sent.' } }),
                    object({ header: { type: 'string', description: 'The request header.' } }),
                  ],
                },
                meta: object({
                  reason: {
                    type: 'string',
                    description:
                      "A finer machine-readable reason: one of the enum of the response's status, or for a command's 422 one of the command's own checks.",
                  },
                }),
              },
              ['status', 'code', 'title', 'detail'],
              { description: 'One error.' },
            ),
          ),
        },
      },
      ['jsonapi', 'errors'],
      { description: 'Every error response of /api/v2.' },
    ),
  );

const RESPONSE_NAMES: Record<ErrorStatus, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  409: 'Conflict',
  410: 'Gone',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  416: 'RangeNotSatisfiable',
  422: 'UnprocessableEntity',
  429: 'TooManyRequests',
  431: 'RequestHeaderFieldsTooLarge',
  500: 'InternalError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};

const RESPONSE_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'The request is malformed: a query parameter (named in `source.parameter`), the body, the Host header (`host_invalid`), text no database stores (`unstorable_text`), or not HTTP at all (`malformed_http`, the connection is closed).',
  401: 'The API key is missing, malformed, unknown, expired or revoked.',
  403: 'The key lacks the grant for this resource or action, or the browser origin is not allowed.',
  404: 'The resource or record does not exist for this key.',
  405: 'The resource never supports this method.',
  406: 'The Accept header excludes every media type this endpoint answers with.',
  408: 'The request body did not arrive in time (`body_too_slow`) or stalled (`body_stalled`), or the request was not received in full in the time the server allows (`request_incomplete`); the connection is closed.',
  409: 'The write conflicts with the current state (type or id mismatch, duplicate slug, a retry still running).',
  410: "The sync token is older than the retention (`sync_token_expired`) or the key's grants changed since it was issued (`sync_grants_changed`): start the sync again without a token.",
  412: 'If-Match names no current ETag of the record: it has changed since (`precondition_failed`). Read it again and retry with its new ETag.',
  413: "The request body is larger than the operation takes (1 MiB of JSON; a command's files their own bounds), or its chunk extensions are longer than the server reads (`chunk_extensions_too_large`, any request).",
  415: 'The request body is not application/json or application/vnd.api+json.',
  416: 'The requested byte range cannot be served from this file.',
  422: 'The body is valid JSON but names unknown or non-writable fields or holds invalid values (see `source.pointer`).',
  429: "Too many requests: the key has not the units this request costs left in its rate limit's window (`rate_limited`; retry after `Retry-After` seconds), the request costs more than the key's whole quota (`cost_over_quota`; no wait helps, ask for less), or its client address made too many failed authentications (`unauthenticated_rate_limited`; retry after `Retry-After` seconds).",
  431: 'The request line and header fields are longer than the server reads (16 KiB by default): shorten the URL or the headers; the connection is closed.',
  500: 'The server could not complete the request; it has been logged.',
  502: "An asset's bytes could not be read from the upload provider's storage (`asset_origin_failed`, `asset_too_large`).",
  503: 'The server is busy: too many requests in flight (`overloaded`), or for commands with files too many uploads (`uploads_busy`), or a write met another at the same time and was rolled back (`write_conflict`); retry after `Retry-After` seconds.',
  504: "The upload provider's storage did not answer in time (`asset_origin_timeout`); retry after `Retry-After` seconds.",
};

/** The error document of one status: every error's `meta.reason` one of that status's reasons, or none. */
const statusErrorDocument = (c: Components, status: ErrorStatus): Schema => {
  const reasons = reasonsOf(status);
  const reason: Schema = reasons.length
    ? { properties: { meta: { properties: { reason: { enum: reasons } } } } }
    : { properties: { meta: { not: {}, description: 'Errors of this status carry no reason.' } } };
  return { allOf: [errorDocument(c), { properties: { errors: { items: reason } } }] };
};

/** The error response of a status: the error document, with the headers that status carries. */
export const errorResponse = (c: Components, status: ErrorStatus): Ref =>
  c.response(RESPONSE_NAMES[status], (): ResponseObject => {
    const response: ResponseObject = {
      description: RESPONSE_DESCRIPTIONS[status],
      content: { [JSONAPI_MEDIA_TYPE]: { schema: statusErrorDocument(c, status) } },
    };
    if (status === 401) {
      response.headers = {
        'WWW-Authenticate': c.header('WWW-Authenticate', () => ({
          description: 'The authentication scheme: `Bearer`.',
          schema: { type: 'string' },
        })),
      };
    }
    const retryAfter = () =>
      c.header('Retry-After', () => ({
        description: 'Seconds to wait before retrying.',
        schema: { type: 'string', pattern: '^[0-9]+$' },
      }));
    if (status === 503) response.headers = { 'Retry-After': retryAfter() };
    if (status === 429) {
      response.headers = {
        'Retry-After': retryAfter(),
        RateLimit: c.header('RateLimit', () => ({
          description:
            'The limit that refused the request (`"key"` or `"address"`): `r` units remain, `t` seconds until its window ends. A request spends one unit, and a key\'s request more for the records it expands, the atomic operations it runs and the bytes it uploads (docs/api.md, *Rate limits*).',
          schema: { type: 'string' },
        })),
        'RateLimit-Policy': c.header('RateLimit-Policy', () => ({
          description: 'The refusing limit: `q` units in a window of `w` seconds.',
          schema: { type: 'string' },
        })),
      };
    }
    return response;
  });

/**
 * The error responses of an operation: its handler's own statuses (`own`), and every status the edge can
 * answer any keyed request with, a body's too when it takes one (http/statuses.ts).
 */
export const errorResponses = (c: Components, own: readonly ErrorStatus[], options: { body?: boolean } = {}): Record<string, Ref> =>
  Object.fromEntries(operationStatuses(own, options.body === true).map((status) => [String(status), errorResponse(c, status)]));

/**
 * A command's 422: the table's reasons of 422, or one of the reasons the command's own checks give (the
 * application's vocabulary, named in the command's description).
 */
export const commandInputErrorResponse = (c: Components): Ref =>
  c.response('CommandUnprocessableEntity', () => ({
    description: `${RESPONSE_DESCRIPTIONS[422]} \`meta.reason\` is one of ${reasonsOf(422)
      .map((reason) => `\`${reason}\``)
      .join(', ')}, or one the command's own checks give.`,
    content: { [JSONAPI_MEDIA_TYPE]: { schema: errorDocument(c) } },
  }));
