/**
 * A row of the idempotency records (services/idempotency.ts): its columns, read once from Strapi's
 * metadata, and what a row says: the claim it holds, the headers of the answer it kept.
 */
import type { Core } from '@strapi/strapi';
import type { StoredClaim } from '../idempotency/claim';
import { readModelOf } from '../read/model';

export const IDEMPOTENCY_RECORD_UID = 'plugin::public-api.idempotency-record';

export type Row = Record<string, unknown>;

const ATTRIBUTES = [
  'scope',
  'apiKey',
  'method',
  'path',
  'idempotencyKey',
  'fingerprint',
  'grantsFingerprint',
  'state',
  'token',
  'claimedAt',
  'leaseExpiresAt',
  'expiresAt',
  'status',
  'headers',
  'body',
  'createdAt',
  'updatedAt',
] as const;

export type Attribute = (typeof ATTRIBUTES)[number];

export const parseHeaders = (text: unknown): Record<string, string> => {
  if (typeof text !== 'string') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
};

export const storedClaim = (row: Row, c: Record<Attribute, string>): StoredClaim => ({
  token: String(row[c.token]),
  fingerprint: String(row[c.fingerprint]),
  grantsFingerprint: String(row[c.grantsFingerprint]),
  state: row[c.state] === 'complete' ? 'complete' : 'pending',
  expiresAt: Number(row[c.expiresAt]),
  claimedAt: Number(row[c.claimedAt]),
  leaseExpiresAt: row[c.leaseExpiresAt] === null || row[c.leaseExpiresAt] === undefined ? null : Number(row[c.leaseExpiresAt]),
});

/** The records' table and columns, read on first use. */
export const idempotencyModel = (strapi: Core.Strapi) => {
  let columns: Record<Attribute, string> | null = null;
  let table = '';
  return () => {
    if (!columns) {
      const read = readModelOf(strapi, IDEMPOTENCY_RECORD_UID);
      table = read.table;
      columns = Object.fromEntries(ATTRIBUTES.map((name) => [name, read.columns[name] ?? name])) as Record<Attribute, string>;
    }
    return { table, c: columns };
  };
};
