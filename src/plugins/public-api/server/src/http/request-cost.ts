/**
 * What a request costs a key's budget (contract section 13, issue 34: "cost, not count"). A key's rate
 * limit is a number of units per window; every request spends one at entry, and the work it does beyond
 * an ordinary request spends more, charged as soon as it is known and before the work is done:
 *
 * | Work                          | Units                              | Charged                                 |
 * | ----------------------------- | ---------------------------------- | --------------------------------------- |
 * | the request                   | 1                                  | at entry, as before                     |
 * | records expanded by `include` | 1 per started 50                   | once counted, before any is loaded      |
 * | atomic operations             | 1 each                             | once the body is parsed, before the transaction |
 * | uploaded bytes                | 1 per started MiB past the first   | from Content-Length before the body is read (chunked: once read, before it is parsed) |
 *
 * Why these weights (docs/api.md, *Rate limits*, says the same for clients):
 * - An operation of an atomic request is a write like any single POST, PATCH or DELETE, which costs its one
 *   request unit: a batch is priced like the same writes sent one by one, so batching is no way around a
 *   limit ("a key allowed 3 requests a minute created 300 records in that minute").
 * - A record expanded by `include` is a row read and serialized in a response that was already paid for;
 *   50 of them are about the work of one ordinary page read. The largest expansion (1,000 records) costs
 *   21 units, a page of 20 records with one include 2.
 * - Every request may carry 1 MiB (the JSON body limit), which its unit covers; only a multipart upload
 *   can bring more, and each further MiB it brings is received, hashed, written to disk and sniffed:
 *   about an ordinary request's work. A 10 MiB CV costs 10 units.
 *
 * With the default budget (600 units per 60 s) a client still makes 10 ordinary requests a second, or
 * 5 a second that each include up to 50 records, or writes 600 records a minute in any batching.
 * Transforms are not charged to a key: asset URLs carry none. The transform queue shares them between
 * client addresses instead, each address's share counted in the estimated cost of its transforms
 * (assets/fair-queue.ts, assets/transform-cost.ts).
 * Pure.
 */
import { MAX_REQUESTS } from '../config/rate-limits';

/** The work a request announces beyond being a request: each counted as soon as it is known. */
export type RequestCost = {
  /** Records `include` expands in the response. */
  expandedRecords?: number;
  /** Operations of an atomic request (POST /operations). */
  operations?: number;
  /** Bytes of the request body. */
  uploadedBytes?: number;
};

/** The weights of the table above. */
export const COST_WEIGHTS = {
  /** Units every request spends at entry. */
  request: 1,
  /** Expanded records per unit (a started group costs a whole unit). */
  expandedRecordsPerUnit: 50,
  /** Units per atomic operation. */
  operation: 1,
  /** Bytes per unit (a started MiB costs a whole unit), past the bytes the request's own unit covers. */
  uploadBytesPerUnit: 1024 * 1024,
  /**
   * Body bytes the request's unit covers: the JSON body limit, http/body.ts MAX_BODY_BYTES (not imported:
   * body.ts reaches this module through request.ts; test/unit/request-cost.test.ts holds them equal).
   */
  uploadBytesIncluded: 1024 * 1024,
} as const;

/** A count as a whole number of at least 0: what is no positive finite number counts as nothing. */
const whole = (value: number | undefined): number => (value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);

/**
 * Units of one kind of work, at most the largest quota a key may have: with the request's own unit that
 * is more than any quota, so a larger price would change nothing (the request is refused whole), and the
 * sum of the kinds stays a safe integer whatever a client declared.
 */
const priced = (units: number): number => Math.min(units, MAX_REQUESTS);

/** Units for `records` records expanded by `include`. */
export const expansionUnits = (records: number): number => priced(Math.ceil(whole(records) / COST_WEIGHTS.expandedRecordsPerUnit));

/** Units for `operations` atomic operations. */
export const operationUnits = (operations: number): number => priced(whole(operations) * COST_WEIGHTS.operation);

/** Units for a body of `bytes` bytes: what it brings past the first MiB, per started MiB. */
export const uploadUnits = (bytes: number): number =>
  priced(Math.ceil(Math.max(0, whole(bytes) - COST_WEIGHTS.uploadBytesIncluded) / COST_WEIGHTS.uploadBytesPerUnit));

/** The units `cost` adds to the request's own. */
export const unitsOf = (cost: RequestCost): number =>
  expansionUnits(cost.expandedRecords ?? 0) + operationUnits(cost.operations ?? 0) + uploadUnits(cost.uploadedBytes ?? 0);

/** How a cost reads in an error's detail: `101 units (1 for the request, 100 for 100 atomic operations)`. */
export const describeCost = (cost: RequestCost): string => {
  const parts = [`${COST_WEIGHTS.request} for the request`];
  const expanded = whole(cost.expandedRecords);
  const operations = whole(cost.operations);
  const bytes = whole(cost.uploadedBytes);
  if (expansionUnits(expanded)) parts.push(`${expansionUnits(expanded)} for ${expanded} expanded records`);
  if (operationUnits(operations)) parts.push(`${operationUnits(operations)} for ${operations} atomic operations`);
  if (uploadUnits(bytes)) parts.push(`${uploadUnits(bytes)} for ${bytes} uploaded bytes`);
  return `${COST_WEIGHTS.request + unitsOf(cost)} units (${parts.join(', ')})`;
};
