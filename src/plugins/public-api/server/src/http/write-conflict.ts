/**
 * A write the database rolled back for meeting another (values/write-conflict.ts): nothing of it was
 * kept, and the same request sent again succeeds once the other write is done: a 503 with Retry-After,
 * not a 500.
 */
import { apiError, type ApiError } from './errors';

export { isWriteConflict } from '../values/write-conflict';

/** Seconds the client is asked to wait before sending the write again. */
export const WRITE_CONFLICT_RETRY_AFTER_SECONDS = 1;

export const writeConflict = (): ApiError =>
  apiError(503, `The write met another one at the same time and was rolled back; retry in ${WRITE_CONFLICT_RETRY_AFTER_SECONDS} second.`, {
    reason: 'write_conflict',
    headers: { 'Retry-After': String(WRITE_CONFLICT_RETRY_AFTER_SECONDS) },
  });
