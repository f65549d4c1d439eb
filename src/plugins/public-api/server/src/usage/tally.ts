/**
 * One process's usage counts not yet written: per key, minute and resource, the requests by status
 * class, the key's rate-limit refusals and a latency histogram. Bounded: at most `maxCells` cells are
 * held; an observation that would need another is dropped and counted as dropped (a flush empties the
 * tally every few seconds, so the bound is only reached when the database has been unreachable for a
 * while, or by more keys x resources in one flush interval than the bound). Pure.
 */
import { LATENCY_BUCKETS, latencyBucket } from './histogram';

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** One answered request as the edge saw it. */
export type UsageObservation = {
  /** The key's row id. */
  apiKey: number;
  /** What the request was about: a resource id, or the name of an endpoint that has none (bounded set). */
  resource: string;
  status: number;
  /** From the key being known to the response being sent, in milliseconds. */
  durationMs: number;
  /** Whether the answer was the key's own rate limit (429). */
  rateLimited: boolean;
  /** When the request was answered (ms since the epoch). */
  at: number;
};

/** The counts of one key, minute and resource: what one row of the usage table adds. */
export type UsageCell = {
  apiKey: number;
  /** Minutes since the epoch (UTC). */
  minute: number;
  resource: string;
  requests: number;
  byClass: Record<StatusClass, number>;
  rateLimited: number;
  latency: number[];
};

export const statusClassOf = (status: number): StatusClass | null => {
  if (status >= 200 && status < 300) return '2xx';
  if (status >= 300 && status < 400) return '3xx';
  if (status >= 400 && status < 500) return '4xx';
  if (status >= 500 && status < 600) return '5xx';
  return null;
};

export const emptyCell = (apiKey: number, minute: number, resource: string): UsageCell => ({
  apiKey,
  minute,
  resource,
  requests: 0,
  byClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 },
  rateLimited: 0,
  latency: new Array<number>(LATENCY_BUCKETS).fill(0),
});

/** Adds `from` into `into` (same key, minute and resource). */
export const addCell = (into: UsageCell, from: UsageCell): void => {
  into.requests += from.requests;
  for (const statusClass of STATUS_CLASSES) into.byClass[statusClass] += from.byClass[statusClass];
  into.rateLimited += from.rateLimited;
  for (let index = 0; index < LATENCY_BUCKETS; index += 1) into.latency[index]! += from.latency[index] ?? 0;
};

const cellKey = (apiKey: number, minute: number, resource: string) => `${apiKey}\u0000${minute}\u0000${resource}`;

export type Tally = {
  add: (observation: UsageObservation) => boolean;
  /** Takes up to `max` cells out of the tally (the oldest minutes first is not promised). */
  take: (max: number) => UsageCell[];
  /** Puts cells back (a flush that failed): added to what was counted meanwhile, within the bound. */
  restore: (cells: UsageCell[]) => void;
  size: () => number;
  /** Observations dropped because the tally was full, since the last call (then reset). */
  takeDropped: () => number;
};

export const createTally = (maxCells: number): Tally => {
  const cells = new Map<string, UsageCell>();
  let dropped = 0;

  const cellFor = (apiKey: number, minute: number, resource: string): UsageCell | null => {
    const id = cellKey(apiKey, minute, resource);
    let cell = cells.get(id);
    if (!cell) {
      if (cells.size >= maxCells) return null;
      cell = emptyCell(apiKey, minute, resource);
      cells.set(id, cell);
    }
    return cell;
  };

  return {
    add(observation) {
      const statusClass = statusClassOf(observation.status);
      const cell = cellFor(observation.apiKey, Math.floor(observation.at / 60_000), observation.resource);
      if (!cell) {
        dropped += 1;
        return false;
      }
      cell.requests += 1;
      if (statusClass) cell.byClass[statusClass] += 1;
      if (observation.rateLimited) cell.rateLimited += 1;
      cell.latency[latencyBucket(observation.durationMs)]! += 1;
      return true;
    },

    take(max) {
      const taken: UsageCell[] = [];
      for (const [id, cell] of cells) {
        if (taken.length >= max) break;
        taken.push(cell);
        cells.delete(id);
      }
      return taken;
    },

    restore(restored) {
      for (const cell of restored) {
        const into = cellFor(cell.apiKey, cell.minute, cell.resource);
        if (into) addCell(into, cell);
        else dropped += cell.requests;
      }
    },

    size: () => cells.size,

    takeDropped() {
      const count = dropped;
      dropped = 0;
      return count;
    },
  };
};
