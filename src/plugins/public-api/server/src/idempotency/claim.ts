/**
 * What a stored Idempotency-Key row means to a new request with that key, and the lease that tells a
 * running request from a dead one (contract section 7). Pure; the store is services/idempotency.ts.
 *
 * A claim is held on a lease: the request that owns it renews it every IDEMPOTENCY_HEARTBEAT_MS while it
 * runs, so a retry meanwhile gets 409 however long the request takes. When the owner's process dies the
 * renewals stop, and once the lease has run out the next retry takes the claim over (atomically: one
 * UPDATE that names the old token and requires the expired lease), seconds after the crash.
 */

/** How long a claim stays the owner's without a renewal. */
export const IDEMPOTENCY_LEASE_MS = 20_000;

/**
 * How often a running request renews its lease: four renewals per lease, so that three may be late or
 * lost (a busy event loop, a slow database) before a live request could lose its claim.
 */
export const IDEMPOTENCY_HEARTBEAT_MS = 5_000;

export type StoredClaim = {
  token: string;
  fingerprint: string;
  grantsFingerprint: string;
  state: 'pending' | 'complete';
  /** When the stored answer (or the claim) is forgotten altogether. */
  expiresAt: number;
  claimedAt: number;
  /** The lease's end; null on rows written before leases were renewed (their lease ran from the claim). */
  leaseExpiresAt: number | null;
};

export type Contender = { token: string; fingerprint: string; grantsFingerprint: string };

export type ClaimDecision =
  /** The row is the contender's own claim. */
  | 'own'
  /** The row is past its 24 hours: delete it and claim afresh. */
  | 'expired'
  /** Another request was made with this key. */
  | 'mismatch'
  /** The stored answer is replayed. */
  | 'replay'
  /** The stored answer was made under grants the key no longer has. */
  | 'grants-changed'
  /** The owner stopped renewing its lease (its process died): the contender may take the claim over. */
  | 'take-over'
  /** The owner is still running. */
  | 'in-flight';

/** When the claim's lease ends. */
export const leaseEnd = (row: Pick<StoredClaim, 'claimedAt' | 'leaseExpiresAt'>): number =>
  row.leaseExpiresAt ?? row.claimedAt + IDEMPOTENCY_LEASE_MS;

export const leaseExpired = (row: Pick<StoredClaim, 'claimedAt' | 'leaseExpiresAt'>, now: number): boolean => leaseEnd(row) <= now;

/** The lease a claim gets when it is taken or renewed at `now`. */
export const leaseFrom = (now: number): number => now + IDEMPOTENCY_LEASE_MS;

export const decideClaim = (row: StoredClaim, contender: Contender, now: number): ClaimDecision => {
  if (row.token === contender.token) return 'own';
  if (row.expiresAt <= now) return 'expired';
  if (row.fingerprint !== contender.fingerprint) return 'mismatch';
  if (row.state === 'complete') return row.grantsFingerprint === contender.grantsFingerprint ? 'replay' : 'grants-changed';
  return leaseExpired(row, now) ? 'take-over' : 'in-flight';
};
