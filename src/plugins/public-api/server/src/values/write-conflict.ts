/**
 * A write the database rolled back because it met another at the same time: a deadlock (InnoDB's
 * ER_LOCK_DEADLOCK, PostgreSQL's 40P01), a lock waited for too long (ER_LOCK_WAIT_TIMEOUT, 55P03), a
 * serialization failure (40001). Nothing of it was kept; the same work done again succeeds once the
 * other write is done.
 *
 * On MariaDB writes meet this way where PostgreSQL would only wait: InnoDB locks the gaps between rows a
 * ranged DELETE or UPDATE reads (REPEATABLE READ), so two writes that take the same locks in opposite
 * orders make a cycle, which InnoDB breaks at once by rolling one back. (Content writes take the change
 * journal's order lock before any other: services/journal/middleware.ts.)
 *
 * The edge answers such a write 503 with Retry-After (http/write-conflict.ts), not a 500.
 */
const CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', '40P01', '40001', '55P03']);

/** Whether `error` (or an error it wraps) is such a rolled-back write. */
export const isWriteConflict = (error: unknown): boolean => {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
};
