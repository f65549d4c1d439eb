/**
 * Requests that Node's HTTP parser refuses before any middleware runs: a request line and header fields
 * longer than the server reads (a URL with a filter or fieldset list of tens of KB), a request that is not
 * HTTP, one not received in full in time. Node answers those itself with a status line and no body; here
 * they get the same status with a JSON:API error document, as every other error does (contract section 8).
 *
 * As Node's own answer: written only while the connection is writable and nothing has been written on it
 * yet (a pipelined request's error must not land inside another's response), then the connection is closed
 * (the parser's state is lost; nothing more can be read from it). A reset connection gets nothing.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { errorDocument, errorObject, type ErrorReason, type ErrorStatus } from './errors';

type Refusal = { status: ErrorStatus; reason: ErrorReason; detail: string };

/** What a parser error of `code` (Node's `HPE_*` and `ERR_HTTP_*` codes) answers. */
export const clientErrorRefusal = (code: string | undefined, maxHeaderBytes: number = http.maxHeaderSize): Refusal => {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'header_section_too_large',
        detail:
          `The request line and header fields together are over ${maxHeaderBytes} bytes, the most this server reads: ` +
          'shorten the URL (a long filter or fields list) or the headers.',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'chunk_extensions_too_large', detail: "The body's chunk extensions are longer than the server reads." };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'request_incomplete', detail: 'The request was not received in full in the time the server allows.' };
    default:
      return { status: 400, reason: 'malformed_http', detail: 'The request is not well-formed HTTP/1.1.' };
  }
};

/** The whole HTTP response, head and JSON:API body, for a parser error of `code`. */
export const clientErrorResponse = (code: string | undefined, maxHeaderBytes?: number): Buffer => {
  const { status, reason, detail } = clientErrorRefusal(code, maxHeaderBytes);
  const body = JSON.stringify(errorDocument([errorObject(status, detail, { reason })]));
  return Buffer.from(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
      'Content-Type: application/vnd.api+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
};

type ClientSocket = Duplex & { bytesWritten?: number };

/** A `clientError` listener for an HTTP server: the JSON:API answer where Node would write its own, then close. */
export const answerClientError = (error: Error & { code?: string }, socket: ClientSocket): void => {
  if (error.code !== 'ECONNRESET' && socket.writable && (socket.bytesWritten ?? 0) === 0) socket.write(clientErrorResponse(error.code));
  socket.destroy();
};

/** The parser errors answered specially, and the status of every other one (undefined: `malformed_http`). */
const PARSER_ERROR_CODES = ['HPE_HEADER_OVERFLOW', 'HPE_CHUNK_EXTENSIONS_OVERFLOW', 'ERR_HTTP_REQUEST_TIMEOUT', undefined] as const;

/** Every status a request can get from Node's parser, whatever its path and method (http/statuses.ts). */
export const CLIENT_ERROR_STATUSES: readonly ErrorStatus[] = [
  ...new Set(PARSER_ERROR_CODES.map((code) => clientErrorRefusal(code).status)),
];
