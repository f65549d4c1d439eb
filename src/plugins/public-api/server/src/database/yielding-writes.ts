/**
 * SQLite writes that yield between statements (issue 34). better-sqlite3 runs a statement synchronously
 * and knex resolves it with promises alone: a write of 100 operations is one chain of promises that never
 * waits for I/O, so while it runs no request that arrived meanwhile gets the event loop, even a read that
 * needs no connection of the writer's (database/sqlite-reader.ts). A read sent during an atomic request
 * waited for most of it. Inside the plugin's write transactions, every statement on Strapi's connection now
 * first lets the event loop run what is due (`setImmediate`): a read waits for at most the work between two
 * statements of a write, not for the whole write.
 *
 * Installed on the knex client Strapi's connection uses (its `query`, through which knex runs every
 * statement; knex 3, pinned by the lockfile). Outside the plugin's transactions nothing changes.
 */
import type { Knex } from 'knex';
import { currentTransaction } from './connection';

type QueryingClient = { query: (connection: unknown, query: unknown) => Promise<unknown> };

const installed = new WeakSet<object>();

const yieldToOthers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Makes the plugin's write transactions on this knex yield before each statement (once per client). */
export const yieldBetweenStatements = (knex: Knex): void => {
  const client = knex.client as unknown as QueryingClient;
  if (installed.has(client)) return;
  installed.add(client);
  const run = client.query.bind(client);
  client.query = async (connection, query) => {
    if (currentTransaction()) await yieldToOthers();
    return run(connection, query);
  };
};
