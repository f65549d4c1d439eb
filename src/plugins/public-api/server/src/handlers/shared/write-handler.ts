/**
 * Write handlers in two steps, and Idempotency-Key around them (contract section 7).
 *
 * A write handler first *prepares*: it finds the resource and the record, checks the grant and reads the
 * body, throwing the refusals that are never stored (400, 403, 404, 405, 413, 415). What it returns
 * *executes* the write; everything it answers from then on (2xx, 409, 422) belongs to the request and is
 * stored for replays. Commands (POST /commands/{name}) are written the same way and reuse this.
 *
 *   prepare -> [Idempotency-Key: claim -> replay | 409 | 422] -> charge (429) -> [SQLite: the key's turn] -> transaction(execute -> answer -> store) -> send
 *
 * The charge is what executing costs the key beyond the request's unit (atomic operations): a replay sends
 * a stored answer and executes nothing, so it costs its unit alone.
 *
 * The answer is serialized here once, so a replay sends the stored bytes exactly; it is stored in the
 * write's own transaction, so a kept answer always belongs to a kept write. A refused write rolls back and
 * its refusal is stored on its own; a server error releases the claim so that a retry runs afresh. While
 * it runs, its claim's lease is renewed; a claim whose process died is taken over by a retry seconds later.
 */
import { isWriteConflict, writeConflict } from '../../http/write-conflict';
import type { Core } from '@strapi/strapi';
import { databaseClient, inTransaction } from '../../database/connection';
import type { Knex } from 'knex';
import { createWriteTurns, type WriteTurns } from '../../database/write-turns';
import { asWriteWork, yieldBetweenStatements } from '../../database/yielding-writes';
import { ApiError, apiError, errorDocument } from '../../http/errors';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER, parseIdempotencyKey } from '../../http/idempotency';
import { JSONAPI_MEDIA_TYPE } from '../../http/media-types';
import { grantsFingerprint, isStoredStatus, requestFingerprint } from '../../idempotency/request';
import type { ApiRequest, ApiResponse, Handler } from '../../http/request';
import type { RequestCost } from '../../http/request-cost';
import type { Claim, StoredResponse } from '../../services/idempotency';
import { getService } from '../../utils/get-service';

export type Execution = {
  /** The request body as the fingerprint sees it (a JSON value), or null for none. */
  body: unknown;
  /**
   * What executing costs the key beyond the request's unit (atomic operations, http/request-cost.ts):
   * charged before the transaction, and not for a replay, which executes nothing.
   */
  cost?: RequestCost;
  /** Performs the write inside the request's transaction and answers. */
  execute: () => Promise<ApiResponse>;
  /** An error the write threw -> the client error it means, or null for a server error. */
  explain?: (error: unknown) => ApiError | null;
};

export type PreparedHandler = (request: ApiRequest) => Promise<Execution>;

export type WriteHandlerOptions = {
  /** Whether an Idempotency-Key header is honored (POST, PATCH and commands). */
  idempotent: boolean;
};

/** The bytes of a write's answer, as they are stored for replays: a document, or none. */
const bodyOf = (response: ApiResponse): string | null => {
  switch (response.kind) {
    case 'document':
      return JSON.stringify(response.document);
    case 'serialized':
      return response.bytes.toString();
    case 'empty':
      return null;
    case 'file':
      throw new Error('A write answers with a document, never a file.');
  }
};

const serialize = (response: ApiResponse): StoredResponse => ({
  status: response.status,
  headers: response.headers ?? {},
  body: bodyOf(response),
});

const asResponse = (stored: StoredResponse): ApiResponse =>
  stored.body === null
    ? { kind: 'empty', status: stored.status, headers: stored.headers }
    : { kind: 'serialized', status: stored.status, headers: stored.headers, type: JSONAPI_MEDIA_TYPE, bytes: stored.body };

const errorResponse = (error: ApiError): StoredResponse => ({
  status: error.status,
  headers: error.headers,
  body: JSON.stringify(errorDocument(error.errors)),
});

/** Thrown inside the transaction when the claim was taken over while the write ran: roll it back. */
class ClaimLost extends Error {}

const turnsByApp = new WeakMap<Core.Strapi, WriteTurns | null>();

/** SQLite's fair turns at its one writer (database/write-turns.ts); none on PostgreSQL. */
const writeTurns = (app: Core.Strapi): WriteTurns | null => {
  if (!turnsByApp.has(app)) {
    const sqlite = databaseClient(app) === 'sqlite';
    // And its writes yield between statements, so that requests arriving meanwhile run (database/yielding-writes.ts).
    if (sqlite) yieldBetweenStatements(app.db.connection as unknown as Knex);
    turnsByApp.set(app, sqlite ? createWriteTurns() : null);
  }
  return turnsByApp.get(app)!;
};

/**
 * Runs the write's transaction, on SQLite in the key's turn (database/write-turns.ts) and as write work,
 * sliced with what its commit leaves running (database/yielding-writes.ts).
 */
const inTurn = <T>(keyId: string, work: () => Promise<T>): Promise<T> => {
  const turns = writeTurns(strapi);
  return turns ? turns.run(keyId, () => asWriteWork(() => inTransaction(strapi, work))) : inTransaction(strapi, work);
};

/** How often a write PostgreSQL broke a deadlock with is run again before it is answered 503. */
const DEADLOCK_ATTEMPTS = 3;

/**
 * The write's transaction, run again (whole, in a new transaction) when the database rolled it back for
 * meeting another write (a deadlock between slug or row locks, values/write-conflict.ts); nothing of it was
 * kept. Past the attempts: 503 `write_conflict` with Retry-After.
 */
const inTurnRetried = async <T>(keyId: string, work: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await inTurn(keyId, work);
    } catch (error) {
      if (!isWriteConflict(error)) throw error;
      if (attempt >= DEADLOCK_ATTEMPTS) throw writeConflict();
    }
  }
};

const runExecution = async (execution: Execution, claim: Claim | null, keyId: string): Promise<StoredResponse> => {
  const idempotency = getService('idempotency');
  try {
    return await inTurnRetried(keyId, async () => {
      const response = serialize(await execution.execute());
      if (claim && isStoredStatus(response.status) && !(await idempotency.complete(claim, response))) throw new ClaimLost();
      return response;
    });
  } catch (error) {
    if (error instanceof ClaimLost) {
      throw apiError(409, 'Another request with this Idempotency-Key took over while this one was running; nothing of this one was kept.', {
        source: { header: 'Idempotency-Key' },
        reason: 'idempotency_superseded',
      });
    }
    const explained = execution.explain?.(error) ?? (error instanceof ApiError ? error : null);
    if (!explained) {
      if (claim) await idempotency.release(claim).catch(() => undefined);
      throw error;
    }
    const response = errorResponse(explained);
    if (claim) {
      // The write rolled back; its refusal is kept on its own (or the claim given up when not kept).
      const kept = isStoredStatus(response.status) && (await idempotency.complete(claim, response).catch(() => false));
      if (!kept) await idempotency.release(claim).catch(() => undefined);
    }
    return response;
  }
};

/** A write handler: prepared, then executed in one transaction, with Idempotency-Key when enabled. */
export const writeHandler =
  (prepare: PreparedHandler, options: WriteHandlerOptions): Handler =>
  async (request) => {
    const idempotencyKey = options.idempotent ? parseIdempotencyKey(request.headers[IDEMPOTENCY_HEADER]) : null;
    const execution = await prepare(request);
    if (idempotencyKey === null) {
      if (execution.cost) await request.charge(execution.cost);
      return asResponse(await runExecution(execution, null, request.key.keyId));
    }

    const result = await getService('idempotency').claim({
      apiKey: request.key.id,
      method: request.method,
      path: request.path,
      idempotencyKey,
      fingerprint: requestFingerprint({ method: request.method, path: request.path, query: request.query, body: execution.body }),
      grantsFingerprint: grantsFingerprint(request.key.grants),
    });
    switch (result.kind) {
      case 'replay':
        return { ...asResponse(result.response), headers: { ...result.response.headers, [REPLAYED_HEADER]: 'true' } };
      case 'mismatch':
        throw apiError(422, 'This Idempotency-Key was already used for a different request (method, path, query or body); use a new key.', {
          source: { header: 'Idempotency-Key' },
          reason: 'idempotency_key_reused',
        });
      case 'grants-changed':
        throw apiError(
          409,
          "This key's grants have changed since this request was answered; its answer is not replayed. Read the record, or use a new key.",
          {
            source: { header: 'Idempotency-Key' },
            reason: 'idempotency_grants_changed',
          },
        );
      case 'in-flight':
        throw apiError(409, 'A request with this Idempotency-Key is still being processed; retry later.', {
          source: { header: 'Idempotency-Key' },
          reason: 'idempotency_in_progress',
        });
      default: {
        if (execution.cost) {
          // A refused charge (429) is not kept: the claim is given up, so the same request may run later.
          await request.charge(execution.cost).catch(async (error: unknown) => {
            await getService('idempotency')
              .release(result.claim)
              .catch(() => undefined);
            throw error;
          });
        }
        // The lease is renewed while the write runs, so that only a request whose process died loses its claim.
        const release = getService('idempotency').hold(result.claim);
        try {
          return asResponse(await runExecution(execution, result.claim, request.key.keyId));
        } finally {
          release();
        }
      }
    }
  };
