/**
 * Per-key usage (issue 19): counted in each process's memory (usage/tally.ts), written every few seconds
 * as additive upserts (`requests = requests + excluded.requests`), so any number of instances add up in
 * one row per key, minute and resource: never a row per request. Rolled up as it ages:
 *
 * - minute rows older than 6 hours are summed into hour rows;
 * - hour rows older than 8 days are summed into day rows (so the 7-day chart has hours);
 * - day rows older than 400 days are deleted.
 *
 * A rollup step takes one key's rows of one hour (or day) out with DELETE ... RETURNING (MySQL 8 has
 * none: on MySQL and MariaDB the rows are read FOR UPDATE, then deleted by key) and adds their sums to the coarser row in the same transaction: two instances rolling up
 * at once cannot count a row twice (the second finds the rows gone). Each run does a bounded number of steps.
 *
 * Bounds: the tally holds at most MAX_CELLS cells (key x minute x resource), a flush writes at most
 * FLUSH_BATCH_ROWS rows per statement and FLUSH_BATCHES statements per run, a rollup run at most
 * ROLLUP_STEPS steps per grain. On shutdown (destroy.ts) the timers stop and the tally is written.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { databaseClient } from '../database/connection';
import { rawRows } from '../database/raw-result';
import { isWriteConflict } from '../values/write-conflict';
import type { KeyUsage, ResourceUsage, UsageWindow } from '../../../shared/contracts/usage';
import { LATENCY_BUCKETS } from '../usage/histogram';
import { WINDOWS, buildUsage, windowStart, type SlotSums } from '../usage/series';
import { STATUS_CLASSES, createTally, emptyCell, addCell, type UsageCell, type UsageObservation } from '../usage/tally';

export const USAGE_TABLE = 'public_api_usage';

export const FLUSH_INTERVAL_MS = 5_000;
const ROLLUP_INTERVAL_MS = 60_000;
export const MAX_CELLS = 20_000;
const FLUSH_BATCH_ROWS = 200;
const FLUSH_BATCHES = 25;
const ROLLUP_STEPS = 50;
/** MySQL and MariaDB: how many rows a rollup step deletes by key per statement. */
const DELETE_BATCH_ROWS = 500;
const TOP_RESOURCES = 10;

export type Grain = 'minute' | 'hour' | 'day';
/** Minutes in each grain's bucket. */
const GRAIN_MINUTES: Record<Grain, number> = { minute: 1, hour: 60, day: 1440 };
/** How long rows of a grain are kept (minutes) before they are rolled into the next, or deleted. */
export const RETENTION_MINUTES: Record<Grain, number> = { minute: 6 * 60, hour: 8 * 1440, day: 400 * 1440 };
const ROLLS_INTO: Record<Grain, Grain | null> = { minute: 'hour', hour: 'day', day: null };

const CLASS_COLUMNS = { '2xx': 's2xx', '3xx': 's3xx', '4xx': 's4xx', '5xx': 's5xx' } as const;
const LATENCY_COLUMNS = Array.from({ length: LATENCY_BUCKETS }, (_, index) => `l${String(index).padStart(2, '0')}`);
const COUNT_COLUMNS = ['requests', ...Object.values(CLASS_COLUMNS), 'rate_limited', ...LATENCY_COLUMNS];

type UsageRow = Record<string, number | string>;

const rowOf = (cell: UsageCell, grain: Grain): UsageRow => ({
  api_key: cell.apiKey,
  grain,
  bucket: cell.minute,
  resource: cell.resource,
  requests: cell.requests,
  ...Object.fromEntries(STATUS_CLASSES.map((statusClass) => [CLASS_COLUMNS[statusClass], cell.byClass[statusClass]])),
  rate_limited: cell.rateLimited,
  ...Object.fromEntries(LATENCY_COLUMNS.map((column, index) => [column, cell.latency[index]!])),
});

/** A row as read (PostgreSQL returns sums and bigints as strings) -> a cell. */
const cellOf = (row: Record<string, unknown>, minute: number): UsageCell => {
  const cell = emptyCell(Number(row.api_key), minute, String(row.resource));
  cell.requests = Number(row.requests);
  for (const statusClass of STATUS_CLASSES) cell.byClass[statusClass] = Number(row[CLASS_COLUMNS[statusClass]]);
  cell.rateLimited = Number(row.rate_limited);
  cell.latency = LATENCY_COLUMNS.map((column) => Number(row[column]));
  return cell;
};

/** Raw SQL results: rows on SQLite, `{ rows }` on PostgreSQL. */
const rowsOf = (result: unknown): Record<string, unknown>[] => rawRows<Record<string, unknown>>(result);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const tally = createTally(MAX_CELLS);
  const knex = () => strapi.db.connection as unknown as Knex;
  let flushTimer: NodeJS.Timeout | null = null;
  let rollupTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;
  let rolling: Promise<void> | null = null;

  const ensureTable = async () => {
    const schema = knex().schema;
    if (await schema.hasTable(USAGE_TABLE)) return;
    try {
      await schema.createTable(USAGE_TABLE, (table) => {
        table.integer('api_key').notNullable();
        table.string('grain', 8).notNullable();
        table.integer('bucket').notNullable();
        table.string('resource', 255).notNullable();
        for (const column of COUNT_COLUMNS) table.bigInteger(column).notNullable().defaultTo(0);
        table.primary(['api_key', 'grain', 'bucket', 'resource'], `${USAGE_TABLE}_pkey`);
        table.index(['grain', 'bucket'], `${USAGE_TABLE}_grain_bucket_index`);
      });
    } catch (error) {
      // Another instance created it first.
      if (!(await schema.hasTable(USAGE_TABLE))) throw error;
    }
  };

  /** Adds rows to their stored counterparts (or inserts them): the one write of usage, additive. */
  const upsert = async (connection: Knex, rows: UsageRow[]) => {
    if (!rows.length) return;
    // The row that was to be inserted: `excluded` on PostgreSQL and SQLite, VALUES() on MySQL and MariaDB.
    const mysql = databaseClient(strapi) === 'mysql';
    const add = Object.fromEntries(
      COUNT_COLUMNS.map((column) => [
        column,
        mysql
          ? connection.raw('??.?? + VALUES(??)', [USAGE_TABLE, column, column])
          : connection.raw('??.?? + excluded.??', [USAGE_TABLE, column, column]),
      ]),
    );
    await connection(USAGE_TABLE).insert(rows).onConflict(['api_key', 'grain', 'bucket', 'resource']).merge(add);
  };

  const flushOnce = async (): Promise<void> => {
    for (let batch = 0; batch < FLUSH_BATCHES && tally.size() > 0; batch += 1) {
      const cells = tally.take(FLUSH_BATCH_ROWS);
      try {
        await upsert(
          knex(),
          cells.map((cell) => rowOf(cell, 'minute')),
        );
      } catch (error) {
        tally.restore(cells);
        throw error;
      }
    }
    const dropped = tally.takeDropped();
    if (dropped) strapi.log.warn(`[public-api] usage: ${dropped} requests were not counted (the tally was full)`);
  };

  /** Writes what this process counted; one flush at a time (a second call waits for the first, then writes). */
  const flush = async (): Promise<void> => {
    while (flushing) await flushing;
    flushing = flushOnce().finally(() => (flushing = null));
    await flushing;
  };

  /**
   * One rollup step of `grain`: the oldest (key, period) whose rows are past retention, taken out and
   * added to the coarser grain. False when nothing is left to do.
   */
  const rollupStep = async (grain: Grain, nowMinute: number): Promise<boolean> => {
    const into = ROLLS_INTO[grain];
    const period = into ? GRAIN_MINUTES[into] : GRAIN_MINUTES[grain];
    const cutoff = Math.floor((nowMinute - RETENTION_MINUTES[grain]) / period) * period;
    const oldest = (await knex()(USAGE_TABLE)
      .select('api_key', 'bucket')
      .where('grain', grain)
      .andWhere('bucket', '<', cutoff)
      .orderBy('bucket')
      .first()) as { api_key: number | string; bucket: number | string } | undefined;
    if (!oldest) return false;
    const apiKey = Number(oldest.api_key);
    const start = Math.floor(Number(oldest.bucket) / period) * period;
    try {
      await takeAndAdd(grain, into, apiKey, start, period, cutoff);
    } catch (error) {
      // Another instance rolling up the same rows at once (on MariaDB the two ranged DELETEs' gap locks can
      // deadlock): this step kept nothing, and the next one reads what is left.
      if (!isWriteConflict(error)) throw error;
    }
    return true;
  };

  /**
   * Deletes one key's rows of `grain` in [from, to) and answers them, in the caller's transaction:
   * DELETE ... RETURNING on SQLite and PostgreSQL. MySQL 8 has no DELETE ... RETURNING: on MySQL and
   * MariaDB the rows are read FOR UPDATE (locked until the transaction ends, so another instance's rollup
   * waits, then finds them gone), then deleted by their primary key, so that a row written into the range
   * meanwhile (possible under READ COMMITTED, which takes no gap locks) is left for a later step rather
   * than deleted uncounted.
   */
  const takeRows = async (connection: Knex, grain: Grain, apiKey: number, from: number, to: number) => {
    const range = `?? = ? AND ?? = ? AND ?? >= ? AND ?? < ?`;
    const bindings = ['api_key', apiKey, 'grain', grain, 'bucket', from, 'bucket', to];
    if (databaseClient(strapi) !== 'mysql') {
      return rowsOf(await connection.raw(`DELETE FROM ?? WHERE ${range} RETURNING *`, [USAGE_TABLE, ...bindings]));
    }
    const taken = rowsOf(await connection.raw(`SELECT * FROM ?? WHERE ${range} FOR UPDATE`, [USAGE_TABLE, ...bindings]));
    for (let at = 0; at < taken.length; at += DELETE_BATCH_ROWS) {
      const batch = taken.slice(at, at + DELETE_BATCH_ROWS);
      await connection(USAGE_TABLE)
        .where({ api_key: apiKey, grain })
        .whereIn(
          ['bucket', 'resource'],
          batch.map((row) => [Number(row.bucket), String(row.resource)]),
        )
        .delete();
    }
    return taken;
  };

  /** Takes one key's rows of one period out and adds their sums to the coarser grain (none: deletes them), in one transaction. */
  const takeAndAdd = async (
    grain: Grain,
    into: (typeof ROLLS_INTO)[Grain],
    apiKey: number,
    start: number,
    period: number,
    cutoff: number,
  ) => {
    await strapi.db.transaction(async ({ trx }) => {
      const connection = trx as unknown as Knex;
      const taken = await takeRows(connection, grain, apiKey, start, Math.min(start + period, cutoff));
      if (!into || !taken.length) return;
      const byResource = new Map<string, UsageCell>();
      for (const row of taken) {
        const cell = cellOf(row, start);
        const kept = byResource.get(cell.resource);
        if (kept) addCell(kept, cell);
        else byResource.set(cell.resource, cell);
      }
      await upsert(
        connection,
        [...byResource.values()].map((cell) => rowOf(cell, into)),
      );
    });
  };

  /** Rolls up (and finally deletes) rows past their retention, at most ROLLUP_STEPS steps per grain. */
  const rollup = async (now = Date.now()): Promise<void> => {
    const nowMinute = Math.floor(now / 60_000);
    for (const grain of ['minute', 'hour', 'day'] as const) {
      for (let step = 0; step < ROLLUP_STEPS; step += 1) if (!(await rollupStep(grain, nowMinute))) break;
    }
  };

  const sumColumns = (connection: Knex) => COUNT_COLUMNS.map((column) => connection.raw('SUM(??) AS ??', [column, column]));

  const series = async (apiKey: number, window: UsageWindow, now = Date.now()): Promise<KeyUsage> => {
    const connection = knex();
    const { stepMinutes } = WINDOWS[window];
    const from = windowStart(window, Math.floor(now / 60_000));
    // The step is a number from WINDOWS, never input: written into the SQL as a literal.
    // An integer division on every database (MySQL's `/` answers a decimal; DIV is its integer division).
    const slot = databaseClient(strapi) === 'mysql' ? `(bucket DIV ${Number(stepMinutes)})` : `(bucket / ${Number(stepMinutes)})`;
    const slots = (await connection(USAGE_TABLE)
      .select(connection.raw(`${slot} AS slot`), ...sumColumns(connection))
      .where('api_key', apiKey)
      .andWhere('bucket', '>=', from)
      .groupBy(connection.raw(slot))) as Record<string, unknown>[];
    const top = (await connection(USAGE_TABLE)
      .select('resource')
      .sum({ requests: 'requests', s4xx: 's4xx', s5xx: 's5xx', rate_limited: 'rate_limited' })
      .where('api_key', apiKey)
      .andWhere('bucket', '>=', from)
      .groupBy('resource')
      .orderBy([
        { column: 'requests', order: 'desc' },
        { column: 'resource', order: 'asc' },
      ])
      .limit(TOP_RESOURCES)) as Record<string, unknown>[];
    const sums: SlotSums[] = slots.map((row) => {
      const cell = cellOf({ ...row, api_key: apiKey, resource: '' }, 0);
      return {
        slot: Number(row.slot),
        requests: cell.requests,
        byClass: cell.byClass,
        rateLimited: cell.rateLimited,
        latency: cell.latency,
      };
    });
    const resources: ResourceUsage[] = top.map((row) => ({
      resource: String(row.resource),
      requests: Number(row.requests),
      errors: Number(row.s4xx) + Number(row.s5xx),
      rateLimited: Number(row.rate_limited),
    }));
    return buildUsage(window, now, sums, resources, FLUSH_INTERVAL_MS / 1000);
  };

  const logFailure = (what: string) => (error: Error) => {
    strapi.log.warn(`[public-api] usage: could not ${what}: ${error.message}`);
  };

  return {
    /** Counts one answered request (in memory; written by the next flush). */
    record(observation: UsageObservation): void {
      tally.add(observation);
    },

    /** Creates the table if needed and starts the flush and rollup timers. */
    async start(): Promise<void> {
      await ensureTable();
      if (!flushTimer) {
        flushTimer = setInterval(() => void flush().catch(logFailure('write the counts')), FLUSH_INTERVAL_MS);
        flushTimer.unref();
      }
      if (!rollupTimer) {
        rollupTimer = setInterval(() => {
          if (rolling) return;
          rolling = rollup()
            .catch(logFailure('roll up the counts'))
            .finally(() => (rolling = null));
        }, ROLLUP_INTERVAL_MS);
        rollupTimer.unref();
      }
    },

    flush,
    rollup,
    series,

    /** The rows of a key as stored, per grain: for tests and operators. */
    async rows(apiKey: number): Promise<{ grain: Grain; bucket: number; resource: string; requests: number }[]> {
      const rows = (await knex()(USAGE_TABLE)
        .select('grain', 'bucket', 'resource', 'requests')
        .where('api_key', apiKey)
        .orderBy(['grain', 'bucket', 'resource'])) as Record<string, unknown>[];
      return rows.map((row) => ({
        grain: row.grain as Grain,
        bucket: Number(row.bucket),
        resource: String(row.resource),
        requests: Number(row.requests),
      }));
    },

    /** Stops the timers and writes what is left (graceful shutdown). */
    async stop(): Promise<void> {
      if (flushTimer) clearInterval(flushTimer);
      if (rollupTimer) clearInterval(rollupTimer);
      flushTimer = rollupTimer = null;
      await rolling;
      await flush().catch(logFailure('write the counts on shutdown'));
    },
  };
};
