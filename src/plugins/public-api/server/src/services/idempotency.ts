/**
 * The store behind Idempotency-Key (contract section 7): one row per (API key, method, path,
 * Idempotency-Key) in the plugin's own table, whose unique index on `scope` makes the claim atomic
 * across every instance sharing the database.
 *
 *   claim     insert-or-nothing; whoever's token is in the row owns it. Otherwise the row says:
 *             another fingerprint (422), a stored answer (replay, unless the key's grants changed
 *             since: 409), a request still running (409), or a request whose lease ran out (its
 *             process died): taken over (idempotency/claim.ts).
 *   hold      renews the lease of a running request's claim until it ends: one UPDATE per heartbeat
 *             for every claim this process holds.
 *   complete  stores the answer under the claim, in the write's own transaction when there is one, so
 *             the answer is kept exactly when the write is.
 *   release   forgets a claim whose request failed (server error, or a refusal that is not kept).
 *
 * Times are epoch milliseconds in integer columns, the same on SQLite and PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { connectionOf } from '../database/connection';
import { IDEMPOTENCY_TTL_MS, idempotencyScope } from '../idempotency/request';
import { IDEMPOTENCY_HEARTBEAT_MS, IDEMPOTENCY_LEASE_MS, decideClaim, leaseFrom } from '../idempotency/claim';
import { idempotencyModel, parseHeaders, storedClaim, type Row } from './idempotency-rows';

export { IDEMPOTENCY_RECORD_UID } from './idempotency-rows';

/** How often each instance deletes expired records. */
export const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

/** Tokens per lease renewal statement: far above what one process runs at once, well below bind limits. */
const RENEWAL_BATCH = 500;

export type IdempotentRequest = {
  apiKey: number;
  method: string;
  path: string;
  idempotencyKey: string;
  fingerprint: string;
  /** The key's grants now (`grantsFingerprint`). */
  grantsFingerprint: string;
};

export type StoredResponse = { status: number; headers: Record<string, string>; body: string | null };

export type Claim = { scope: string; token: string };

export type ClaimResult =
  | { kind: 'claimed'; claim: Claim }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' }
  | { kind: 'grants-changed' };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const model = idempotencyModel(strapi);
  let timer: NodeJS.Timeout | null = null;
  /** Tokens of the claims this process's running requests hold, renewed by the heartbeat. */
  const held = new Set<string>();
  let heartbeat: NodeJS.Timeout | null = null;
  let renewing: Promise<number> | null = null;

  /** The pool, never the request's transaction: a claim must be visible to others at once. */
  const pool = (): Knex => strapi.db.connection as unknown as Knex;

  const find = async (scope: string): Promise<Row | undefined> => {
    const { table, c } = model();
    return (await pool()(table).where(c.scope, scope).first()) as Row | undefined;
  };

  const insertClaim = async (scope: string, token: string, request: IdempotentRequest, now: number) => {
    const { table, c } = model();
    const at = new Date(now);
    await pool()(table)
      .insert({
        [c.scope]: scope,
        [c.apiKey]: request.apiKey,
        [c.method]: request.method,
        [c.path]: request.path,
        [c.idempotencyKey]: request.idempotencyKey,
        [c.fingerprint]: request.fingerprint,
        [c.grantsFingerprint]: request.grantsFingerprint,
        [c.state]: 'pending',
        [c.token]: token,
        [c.claimedAt]: now,
        [c.leaseExpiresAt]: leaseFrom(now),
        [c.expiresAt]: now + IDEMPOTENCY_TTL_MS,
        [c.createdAt]: at,
        [c.updatedAt]: at,
      })
      .onConflict(c.scope)
      .ignore();
  };

  return {
    /** Claims the request's Idempotency-Key, or says why it cannot. */
    async claim(request: IdempotentRequest, now = Date.now()): Promise<ClaimResult> {
      const { table, c } = model();
      const scope = idempotencyScope(request);
      const token = randomUUID();
      // A row can vanish between the insert and the read (expired and deleted by another request):
      // try again; three rounds are far more than such a race can need.
      for (let round = 0; round < 3; round += 1) {
        await insertClaim(scope, token, request, now);
        const row = await find(scope);
        if (!row) continue;
        const stored = storedClaim(row, c);
        switch (decideClaim(stored, { token, fingerprint: request.fingerprint, grantsFingerprint: request.grantsFingerprint }, now)) {
          case 'own':
            return { kind: 'claimed', claim: { scope, token } };
          case 'expired':
            await pool()(table).where(c.scope, scope).andWhere(c.token, stored.token).andWhere(c.expiresAt, '<=', now).delete();
            continue;
          case 'mismatch':
            return { kind: 'mismatch' };
          case 'grants-changed':
            return { kind: 'grants-changed' };
          case 'replay':
            return {
              kind: 'replay',
              response: {
                status: Number(row[c.status]),
                headers: parseHeaders(row[c.headers]),
                body: typeof row[c.body] === 'string' ? (row[c.body] as string) : null,
              },
            };
          case 'take-over': {
            // One statement that names the old token and requires its lease to have run out: of several
            // retries at once exactly one takes the claim, and never from an owner that renewed meanwhile.
            const taken = await pool()(table)
              .where(c.scope, scope)
              .andWhere(c.token, stored.token)
              .andWhere(c.state, 'pending')
              .andWhere((expired) =>
                expired
                  .where(c.leaseExpiresAt, '<=', now)
                  .orWhere((legacy) => legacy.whereNull(c.leaseExpiresAt).andWhere(c.claimedAt, '<=', now - IDEMPOTENCY_LEASE_MS)),
              )
              .update({
                [c.token]: token,
                [c.grantsFingerprint]: request.grantsFingerprint,
                [c.claimedAt]: now,
                [c.leaseExpiresAt]: leaseFrom(now),
                [c.expiresAt]: now + IDEMPOTENCY_TTL_MS,
                [c.updatedAt]: new Date(now),
              });
            if (Number(taken) === 1) return { kind: 'claimed', claim: { scope, token } };
            continue;
          }
          default:
            return { kind: 'in-flight' };
        }
      }
      return { kind: 'in-flight' };
    },

    /**
     * Keeps the claim's lease alive while its request runs; call the returned function when it ends
     * (answered, failed or not). Until then retries get 409, however long the request takes.
     */
    hold(claim: Claim): () => void {
      held.add(claim.token);
      if (!heartbeat) {
        heartbeat = setInterval(() => {
          this.renewLeases().catch((error: unknown) =>
            strapi.log.warn(`[public-api] renewing Idempotency-Key leases failed: ${(error as Error).message}`),
          );
        }, IDEMPOTENCY_HEARTBEAT_MS);
        heartbeat.unref();
      }
      return () => {
        held.delete(claim.token);
        if (held.size === 0 && heartbeat) {
          clearInterval(heartbeat);
          heartbeat = null;
        }
      };
    },

    /**
     * Renews the lease of every claim this process holds (the heartbeat). A renewal still waiting for a
     * connection is not doubled. Returns how many rows it renewed.
     */
    async renewLeases(): Promise<number> {
      if (renewing) return 0;
      const run = async () => {
        const { table, c } = model();
        const tokens = [...held];
        let renewed = 0;
        for (let at = 0; at < tokens.length; at += RENEWAL_BATCH) {
          // The pool, never a request's transaction: the renewal must be visible to other instances now.
          renewed += Number(
            await pool()(table)
              .whereIn(c.token, tokens.slice(at, at + RENEWAL_BATCH))
              .andWhere(c.state, 'pending')
              .update({ [c.leaseExpiresAt]: leaseFrom(Date.now()) }),
          );
        }
        return renewed;
      };
      renewing = run();
      try {
        return await renewing;
      } finally {
        renewing = null;
      }
    },

    /**
     * Stores the answer under the claim. Runs on the current transaction when there is one, so it
     * commits with the write. False when the claim is no longer this request's.
     */
    async complete(claim: Claim, response: StoredResponse, now = Date.now()): Promise<boolean> {
      const { table, c } = model();
      const updated = await connectionOf(strapi)(table)
        .where(c.scope, claim.scope)
        .andWhere(c.token, claim.token)
        .andWhere(c.state, 'pending')
        .update({
          [c.state]: 'complete',
          [c.status]: response.status,
          [c.headers]: JSON.stringify(response.headers),
          [c.body]: response.body,
          [c.updatedAt]: new Date(now),
        });
      return Number(updated) === 1;
    },

    /** Forgets the claim, so that a retry runs afresh. */
    async release(claim: Claim): Promise<void> {
      const { table, c } = model();
      await pool()(table).where(c.scope, claim.scope).andWhere(c.token, claim.token).andWhere(c.state, 'pending').delete();
    },

    /** Deletes every record past its 24 hours. Returns how many. */
    async purgeExpired(now = Date.now()): Promise<number> {
      const { table, c } = model();
      return Number(await pool()(table).where(c.expiresAt, '<=', now).delete());
    },

    /** Periodic clean-up, per instance (deleting expired rows twice is harmless). */
    startCleanup(intervalMs = CLEANUP_INTERVAL_MS) {
      if (timer) return;
      const run = () => {
        this.purgeExpired().catch((error: unknown) =>
          strapi.log.warn(`[public-api] idempotency clean-up failed: ${(error as Error).message}`),
        );
      };
      timer = setInterval(run, intervalMs);
      timer.unref();
    },

    stopCleanup() {
      if (timer) clearInterval(timer);
      timer = null;
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
    },
  };
};
