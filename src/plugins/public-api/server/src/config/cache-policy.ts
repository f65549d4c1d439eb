/**
 * A key's shared-cache policy as written in the grants file or the admin: `{ "sharedMaxAge": 60 }`
 * (contract section 14). A key with one is *cacheable*: a CDN may keep its 200 GETs for `sharedMaxAge`
 * seconds (and serve them stale while it revalidates for as long again). Keys without one are not.
 */
export type CachePolicy = { sharedMaxAge: number };

export type CachePolicyIssue = { field: string; message: string };

/** A year: the longest s-maxage worth stating. */
export const MAX_SHARED_MAX_AGE_SECONDS = 31_536_000;

/** The policy, or every problem with it (one message per field). */
export const parseCachePolicy = (value: unknown): { ok: true; policy: CachePolicy } | { ok: false; issues: CachePolicyIssue[] } => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, issues: [{ field: '', message: 'A cache policy is an object: { "sharedMaxAge": <seconds> }.' }] };
  }
  const { sharedMaxAge, ...rest } = value as Record<string, unknown>;
  const issues: CachePolicyIssue[] = [];
  if (
    typeof sharedMaxAge !== 'number' ||
    !Number.isSafeInteger(sharedMaxAge) ||
    sharedMaxAge < 1 ||
    sharedMaxAge > MAX_SHARED_MAX_AGE_SECONDS
  ) {
    issues.push({ field: 'sharedMaxAge', message: `sharedMaxAge is a whole number of seconds from 1 to ${MAX_SHARED_MAX_AGE_SECONDS}.` });
  }
  for (const name of Object.keys(rest)) issues.push({ field: name, message: `A cache policy has no field '${name}': only sharedMaxAge.` });
  return issues.length ? { ok: false, issues } : { ok: true, policy: { sharedMaxAge: sharedMaxAge as number } };
};
