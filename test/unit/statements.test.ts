/**
 * The statement runner (database/statements.ts) over a real knex + better-sqlite3 database in memory:
 * a shape is built once and its statement prepared once per connection, values fill the template,
 * templates never carry a value of another read, both caches keep to their caps, reads inside a
 * transaction go through it, and an idle connection is used without the pool's round trip but a held one
 * never is.
 */
import knexFactory, { type Knex } from 'knex';
import { idleConnection, type PooledClient } from '../../src/plugins/public-api/server/src/database/idle-connection';
import { createLru } from '../../src/plugins/public-api/server/src/utils/lru';
import { createStatementRunner } from '../../src/plugins/public-api/server/src/database/statements';

let knex: Knex;

beforeAll(async () => {
  knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
  await knex.schema.createTable('things', (table) => {
    table.increments('id');
    table.string('name');
    table.string('locale');
    table.bigInteger('at');
  });
  await knex('things').insert([
    { name: 'a', locale: 'en', at: 1000 },
    { name: 'b', locale: 'en', at: 2000 },
    { name: 'c', locale: 'de', at: 3000 },
    { name: 'pattern%', locale: 'en', at: 4000 },
  ]);
});

afterAll(() => knex.destroy());

const runnerOf = (options: { shapeCapacity?: number; statementsPerConnection?: number; transaction?: () => null } = {}) =>
  createStatementRunner({ knex: () => knex, transaction: options.transaction ?? (() => null), client: 'sqlite', ...options });

describe('LRU', () => {
  test('keeps at most its capacity, dropping the least recently used', () => {
    const evicted: string[] = [];
    const lru = createLru<string, number>(2, (key) => evicted.push(key));
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(evicted).toEqual(['b']);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.size).toBe(2);
    expect(() => createLru(0)).toThrow(RangeError);
  });
});

describe('statement runner', () => {
  test('a shape is built and prepared once; each read gets its own values', async () => {
    const runner = runnerOf();
    const byName = (name: string) =>
      runner.rows<{ name: string }>('by-name', [name], (param) =>
        knex('things').select('name').where('name', param(0)).andWhere('locale', 'en'),
      );
    expect(await byName('a')).toEqual([{ name: 'a' }]);
    expect(await byName('b')).toEqual([{ name: 'b' }]);
    expect(await byName('c')).toEqual([]); // constants of the shape (locale) stay in it
    expect(runner.stats()).toMatchObject({ built: 1, prepared: 1, templated: 3, shapes: 1 });
  });

  test('lists of ids, dates and booleans are bound as knex would bind them', async () => {
    const runner = runnerOf();
    const ids = [1, 3];
    const rows = await runner.rows<{ id: number }>('ids-2', ids, (param) =>
      knex('things')
        .select('id')
        .whereIn(
          'id',
          ids.map((_, index) => param(index)),
        )
        .orderBy('id'),
    );
    expect(rows).toEqual([{ id: 1 }, { id: 3 }]);
    const after = await runner.rows<{ name: string }>('after', [new Date(2500)], (param) =>
      knex('things').select('name').where('at', '>', param(0)).orderBy('id'),
    );
    expect(after.map((row) => row.name)).toEqual(['c', 'pattern%']);
  });

  test('a parameter the SQL would not carry as a whole binding is not templated, and still answers right', async () => {
    const runner = runnerOf();
    const like = (prefix: string) =>
      runner.rows<{ name: string }>('like', [prefix], (param) =>
        knex('things')
          .select('name')
          .whereRaw('name LIKE ?', [`${String(param(0))}%`]),
      );
    expect(await like('pat')).toEqual([{ name: 'pattern%' }]);
    expect(await like('a')).toEqual([{ name: 'a' }]);
    expect(runner.stats()).toMatchObject({ templated: 0, built: 1 });
    // knex drops a limit it cannot parse: that parameter would be lost, so the shape is not templated.
    const limited = (limit: number) =>
      runner.rows('limit', [limit], (param) =>
        knex('things')
          .select('id')
          .limit(param(0) as number),
      );
    expect(await limited(1)).toHaveLength(1);
    expect(await limited(2)).toHaveLength(2);
    expect(runner.stats().templated).toBe(0);
  });

  test('integer constants of a shape (a LIMIT) are written into the SQLite statement; values stay bound, as +?', async () => {
    const runner = runnerOf();
    const heard: { sql: string; bindings: unknown[] }[] = [];
    const listener = (query: { sql: string; bindings: unknown[] }) => heard.push(query);
    knex.on('query', listener);
    try {
      const first = (name: string) =>
        runner.rows<{ name: string }>('first-by-name', [name], (param) =>
          knex('things').select('name').where('name', param(0)).andWhere('locale', 'en').limit(1),
        );
      expect(await first('a')).toEqual([{ name: 'a' }]);
      expect(await first('b')).toEqual([{ name: 'b' }]);
    } finally {
      knex.removeListener('query', listener);
    }
    // SQLite would plan the statement again on every run (database/sqlite-stable-plans.ts).
    expect(heard.map((query) => query.sql)).toEqual([
      'select `name` from `things` where `name` = +? and `locale` = +? limit 1',
      'select `name` from `things` where `name` = +? and `locale` = +? limit 1',
    ]);
    expect(heard.map((query) => query.bindings)).toEqual([
      ['a', 'en'],
      ['b', 'en'],
    ]);
    expect(runner.stats()).toMatchObject({ built: 1, prepared: 1 });
  });

  test('the shape cache and the statements of a connection keep to their caps', async () => {
    const runner = runnerOf({ shapeCapacity: 3, statementsPerConnection: 2 });
    // Every name a new shape and a new SQL text: built once each, never more than 3 shapes kept.
    const read = (name: string) =>
      runner.rows(`by-${name}`, [name], (param) => knex('things').select(`id as id_${name}`).where('name', param(0)));
    for (const name of ['a', 'b', 'c', 'd', 'e']) await read(name);
    expect(runner.stats()).toMatchObject({ built: 5, prepared: 5, shapes: 3 });
    // The oldest shape was dropped: read again, it is built (and, its statement gone too, prepared) again.
    await read('a');
    expect(runner.stats()).toMatchObject({ built: 6, prepared: 6, shapes: 3 });
    // `d` is still a shape, but only 2 statements per connection are kept (e and a): prepared again, not built.
    await read('d');
    expect(runner.stats()).toMatchObject({ built: 6, prepared: 7 });
    // `a` is both: neither built nor prepared.
    await read('a');
    expect(runner.stats()).toMatchObject({ built: 6, prepared: 7 });
  });

  test('a null shape, or a read inside a transaction, goes through knex with its values', async () => {
    const runner = runnerOf();
    expect(await runner.rows(null, ['b'], (param) => knex('things').select('name').where('name', param(0)))).toEqual([{ name: 'b' }]);
    await knex
      .transaction(async (trx) => {
        await trx('things').insert({ name: 'uncommitted', locale: 'en', at: 5000 });
        const inside = createStatementRunner({ knex: () => knex, transaction: () => ({ trx, own: true }), client: 'sqlite' });
        const rows = await inside.rows('inside', ['uncommitted'], (param) => trx('things').select('name').where('name', param(0)));
        expect(rows).toEqual([{ name: 'uncommitted' }]);
        expect(inside.stats().templated).toBe(0);
        await trx.rollback();
      })
      .catch(() => undefined);
    expect(runner.stats().templated).toBe(0);
  });

  test('knex listeners still hear of each query', async () => {
    const runner = runnerOf();
    const heard: string[] = [];
    const listen = (query: { sql: string }) => heard.push(query.sql);
    knex.on('query', listen);
    try {
      await runner.rows('heard', ['a'], (param) => knex('things').select('id').where('name', param(0)));
      await runner.rows('heard', ['b'], (param) => knex('things').select('id').where('name', param(0)));
    } finally {
      knex.off('query', listen);
    }
    expect(heard).toHaveLength(2);
    expect(heard[0]).toMatch(/select .*id.* from .*things/);
  });
});

describe('statement runner on an idle connection (database/idle-connection.ts)', () => {
  test('the pool is not asked while its connection is idle', async () => {
    const runner = runnerOf();
    const acquire = jest.spyOn(knex.client, 'acquireConnection');
    try {
      const rows = await runner.rows<{ name: string }>('idle-by-name', ['a'], (param) =>
        knex('things').select('name').where('name', param(0)),
      );
      expect(rows).toEqual([{ name: 'a' }]);
      expect(acquire).not.toHaveBeenCalled();
    } finally {
      acquire.mockRestore();
    }
  });

  test('while a transaction holds the connection, a read waits for it and never sees what it has not committed', async () => {
    const runner = runnerOf();
    const names = () => runner.rows<{ name: string }>('idle-names', [], () => knex('things').select('name').orderBy('id'));
    const before = (await names()).map((row) => row.name);
    let read: Promise<{ name: string }[]> | undefined;
    await knex
      .transaction(async (trx) => {
        await trx('things').insert({ name: 'uncommitted', locale: 'en', at: 5000 });
        expect(idleConnection(knex.client as PooledClient)).toBeNull();
        read = names();
        // The read cannot run on the held connection: it is still waiting when the transaction rolls back.
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).toBe('roll back'));
    expect((await read!).map((row) => row.name)).toEqual(before);
    expect(idleConnection(knex.client as PooledClient)).not.toBeNull();
  });

  test('a pool this module does not know gives no connection', () => {
    expect(idleConnection({})).toBeNull();
    expect(idleConnection({ pool: null })).toBeNull();
    expect(idleConnection({ pool: { free: [] } })).toBeNull();
  });
});

describe('statement runner on PostgreSQL (a pg connection stand-in)', () => {
  const pg = knexFactory({ client: 'pg' });
  afterAll(() => pg.destroy());

  const fakeConnection = () => {
    const sent: (string | { name?: string; text: string; values?: unknown[] })[] = [];
    const connection = {
      connection: { parsedStatements: {} as Record<string, string> },
      query: async (config: string | { name?: string; text: string; values?: unknown[] }) => {
        sent.push(config);
        if (typeof config !== 'string' && config.name) connection.connection.parsedStatements[config.name] = config.text;
        return { rows: [] };
      },
    };
    return { connection, sent };
  };

  const runnerOn = (connection: object, statementsPerConnection = 2) =>
    createStatementRunner({
      knex: () =>
        ({ client: { acquireConnection: async () => connection, releaseConnection: () => undefined }, emit: () => true }) as never,
      transaction: () => null,
      client: 'postgres',
      statementsPerConnection,
    });

  test('named statements, $n placeholders, values per read; the least recently used are deallocated past the cap', async () => {
    const { connection, sent } = fakeConnection();
    const runner = runnerOn(connection);
    const read = (column: string, value: unknown) =>
      runner.rows(`by-${column}`, [value], (param) => pg('things').select('id').where(column, param(0)));
    await read('a', 1);
    await read('a', 2);
    const [first, second] = sent as { name: string; text: string; values: unknown[] }[];
    expect(first!.text).toBe('select "id" from "things" where "a" = $1');
    expect(first!.name).toMatch(/^pda_[0-9a-f]{24}$/);
    expect(second).toEqual({ ...first, values: [2] });
    await read('b', 3);
    await read('c', 4); // a third statement: `a`, the least recently used, goes
    expect(sent).toContain(`DEALLOCATE "${first!.name}"`);
    expect(Object.keys(connection.connection.parsedStatements)).toHaveLength(2);
    expect(connection.connection.parsedStatements[first!.name]).toBeUndefined();
    expect(runner.stats()).toMatchObject({ prepared: 3, built: 3 });
  });
});
