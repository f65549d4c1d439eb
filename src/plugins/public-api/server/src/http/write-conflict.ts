/**
 * A write the database rolled back because it met another at the same time: a deadlock (InnoDB's
 * ER_LOCK_DEADLOCK, PostgreSQL's 40P01), a lock waited for too long (ER_LOCK_WAIT_TIMEOUT, 55P03), a
 * serialization failure (40001). Nothing of it was kept, and the same request sent again succeeds once
 * the other write is done: a 503 with Retry-After, not a 500.
 *
 * On MariaDB a write can meet another this way where PostgreSQL would only wait: a transaction takes the
 * change journal's order lock at its first entry (services/journal/table.ts), after the rows it wrote,
 * so two writes that reach the same rows and the journal in opposite orders make a cycle, which InnoDB
 * breaks at once by rolling one back.
 */
import { apiError, type ApiError } from './errors';

const CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', '40P01', '40001', '55P03']);

/** Seconds the client is asked to wait before sending the write again. */
export const WRITE_CONFLICT_RETRY_AFTER_SECONDS = 1;

/** Whether `error` (or an error it wraps) is such a rolled-back write. */
export const isWriteConflict = (error: unknown): boolean => {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
};

export const writeConflict = (): ApiError =>
  apiError(503, `The write met another one at the same time and was rolled back; retry in ${WRITE_CONFLICT_RETRY_AFTER_SECONDS} second.`, {
    reason: 'write_conflict',
    headers: { 'Retry-After': String(WRITE_CONFLICT_RETRY_AFTER_SECONDS) },
  });
