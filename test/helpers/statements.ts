/**
 * The statements one read runs, counted from knex's `query` events. The process's own timers (the usage
 * counters' flush, the webhook dispatcher, the key's last-used write, the locale list's refresh) may run a
 * statement while a request is watched, and only ever add to the count; so the read is watched `rounds`
 * times and the round with the fewest statements is the read's own.
 */
import type { Core } from '@strapi/strapi';

type QueryEvent = { sql: string };
type Emitter = {
  on: (event: string, listener: (query: QueryEvent) => void) => void;
  off: (event: string, listener: (query: QueryEvent) => void) => void;
};

export const fewestStatements = async (strapi: Core.Strapi, read: () => Promise<unknown>, rounds = 3): Promise<string[]> => {
  const connection = strapi.db.connection as unknown as Emitter;
  let fewest: string[] | null = null;
  for (let round = 0; round < rounds; round += 1) {
    const seen: string[] = [];
    const listener = (query: QueryEvent) => void seen.push(query.sql);
    connection.on('query', listener);
    try {
      await read();
    } finally {
      connection.off('query', listener);
    }
    if (fewest === null || seen.length < fewest.length) fewest = seen;
  }
  return fewest!;
};
