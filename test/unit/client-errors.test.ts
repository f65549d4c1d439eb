/**
 * What Node's HTTP parser refuses, answered as JSON:API (http/client-errors.ts): the status of each parser
 * error, a response whose Content-Length is its body's, and the guards Node's own answer has (nothing on a
 * reset connection, nothing after bytes of another response).
 */
import { PassThrough } from 'node:stream';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { answerClientError, clientErrorRefusal, clientErrorResponse } from '../../src/plugins/public-api/server/src/http/client-errors';

const parse = (bytes: Buffer) => {
  const text = bytes.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...fields] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    fields.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { statusLine, headers, body: text.slice(end + 4) };
};

test.each([
  ['HPE_HEADER_OVERFLOW', 431, 'HTTP/1.1 431 Request Header Fields Too Large', 'header_section_too_large'],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'HTTP/1.1 413 Payload Too Large', 'chunk_extensions_too_large'],
  ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'HTTP/1.1 408 Request Timeout', 'request_incomplete'],
  ['HPE_INVALID_METHOD', 400, 'HTTP/1.1 400 Bad Request', 'malformed_http'],
  [undefined, 400, 'HTTP/1.1 400 Bad Request', 'malformed_http'],
])('%s: %d as a JSON:API document', (code, status, statusLine, reason) => {
  const response = parse(clientErrorResponse(code, 8192));
  expect(response.statusLine).toBe(statusLine);
  expect(response.headers['content-type']).toBe('application/vnd.api+json');
  expect(response.headers.connection).toBe('close');
  expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
  const document = JSON.parse(response.body);
  expectValidJsonApi(document);
  expect(document.errors).toEqual([expect.objectContaining({ status: String(status), meta: { reason } })]);
});

test('the 431 names the bound the server reads', () => {
  expect(clientErrorRefusal('HPE_HEADER_OVERFLOW', 8192).detail).toContain('over 8192 bytes');
});

type FakeSocket = PassThrough & { bytesWritten: number };
const socket = (bytesWritten = 0): FakeSocket => Object.assign(new PassThrough(), { bytesWritten });
const written = (s: FakeSocket) => {
  const chunks: Buffer[] = [];
  for (let chunk = s.read() as Buffer | null; chunk; chunk = s.read() as Buffer | null) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
};
const parserError = (code: string) => Object.assign(new Error(code), { code });

test('answers, then closes the connection', () => {
  const s = socket();
  answerClientError(parserError('HPE_HEADER_OVERFLOW'), s);
  expect(written(s)).toMatch(/^HTTP\/1\.1 431 /);
  expect(s.destroyed).toBe(true);
});

test('writes nothing after bytes of another response (a pipelined request), nor on a reset connection; closes both', () => {
  const pipelined = socket(512);
  answerClientError(parserError('HPE_INVALID_METHOD'), pipelined);
  expect(written(pipelined)).toBe('');
  expect(pipelined.destroyed).toBe(true);
  const reset = socket();
  answerClientError(parserError('ECONNRESET'), reset);
  expect(written(reset)).toBe('');
  expect(reset.destroyed).toBe(true);
});
