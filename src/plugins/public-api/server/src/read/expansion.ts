/**
 * How many records one response expands through `include`, counted before any of them is loaded
 * (contract section 13). The count follows the loader exactly: every node of the include tree expands
 * the distinct targets its owners show (each list cut to the reference cap), so the records one response
 * expands are the sum, over the nodes, of the distinct targets the node reaches. Pure.
 */

/** At most this many records are expanded through `include` in one response. */
export const MAX_EXPANDED_RECORDS = 1000;

/**
 * What one include node reaches: target row id -> the position in the page of the first record whose
 * expansion leads to it. The position tells which smaller `limit` would leave the target out.
 */
export type Reach = Map<number, number>;

/** The targets a node reaches from its owners' references (each owner at the position it is reached from). */
export const reachOf = (owners: ReadonlyMap<number, number>, references: ReadonlyMap<number, readonly { rowId: number }[]>): Reach => {
  const reach: Reach = new Map();
  for (const [owner, refs] of references) {
    const position = owners.get(owner);
    if (position === undefined) continue;
    for (const ref of refs) {
      const known = reach.get(ref.rowId);
      if (known === undefined || position < known) reach.set(ref.rowId, position);
    }
  }
  return reach;
};

/** The records the include tree expands for the first `limit` records of the page. */
export const expandedFor = (reaches: readonly Reach[], limit: number): number => {
  let count = 0;
  for (const reach of reaches) for (const position of reach.values()) if (position < limit) count += 1;
  return count;
};

/**
 * The largest number of leading records of the page whose expansion stays within `max` (0 when even the
 * first record's does not).
 */
export const largestFittingLimit = (reaches: readonly Reach[], pageSize: number, max = MAX_EXPANDED_RECORDS): number => {
  const perPosition = new Array<number>(pageSize).fill(0);
  for (const reach of reaches) for (const position of reach.values()) perPosition[position] = (perPosition[position] ?? 0) + 1;
  let total = 0;
  for (let position = 0; position < pageSize; position += 1) {
    total += perPosition[position]!;
    if (total > max) return position;
  }
  return pageSize;
};
