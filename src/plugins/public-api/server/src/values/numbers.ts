/**
 * What a number column holds, per Strapi attribute type, so that no number outside it reaches a query or
 * a write. PostgreSQL refuses a parameter its column type cannot read (`2147483648` or `1.5` against
 * an INTEGER, `1e+21` against a BIGINT) where SQLite compares anything; the same request must get the
 * same answer on both. Pure.
 */
export type NumberColumn = { integer: boolean; min: number; max: number };

/** INTEGER columns. */
export const INTEGER_RANGE = [-2147483648, 2147483647] as const;

export const numberColumnOf = (strapiType: string): NumberColumn => {
  switch (strapiType) {
    case 'integer':
      return { integer: true, min: INTEGER_RANGE[0], max: INTEGER_RANGE[1] };
    case 'biginteger':
      // BIGINT holds more, but a JavaScript number names whole numbers exactly only this far.
      return { integer: true, min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
    default:
      return { integer: false, min: -Number.MAX_VALUE, max: Number.MAX_VALUE };
  }
};

export const fitsColumn = (column: NumberColumn, value: number): boolean =>
  Number.isFinite(value) && value >= column.min && value <= column.max && (!column.integer || Number.isInteger(value));

/** What callers are told a column takes. */
export const describeColumn = (column: NumberColumn): string =>
  column.integer ? `a whole number from ${column.min} to ${column.max}` : 'a finite decimal number';
