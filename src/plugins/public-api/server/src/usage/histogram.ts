/**
 * Request latency as a fixed histogram: counts per bucket, added up across minutes, resources and
 * instances by plain sums (a quantile of quantiles would be wrong; a sum of histograms is exact).
 *
 * The bounds grow by about 1.6x from 1 ms to 10 s. A quantile is reported as the upper bound of the bucket
 * it falls in, so it is never below the true value and at most the ratio between two bounds above it:
 * 1.67x at worst (a true p95 of 301 ms is reported as 500 ms), or 1 ms more below 2 ms; beyond 10 s it is
 * reported as 10 s.
 * Pure.
 */

/** Upper bounds (ms, inclusive) of every bucket but the last, which holds everything slower. */
export const LATENCY_BOUNDS_MS = [1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130, 200, 300, 500, 800, 1300, 2000, 3000, 5000, 7000, 10000] as const;

/** How many buckets a histogram has: one per bound and one beyond the last. */
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The bucket a duration falls in. */
export const latencyBucket = (ms: number): number => {
  for (let index = 0; index < LATENCY_BOUNDS_MS.length; index += 1) if (ms <= LATENCY_BOUNDS_MS[index]!) return index;
  return LATENCY_BOUNDS_MS.length;
};

/**
 * The `q` quantile (0 < q <= 1) of a histogram, as the upper bound of its bucket (ms); null when it counts
 * nothing. The last bucket has no upper bound: reported as the last bound.
 */
export const latencyQuantile = (counts: readonly number[], q: number): number | null => {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let index = 0; index < counts.length; index += 1) {
    seen += counts[index]!;
    if (seen >= rank) return LATENCY_BOUNDS_MS[Math.min(index, LATENCY_BOUNDS_MS.length - 1)]!;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
};
