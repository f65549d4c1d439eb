/**
 * SQLite writes that let the event loop turn between statements (issue 34). better-sqlite3 runs a
 * statement synchronously and knex resolves it with promises alone: a write of 100 operations is one chain
 * of promises that never waits for I/O, so while it runs no request that arrived meanwhile gets the event
 * loop, even a read that needs no connection of the writer's (database/sqlite-reader.ts).
 *
 * Write work asks for a turn before each of its statements (database/write-slices.ts): it goes on while
 * its slice of `WRITE_SLICE_MS` lasts, then lets the event loop run what is due (`setImmediate`), one
 * waiting chain per turn. Write work is:
 *
 * - every statement of the plugin's write transactions (`currentTransaction`), and
 * - everything run under `asWriteWork` (the API's writes, handlers/shared/write-handler.ts), which
 *   includes what a write leaves running after its commit: Strapi's document service emits its
 *   `entry.create` and `entry.publish` events from `onCommit`, all at once, each a populated `findOne` (an
 *   atomic request of 100 adds: 200 of them, outside any transaction). Unsliced, they held the thread for
 *   the seconds they took (the other key's read p95 34.6x in `npm run bench:abuse`).
 *
 * Installed on the knex client Strapi's connection uses (its `query`, through which knex runs every
 * statement; knex 3, pinned by the lockfile). Other statements (the admin's, background work) run as before.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { currentTransaction } from './connection';
import { createWriteSlices, type WriteSlices } from './write-slices';

type QueryingClient = { query: (connection: unknown, query: unknown) => Promise<unknown> };

/**
 * How long write work may keep the thread between two turns of the event loop. A read waits for at most
 * about this plus one statement's work per turn it needs; a write of 100 adds takes a few hundred turns.
 */
export const WRITE_SLICE_MS = 5;

const installed = new WeakMap<object, WriteSlices>();
const writeWork = new AsyncLocalStorage<true>();

/** Runs `work` (and whatever it leaves running, such as commit callbacks) as write work: sliced on SQLite. */
export const asWriteWork = <T>(work: () => Promise<T>): Promise<T> => writeWork.run(true, work);

const isWriteWork = (): boolean => writeWork.getStore() === true || currentTransaction() !== null;

/** Makes the write work on this knex ask for a turn before each statement (once per client). */
export const yieldBetweenStatements = (knex: Knex, sliceMs: number = WRITE_SLICE_MS): WriteSlices => {
  const client = knex.client as unknown as QueryingClient;
  const known = installed.get(client);
  if (known) return known;
  const slices = createWriteSlices({ sliceMs });
  installed.set(client, slices);
  const run = client.query.bind(client);
  client.query = async (connection, query) => {
    if (isWriteWork()) await slices.turn();
    return run(connection, query);
  };
  return slices;
};
