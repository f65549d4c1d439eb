/**
 * What `knex.raw` answers, per driver: better-sqlite3 the rows themselves (or, for a statement that
 * returns none, its counts), pg a result object holding `rows` and `rowCount`, mysql2 a pair of the rows
 * (or, for a statement that returns none, a result header holding `affectedRows`) and the columns.
 */
type MysqlHeader = { affectedRows?: number };

const isMysqlPair = (result: unknown): result is [unknown, unknown] =>
  Array.isArray(result) &&
  result.length === 2 &&
  (Array.isArray(result[0]) || isHeader(result[0])) &&
  (result[1] === undefined || Array.isArray(result[1]));

const isHeader = (value: unknown): value is MysqlHeader =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && 'affectedRows' in value;

/** The rows a raw statement answered (empty for one that answers none). */
export const rawRows = <Row>(result: unknown): Row[] => {
  if (isMysqlPair(result)) return Array.isArray(result[0]) ? (result[0] as Row[]) : [];
  if (Array.isArray(result)) return result as Row[];
  const rows = (result as { rows?: unknown } | null | undefined)?.rows;
  return Array.isArray(rows) ? (rows as Row[]) : [];
};

/** How many rows a raw INSERT, UPDATE or DELETE changed. */
export const rawChangedRows = (result: unknown): number => {
  if (isMysqlPair(result)) return isHeader(result[0]) ? Number(result[0].affectedRows ?? 0) : 0;
  const counts = result as { rowCount?: number | null; changes?: number } | null | undefined;
  return Number(counts?.rowCount ?? counts?.changes ?? 0);
};
