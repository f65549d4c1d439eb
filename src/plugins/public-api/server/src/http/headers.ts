/**
 * Request headers as one value each: a header sent more than once is its values joined with `, `, as
 * RFC 9110 (5.3) combines field lines; undefined when it was not sent.
 */
import type { PublicRequest } from './request';

export type RequestHeaders = PublicRequest['headers'];

export const headerValue = (headers: RequestHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};
