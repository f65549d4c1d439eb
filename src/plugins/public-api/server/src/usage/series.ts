/**
 * A key's usage over a window, from the sums the database grouped per step: every step of the window is
 * a point (zeros where nothing was counted), and the quantiles come from the summed histograms. Pure.
 */
import type { KeyUsage, ResourceUsage, StatusClassCounts, UsagePoint, UsageWindow } from '../../../shared/contracts/usage';
import { LATENCY_BUCKETS, latencyQuantile } from './histogram';

/** Step and length of each window, in minutes. */
export const WINDOWS: Record<UsageWindow, { stepMinutes: number; steps: number }> = {
  '24h': { stepMinutes: 60, steps: 24 },
  '7d': { stepMinutes: 60, steps: 7 * 24 },
  '30d': { stepMinutes: 1440, steps: 30 },
};

/** The first minute (since the epoch) the window covers: the start of its first step, the current step being the last. */
export const windowStart = (window: UsageWindow, nowMinute: number): number => {
  const { stepMinutes, steps } = WINDOWS[window];
  return Math.floor(nowMinute / stepMinutes) * stepMinutes - (steps - 1) * stepMinutes;
};

/** The sums of one step (`slot` = minute / step, rounded down), as read. */
export type SlotSums = {
  slot: number;
  requests: number;
  byClass: StatusClassCounts;
  rateLimited: number;
  latency: number[];
};

const zeroClasses = (): StatusClassCounts => ({ '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 });

const pointOf = (start: number, sums: SlotSums | undefined): UsagePoint => ({
  start: new Date(start * 60_000).toISOString(),
  requests: sums?.requests ?? 0,
  byClass: sums ? { ...sums.byClass } : zeroClasses(),
  rateLimited: sums?.rateLimited ?? 0,
  p50Ms: sums ? latencyQuantile(sums.latency, 0.5) : null,
  p95Ms: sums ? latencyQuantile(sums.latency, 0.95) : null,
});

export const buildUsage = (
  window: UsageWindow,
  nowMs: number,
  slots: SlotSums[],
  topResources: ResourceUsage[],
  flushIntervalSeconds: number,
): KeyUsage => {
  const { stepMinutes, steps } = WINDOWS[window];
  const first = windowStart(window, Math.floor(nowMs / 60_000));
  const bySlot = new Map(slots.map((sums) => [sums.slot, sums]));
  const points: UsagePoint[] = [];
  const total: SlotSums = {
    slot: 0,
    requests: 0,
    byClass: zeroClasses(),
    rateLimited: 0,
    latency: new Array<number>(LATENCY_BUCKETS).fill(0),
  };
  for (let step = 0; step < steps; step += 1) {
    const start = first + step * stepMinutes;
    const sums = bySlot.get(start / stepMinutes);
    points.push(pointOf(start, sums));
    if (!sums) continue;
    total.requests += sums.requests;
    for (const statusClass of Object.keys(total.byClass) as (keyof StatusClassCounts)[])
      total.byClass[statusClass] += sums.byClass[statusClass];
    total.rateLimited += sums.rateLimited;
    sums.latency.forEach((count, index) => (total.latency[index]! += count));
  }
  const totals = pointOf(first, total.requests ? total : undefined);
  const errors = total.byClass['4xx'] + total.byClass['5xx'];
  return {
    window,
    stepMinutes,
    from: new Date(first * 60_000).toISOString(),
    to: new Date(nowMs).toISOString(),
    points,
    totals: {
      requests: totals.requests,
      byClass: totals.byClass,
      rateLimited: totals.rateLimited,
      p50Ms: totals.p50Ms,
      p95Ms: totals.p95Ms,
      errorRate: total.requests ? errors / total.requests : null,
    },
    topResources,
    flushIntervalSeconds,
  };
};
