/**
 * When a failed delivery is tried again (contract section 16): exponential backoff with full jitter, from
 * seconds to hours. Attempt n (n >= 1 failures so far) waits a uniformly random time in
 * [base, min(cap, base * 2^(n-1))]; the delivery is given up once its first attempt lies `window` in the
 * past (about 24 hours), and an endpoint that has failed without a success for that long is disabled.
 *
 * Full jitter (rather than a fixed schedule) spreads the retries of many deliveries that failed at the
 * same moment (a receiver's outage) instead of sending them back all at once when it returns.
 */
import type { RetryPolicy } from '../config/webhooks';

/** The wait before the next attempt after `failures` failed ones; `random` in [0, 1). */
export const backoffMs = (policy: RetryPolicy, failures: number, random: () => number = Math.random): number => {
  const exponent = Math.min(Math.max(failures - 1, 0), 40);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  return Math.round(policy.baseMs + random() * Math.max(0, ceiling - policy.baseMs));
};

/**
 * After a failed attempt at `now`: the time of the next one, or null when the delivery is given up
 * (its first attempt was `windowMs` ago, or the next would fall after that).
 */
export const nextAttemptAt = (
  policy: RetryPolicy,
  firstAttemptAt: number,
  failures: number,
  now: number,
  random: () => number = Math.random,
): number | null => {
  const next = now + backoffMs(policy, failures, random);
  return next - firstAttemptAt > policy.windowMs ? null : next;
};

/** Whether an endpoint failing without a success since `failingSince` is to be disabled at `now`. */
export const failedTooLong = (policy: RetryPolicy, failingSince: number | null, now: number): boolean =>
  failingSince !== null && now - failingSince >= policy.windowMs;
