import { rawChangedRows, rawRows } from '../../src/plugins/public-api/server/src/database/raw-result';
import { escapeLike } from '../../src/plugins/public-api/server/src/read/sql';

test('rows of a raw statement, as each driver answers them', () => {
  const rows = [{ a: 1 }, { a: 2 }];
  // better-sqlite3: the rows; pg: a result holding them; mysql2: the rows and the columns.
  expect(rawRows(rows)).toEqual(rows);
  expect(rawRows({ rows, rowCount: 2 })).toEqual(rows);
  expect(rawRows([rows, [{ name: 'a' }, { name: 'b' }]])).toEqual(rows);
  expect(rawRows([[], []])).toEqual([]);
  expect(rawRows([])).toEqual([]);
  // mysql2 for a statement without rows: a header and no columns.
  expect(rawRows([{ affectedRows: 3, insertId: 0 }, undefined])).toEqual([]);
});

test('two rows of SQLite are not taken for a MySQL pair', () => {
  const rows = [{ affectedRows: 1 }, { affectedRows: 2 }];
  expect(rawRows(rows)).toEqual(rows);
});

test('rows changed by a raw statement, as each driver counts them', () => {
  expect(rawChangedRows({ changes: 4 })).toBe(4);
  expect(rawChangedRows({ rowCount: 5, rows: [] })).toBe(5);
  expect(rawChangedRows([{ affectedRows: 6 }, undefined])).toBe(6);
  expect(rawChangedRows([[{ a: 1 }], []])).toBe(0);
});

test('LIKE patterns escape with ! (MySQL reads a backslash in a literal as its own escape)', () => {
  expect(escapeLike('50%_off!')).toBe('50!%!_off!!');
  expect(escapeLike('back\\slash')).toBe('back\\slash');
});

test('a write the database rolled back for meeting another is a 503 to retry, on every database', () => {
  const { isWriteConflict, writeConflict } = jest.requireActual('../../src/plugins/public-api/server/src/http/write-conflict');
  expect(isWriteConflict(Object.assign(new Error('Deadlock found'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 }))).toBe(true);
  expect(isWriteConflict(Object.assign(new Error('Lock wait timeout'), { code: 'ER_LOCK_WAIT_TIMEOUT' }))).toBe(true);
  expect(isWriteConflict(new Error('wrapped', { cause: Object.assign(new Error('deadlock detected'), { code: '40P01' }) }))).toBe(true);
  expect(isWriteConflict(Object.assign(new Error('duplicate'), { code: 'ER_DUP_ENTRY' }))).toBe(false);
  expect(isWriteConflict(null)).toBe(false);
  const refusal = writeConflict();
  expect(refusal.status).toBe(503);
  expect(refusal.headers).toEqual({ 'Retry-After': '1' });
});

test('MySQL and MariaDB: DATETIME read from its text, exact in the years 0001 to 0099 too; other types as Strapi casts them', () => {
  const { exactDatetimeCast } = jest.requireActual('../../src/plugins/public-api/server/src/database/exact-datetimes');
  const cast = exactDatetimeCast((field: { type: string; string: () => string | null }, next: () => unknown) =>
    field.type === 'TINY' ? field.string() === '1' : next(),
  );
  const field = (type: string, text: string | null) => ({ type, string: () => text });
  const next = () => 'driver';
  expect(cast(field('DATETIME', '0001-01-01 00:00:00.000000'), next).toISOString()).toBe('0001-01-01T00:00:00.000Z');
  expect(cast(field('TIMESTAMP', '9999-12-31 23:59:59.999'), next).toISOString()).toBe('9999-12-31T23:59:59.999Z');
  expect(cast(field('DATETIME', null), next)).toBeNull();
  expect(cast(field('TINY', '1'), next)).toBe(true);
  expect(cast(field('LONG', '5'), next)).toBe('driver');
});
