/**
 * PostgreSQL: one query at a time per connection, queued here instead of in the pg driver.
 *
 * A transaction is one connection, and Strapi's own code sends independent queries on it at once: the
 * populate of a find (`@strapi/database` query/helpers/populate/apply.ts, `Promise.all` over the populated
 * attributes) and the document service's publish (`Promise.all` of its finds), both inside the write's
 * transaction. pg 8 queues a query sent to a busy client itself, but warns (`DeprecationWarning: Calling
 * client.query() when the client is already executing a query is deprecated`, printed during bench:abuse's
 * atomic-postgres row) and pg 9 will refuse it. So knex's pg client sends each query only once the
 * previous one on the same connection has settled: the order is the one pg kept (first come, first
 * served), the results and errors are the same, and queries on different connections (the pool outside a
 * transaction) still run at once. register.ts installs it before the pool opens a connection.
 *
 * It wraps `_query` of knex's pg client class, not of Strapi's client object: knex runs a transaction's
 * queries on a client made from the class's prototype (knex/lib/execution/transaction.js `makeTxClient`),
 * and those are the ones sent at once. Every knex pg client of the process gets it, once.
 */
import type { Core } from '@strapi/strapi';
import { databaseClient } from './connection';

/** knex's pg client: `_query` sends one query on one pooled connection. */
type PgKnexClient = { _query: (connection: object, query: unknown) => Promise<unknown>; serialQueries?: true };

/**
 * Wraps `client._query` (a client, or the prototype of a client class) so that queries on one connection
 * are sent one after the other. Returns false when it was wrapped already (a second application in the
 * process changes nothing).
 */
export const sendQueriesOneAtATime = (client: PgKnexClient): boolean => {
  if (client.serialQueries) return false;
  const send = client._query;
  /** The last query sent or waiting on each connection; forgotten with the connection. */
  const tails = new WeakMap<object, Promise<unknown>>();
  client._query = function (this: PgKnexClient, connection, query) {
    const previous = tails.get(connection);
    const sent = previous ? previous.then(() => send.call(this, connection, query)) : send.call(this, connection, query);
    // The next query waits for this one to settle, whether it failed or not.
    const settled = sent.then(
      () => undefined,
      () => undefined,
    );
    tails.set(connection, settled);
    void settled.then(() => {
      if (tails.get(connection) === settled) tails.delete(connection);
    });
    return sent;
  };
  client.serialQueries = true;
  return true;
};

/** On PostgreSQL, installs `sendQueriesOneAtATime` on the class of Strapi's knex client (its transactions' too). */
export const sendPostgresQueriesOneAtATime = (strapi: Core.Strapi): void => {
  if (databaseClient(strapi) !== 'postgres') return;
  const client = (strapi.db.connection as unknown as { client: PgKnexClient }).client;
  sendQueriesOneAtATime(Object.getPrototypeOf(client) as PgKnexClient);
};
