/**
 * What an operator gives a key (name, description, expiry, grants, rate limit, cache policy, preview), how
 * it is checked before anything is written, and the refusal that carries every issue found. Pure.
 */
import { errors } from '@strapi/utils';
import type { KeyHoldings } from '../grants/content-manager';
import { formatIssues, type GrantIssue } from '../grants/resolve';
import { MAX_SHARED_MAX_AGE_SECONDS, parseCachePolicy } from '../config/cache-policy';
import { MAX_REQUESTS, MAX_WINDOW_SECONDS, parseRateLimit } from '../config/rate-limits';

export type KeyInput = {
  name: string;
  description?: string | null;
  expiresAt?: string | null;
  /** Grants as written by people (resolved against the registry), or `all` for a full snapshot. */
  grants: unknown | 'all';
  /** `{ requests, window }`, or null for the plugin config's default (contract section 13). */
  limits?: unknown;
  /** `{ sharedMaxAge }`, or null for a key whose responses are not shared (contract section 14). */
  cache?: unknown;
  /** Whether the key may read drafts (`status=draft`, contract section 15); false when absent on create. */
  preview?: boolean;
};

/**
 * Asked, once the input is valid and before anything is written, whether whoever changes the key may
 * take it from `before` (null: a new key) to `after`; throws to refuse (the admin's Content Manager
 * rights, services/admin-access.ts). Grants files and the key command pass none: they run as the operator.
 */
export type AuthorizeKey = (before: KeyHoldings | null, after: KeyHoldings) => Promise<void>;

/** Thrown with every issue of a rejected input; nothing has been written. */
export class KeyValidationError extends errors.ValidationError {
  constructor(public readonly issues: GrantIssue[]) {
    super(formatIssues(issues), {
      errors: issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, name: 'ValidationError' })),
    });
  }
}

/**
 * A key's limit and cache policy in the words of the admin form that sets them (its labels: "Rate limit:
 * requests", "Rate limit: window (seconds)", "Shared cache: max age (seconds)"), in place of the parsers'
 * member names, which suit the plugin config they also check. The issue's path still names the member.
 */
const KEY_SETTING_MESSAGES: Record<string, string> = {
  'limits.requests': `The number of cost units per window is a whole number from 1 to ${MAX_REQUESTS}.`,
  'limits.window': `The rate limit window is a whole number of seconds from 1 to ${MAX_WINDOW_SECONDS}.`,
  'cache.sharedMaxAge': `The shared cache max age is a whole number of seconds from 1 to ${MAX_SHARED_MAX_AGE_SECONDS}.`,
};

const settingIssue = (member: 'limits' | 'cache', issue: { field: string; message: string }): GrantIssue => {
  const path = issue.field ? [member, issue.field] : [member];
  return { path, message: KEY_SETTING_MESSAGES[path.join('.')] ?? issue.message };
};
export const validateMeta = (
  input: Pick<KeyInput, 'name' | 'description' | 'expiresAt' | 'limits' | 'cache' | 'preview'>,
  now: Date,
): GrantIssue[] => {
  const issues: GrantIssue[] = [];
  // Grants files and scripts reach here without the admin's body check: a flag is a boolean, never "yes".
  if (input.preview !== undefined && typeof input.preview !== 'boolean') {
    issues.push({ path: ['preview'], message: 'Preview is on or off (true or false).' });
  }
  if (input.cache !== undefined && input.cache !== null) {
    const parsed = parseCachePolicy(input.cache);
    if (!parsed.ok) issues.push(...parsed.issues.map((issue) => settingIssue('cache', issue)));
  }
  if (input.limits !== undefined && input.limits !== null) {
    const parsed = parseRateLimit(input.limits);
    if (!parsed.ok) issues.push(...parsed.issues.map((issue) => settingIssue('limits', issue)));
  }
  if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.trim().length > 120) {
    issues.push({ path: ['name'], message: 'A key needs a name of 1 to 120 characters.' });
  }
  if (
    input.description !== undefined &&
    input.description !== null &&
    (typeof input.description !== 'string' || input.description.length > 2000)
  ) {
    issues.push({ path: ['description'], message: 'The description is text of at most 2000 characters.' });
  }
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const time = Date.parse(input.expiresAt);
    if (Number.isNaN(time)) issues.push({ path: ['expiresAt'], message: `'${input.expiresAt}' is not a date.` });
    else if (time <= now.getTime()) issues.push({ path: ['expiresAt'], message: 'The expiry must be in the future.' });
  }
  return issues;
};

/** A key name as people tell names apart: trimmed, Unicode-normalized, case-folded. */
export const foldName = (name: string): string => name.trim().normalize('NFC').toLowerCase();
