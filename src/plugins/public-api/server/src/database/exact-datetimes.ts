/**
 * MySQL and MariaDB: mysql2 reads a DATETIME of the years 0001 to 0099 as 19xx or 20xx (two-digit
 * years), though MariaDB stores it exactly: a stored '0001-01-01' came back as 2001-01-01, a date lost.
 * register.ts wraps the `typeCast` Strapi gives the driver (booleans, decimals, dates) so that DATETIME
 * and TIMESTAMP values are read from their text, which is exact in every year, as UTC (the connection's
 * time zone, src/settings/database.ts); every other type is cast as before.
 */
import type { Core } from '@strapi/strapi';
import { databaseClient } from './connection';

type TypeCastField = { type: string; string: () => string | null };
export type TypeCast = (field: TypeCastField, next: () => unknown) => unknown;

export const exactDatetimeCast =
  (inner: TypeCast | undefined): TypeCast =>
  (field, next) => {
    if (field.type === 'DATETIME' || field.type === 'TIMESTAMP') {
      const text = field.string();
      return text === null ? null : new Date(`${text.replace(' ', 'T')}Z`);
    }
    return inner ? inner(field, next) : next();
  };

/** Wraps the driver's typeCast of the pool's connections to come (register, before the pool opens any). */
export const readDatetimesExactly = (strapi: Core.Strapi): void => {
  if (databaseClient(strapi) !== 'mysql') return;
  const client = (strapi.db.connection as unknown as { client: { connectionSettings?: { typeCast?: TypeCast } } }).client;
  if (client.connectionSettings) client.connectionSettings.typeCast = exactDatetimeCast(client.connectionSettings.typeCast);
};
